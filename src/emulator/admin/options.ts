/**
 * The admin API's options (zod only, no behaviour): config/schema.ts assembles them into the
 * emulator's configuration without loading the admin API.
 */
import { z } from 'zod';

/** The admin API's fields of the emulator configuration. */
export const AdminOptionsShape = {
  adminPort: z.number().int().min(0).max(65535).default(7580).describe("Port of the emulator's admin API (`/admin/v1/...`: snapshots, restore, reset, clock, mint, fund, holdings)."),
};
