/**
 * The rooms of an emulated service (docs/architecture.md, "An emulated service"): each service
 * folder has its options (`options.ts`), its behaviour without HTTP (`service.ts`; the ledger's is
 * the participant's engine) and its Hono app (`routes.ts`), and no `index.ts` that would re-export
 * them under another name.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const EMULATOR = resolve(dirname(fileURLToPath(import.meta.url)), '../../src/emulator');

/** Each service and the files it must have. */
const SERVICES: Record<string, readonly string[]> = {
  scan: ['options.ts', 'service.ts', 'routes.ts', 'errors.ts'],
  validator: ['options.ts', 'service.ts', 'routes.ts', 'errors.ts'],
  admin: ['options.ts', 'service.ts', 'routes.ts'],
  'example-registry': ['options.ts', 'service.ts', 'routes.ts'],
  'ledger-api': ['options.ts', 'routes.ts', 'route-module.ts'],
  participant: ['options.ts', 'engine.ts'],
};

describe('an emulated service has the files that say what it is', () => {
  it.each(Object.entries(SERVICES))('%s', (service, files) => {
    const dir = join(EMULATOR, service);
    expect(files.filter((f) => !existsSync(join(dir, f))), `missing in src/emulator/${service}`).toEqual([]);
    expect(existsSync(join(dir, 'index.ts')), `src/emulator/${service}/index.ts`).toBe(false);
    expect(existsSync(join(dir, 'app.ts')), `src/emulator/${service}/app.ts (the Hono app is routes.ts)`).toBe(false);
  });
});
