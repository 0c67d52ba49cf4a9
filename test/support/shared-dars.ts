/** Splice's real DARs (../shared/dars beside the project): test data, read from there, never copied. */
import { fileURLToPath } from 'node:url';

export const SHARED_DARS_URL = new URL('../../../shared/dars/', import.meta.url);
export const SHARED_DARS_DIR = fileURLToPath(SHARED_DARS_URL);
