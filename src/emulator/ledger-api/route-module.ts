/**
 * What every route module of the emulated JSON Ledger API is given: the engine and the caller's
 * claims (deps and the request's variables), and the app it adds its paths to. routes.ts builds
 * the app and lists the modules, so each module (commands.ts, updates.ts, ...) takes its types
 * from here, not from routes.ts, which imports it.
 */
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import type { Claims } from '../participant/claims.js';
import type { LedgerEngine } from '../participant/engine.js';

export interface LedgerApiDeps {
  engine: LedgerEngine;
  /** Resolves the caller's claims from the Authorization header; throws LedgerApiError on failure. */
  authenticate?: (authorizationHeader: string | undefined) => Promise<Claims>;
  logger?: Logger;
  /** Request body limits (defaults: pekko-http's 8 MiB; 10 MiB for DAR uploads, the gRPC inbound message limit behind them). */
  limits?: { maxBodyBytes?: number; maxDarBytes?: number };
}

export type LedgerEnv = {
  Variables: {
    claims: Claims;
    traceId: string;
    engine: LedgerEngine;
    tokenFailure: boolean;
    /** The submission id of a command submission, which Canton's errors carry as correlationId. */
    correlationId: string | undefined;
  };
};

export type LedgerApp = Hono<LedgerEnv>;
export type RouteModule = (app: LedgerApp, deps: LedgerApiDeps) => void;
