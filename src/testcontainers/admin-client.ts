/**
 * A client of the emulator's admin API (`/admin/v1/...` on ADMIN_PORT, src/emulator/admin): what
 * `StartedEmulatedStackContainer` uses for snapshots, restore, reset, the clock, mint, fund and
 * holdings. Answers are read with the API's own schemas; an error answer throws with its
 * `{"error"}` text and status.
 */
import type { z } from 'zod';
import {
  AdminErrorSchema,
  ClockSchema,
  FundedSchema,
  HoldingsSchema,
  MintedSchema,
  ResetDoneSchema,
  RestoredSchema,
  SnapshotCreatedSchema,
} from '../http/admin-api-schemas.js';

/** An admin API answer other than 200. */
export class AdminApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type AdminClock = z.infer<typeof ClockSchema>;
export type AdminMinted = z.infer<typeof MintedSchema>;
export type AdminFunded = z.infer<typeof FundedSchema>;
export type AdminHoldings = z.infer<typeof HoldingsSchema>;

export class AdminClient {
  /** `token`: a bearer token of a ParticipantAdmin user when the ledger's auth is on (undefined: no Authorization header). */
  constructor(
    readonly baseUrl: string,
    private readonly token?: () => Promise<string | undefined>,
  ) {}

  private async call<S extends z.ZodType>(schema: S, method: 'GET' | 'POST', path: string, body?: unknown): Promise<z.infer<S>> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    const token = await this.token?.();
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const json: unknown = await res.json().catch(() => undefined);
    if (res.status !== 200) {
      const parsed = AdminErrorSchema.safeParse(json);
      throw new AdminApiError(res.status, `admin API ${method} ${path}: ${res.status} ${parsed.success ? parsed.data.error : JSON.stringify(json)}`);
    }
    return schema.parse(json);
  }

  /** Saves the whole world; returns the snapshot's id. */
  async snapshot(): Promise<string> {
    return (await this.call(SnapshotCreatedSchema, 'POST', '/admin/v1/snapshots')).id;
  }
  async restore(id: string): Promise<void> {
    await this.call(RestoredSchema, 'POST', `/admin/v1/snapshots/${encodeURIComponent(id)}/restore`);
  }
  async reset(): Promise<void> {
    await this.call(ResetDoneSchema, 'POST', '/admin/v1/reset');
  }
  clock(): Promise<AdminClock> {
    return this.call(ClockSchema, 'GET', '/admin/v1/clock');
  }
  advanceClock(seconds: number): Promise<AdminClock> {
    return this.call(ClockSchema, 'POST', '/admin/v1/clock/advance', { seconds });
  }
  mint(req: { instrument: string; owner: string; amount: string }): Promise<AdminMinted> {
    return this.call(MintedSchema, 'POST', '/admin/v1/mint', req);
  }
  fund(req: { owner: string; instrument: string; atLeast: string }): Promise<AdminFunded> {
    return this.call(FundedSchema, 'POST', '/admin/v1/fund', req);
  }
  holdings(party: string): Promise<AdminHoldings> {
    return this.call(HoldingsSchema, 'GET', `/admin/v1/holdings?party=${encodeURIComponent(party)}`);
  }
}
