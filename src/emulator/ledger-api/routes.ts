/**
 * The emulated JSON Ledger API v2: one Hono app whose paths are exactly Canton's (`/v2/...`,
 * `/livez`, `/readyz`), mounted at the root of its port like a real participant's JSON API.
 *
 * Route modules are thin: decode the request, check the caller's claims, call the engine, print
 * the wire shape. Errors take Canton's two shapes: JsCantonError JSON for Canton errors, and the
 * text/plain 400 of tapir for bodies that do not decode (Canton `http/json/v2/Endpoints.scala`).
 *
 * The paths are Canton 3.5's plus three of Canton 3.6 (openapi-3.6-snapshot.yaml):
 * update-by-hash, completion-by-hash and the party JWKS. Known limitations of those: rejected
 * completions are not kept (a rejection is answered synchronously, so `lastRejectedCompletions` is
 * empty); party key usages are not recorded (every key of the party is in its JWKS); only external
 * parties have signing keys.
 */
import { Hono } from 'hono';
import { WILDCARD } from '../participant/claims.js';
import { LedgerApiError, PlainTextBadRequest, renderJsCantonError } from '../../canton/errors.js';
import { isCallTimeAuthFailure } from './auth.js';
import { honoBodyLimit } from '../../http/body-limit.js';
import { LEDGER_MAX_BODY_BYTES, LEDGER_MAX_DAR_BYTES } from '../../http/limits.js';
import type { LedgerApiDeps, LedgerApp, LedgerEnv, RouteModule } from './route-module.js';
import { commandRoutes } from './commands.js';
import { contractRoutes } from './contracts.js';
import { interactiveSubmissionRoutes } from './interactive-submission.js';
import { packagesRoutes } from './packages.js';
import { partiesRoutes } from './parties.js';
import { externalPartiesRoutes } from './external-parties.js';
import { usersRoutes } from './users.js';
import { stateRoutes } from './state.js';
import { systemRoutes } from './system.js';
import { updateRoutes } from './updates.js';
import { joseRoutes } from './jose.js';

/** The DAR upload paths, which take binary bodies far larger than any JSON request. */
const DAR_UPLOAD_PATHS = new Set(['/v2/dars', '/v2/packages', '/v2/dars/validate']);

/** Paths served without a token, as on Canton (health and the API docs). */
const PUBLIC_PATHS = new Set(['/livez', '/readyz', '/docs/openapi', '/docs/asyncapi']);
/** Paths whose gRPC service has no authorization wrapper (`ApiServices.scala`): a bad token passes. */
const UNAUTHORIZED_SERVICE_PATHS = new Set(['/v2/version']);

/** The route modules of the emulated JSON Ledger API, in one list (order does not matter). */
export const ledgerApiRoutes: RouteModule[] = [systemRoutes, commandRoutes, stateRoutes, updateRoutes, contractRoutes, packagesRoutes, partiesRoutes, externalPartiesRoutes, usersRoutes, interactiveSubmissionRoutes, joseRoutes];

export function createLedgerApiApp(deps: LedgerApiDeps, routes: RouteModule[]): LedgerApp {
  const app: LedgerApp = new Hono<LedgerEnv>();
  const { engine } = deps;
  const authenticate = deps.authenticate ?? (async () => WILDCARD);
  const maxBody = deps.limits?.maxBodyBytes ?? LEDGER_MAX_BODY_BYTES;
  const maxDar = deps.limits?.maxDarBytes ?? LEDGER_MAX_DAR_BYTES;

  // Before auth: an oversized body is refused as pekko-http refuses it (`max-content-length`),
  // with its text/plain 413, before Canton's routes (and their token checks) see the request.
  app.use(
    '*',
    honoBodyLimit<LedgerEnv>({
      maxBytes: (c) => (DAR_UPLOAD_PATHS.has(c.req.path) ? maxDar : maxBody),
      tooLarge: (c, limit, received) =>
        c.text(
          c.req.header('content-length') !== undefined && c.req.header('transfer-encoding') === undefined
            ? `Request Content-Length of ${received} bytes exceeds the configured limit of ${limit} bytes`
            : `EntityStreamSizeException: incoming entity size (while streaming) exceeded size limit (${limit} bytes)!`,
          413,
        ),
    }),
  );

  app.use('*', async (c, next) => {
    c.set('engine', engine);
    c.set('traceId', (c.req.header('traceparent')?.split('-')[1] ?? engine.ids.hex(16)).toLowerCase());
    c.set('tokenFailure', false);
    if (PUBLIC_PATHS.has(c.req.path)) {
      c.set('claims', WILDCARD);
      return next();
    }
    try {
      c.set('claims', await authenticate(c.req.header('authorization')));
    } catch (e) {
      // Canton fails a bad/missing token (401) or another participant's token (403) only when the
      // called service authorizes (auth.ts header): the version service never does, and those
      // bodies carry no token context. Claim-resolution failures (unknown/deactivated user) fail
      // `Endpoints.validateJwtToken` on every path and get {"ledger_api_error":"invalid token"}.
      if (isCallTimeAuthFailure(e) && UNAUTHORIZED_SERVICE_PATHS.has(c.req.path)) {
        c.set('claims', WILDCARD);
        return next();
      }
      c.set('tokenFailure', !isCallTimeAuthFailure(e));
      throw e;
    }
    return next();
  });

  for (const route of routes) route(app, deps);

  app.notFound((c) => c.text('The requested resource could not be found.', 404));

  app.onError((err, c) => {
    if (err instanceof PlainTextBadRequest) {
      return c.text(err.body, 400);
    }
    const ledgerErr =
      err instanceof LedgerApiError ? err : new LedgerApiError('LEDGER_API_INTERNAL_ERROR', String(err?.message ?? err));
    if (!(err instanceof LedgerApiError)) deps.logger?.error({ err }, 'unhandled error in ledger API');
    const traceId = c.get('traceId') ?? engine.ids.hex(16);
    const body = renderJsCantonError(ledgerErr, {
      participant: engine.participantName,
      traceId,
      correlationId: c.get('correlationId') ?? null,
      tokenFailure: c.get('tokenFailure'),
    });
    // A transient failure tells the client when to come back (the category's retry delay).
    if (ledgerErr.httpStatus === 503) c.header('Retry-After', '1');
    return c.json(body, ledgerErr.httpStatus as 400);
  });

  return app;
}
