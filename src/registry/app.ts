/**
 * The registry's HTTP app: every token-standard registry endpoint (v1 and v2) at its official
 * path, optionally under a base path (e.g. behind a gateway). Thin routes over `RegistryApi`.
 *
 * Edges (research/registry.md §8.3): unknown fields ignored, an empty or missing body on context
 * calls is `{}`, a Content-Type on GETs and an Authorization header on these public endpoints are
 * fine. Every error is `{"error": string}`: validation failures through `defaultHook`, malformed
 * JSON, unknown paths, and unexpected failures (500, logged, message not leaked).
 */
import type { IncomingMessage } from 'node:http';
import { OpenAPIHono } from '@hono/zod-openapi';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from 'pino';
import type { RegistryApi } from './api.js';
import { RegistryError, statusOf } from './errors.js';
import { registerAllocationInstructionV1, registerAllocationInstructionV2 } from './routes/allocation-instruction.js';
import { registerAllocationV1, registerAllocationV2 } from './routes/allocation.js';
import type { RegistryEnv } from './routes/common.js';
import { registerMetadataV1 } from './routes/metadata-v1.js';
import { registerTransferInstructionV1, registerTransferInstructionV2 } from './routes/transfer-instruction.js';

export interface RegistryAppDeps {
  registry: RegistryApi;
  logger?: Logger;
  /** Serve the whole surface under this prefix (e.g. `/api/token-standard`), '' by default. */
  basePath?: string;
}

export function createRegistryApp(deps: RegistryAppDeps): OpenAPIHono<RegistryEnv> {
  const app = new OpenAPIHono<RegistryEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        const issue = result.error.issues[0];
        const where = issue && issue.path.length > 0 ? ` at '${issue.path.join('.')}'` : '';
        return c.json({ error: `Invalid request${where}: ${issue?.message ?? 'malformed input'}` }, 400);
      }
    },
  });

  // An empty (or absent) body on a POST is `{}`: clients send nothing on context calls.
  // The body is read once, here, into hono's body cache, which the JSON validators parse from.
  // Served by @hono/node-server it is read straight from the Node request: asking the Web
  // Request for it would build an undici Request with a web stream body, the largest cost of a
  // warm request in the profile (bench/registry.ts); a clone of it (tee) was the next one.
  app.use('*', async (c, next) => {
    if (c.req.method === 'POST') {
      const text = await requestText(c.env as NodeBindings | undefined, c.req);
      const empty = text.trim() === '';
      if (empty || !isJson(c.req.header('content-type'))) {
        const headers = new Headers(c.req.raw.headers);
        headers.set('content-type', 'application/json');
        const body = empty ? '{}' : text;
        c.req.raw = new Request(c.req.url, { method: 'POST', body, headers });
        cacheText(c.req, body, true);
      } else {
        cacheText(c.req, text, false);
      }
    }
    c.set('registry', deps.registry);
    await next();
  });

  registerMetadataV1(app);
  registerTransferInstructionV1(app);
  registerTransferInstructionV2(app);
  registerAllocationInstructionV1(app);
  registerAllocationInstructionV2(app);
  registerAllocationV1(app);
  registerAllocationV2(app);

  app.notFound((c) => c.json({ error: `No such endpoint: ${c.req.method} ${c.req.path}` }, 404));
  app.onError((err, c) => {
    if (err instanceof RegistryError) {
      if (err.retryAfterSeconds !== undefined) c.header('Retry-After', String(err.retryAfterSeconds));
      return c.json({ error: err.message }, statusOf(err.code));
    }
    if (err instanceof HTTPException && err.status < 500) {
      // hono's validators: malformed JSON and the like
      return c.json({ error: err.message || 'bad request' }, err.status);
    }
    deps.logger?.error({ err, path: c.req.path }, 'unexpected error in registry');
    return c.json({ error: 'An unexpected error occurred.' }, 500);
  });

  if (deps.basePath && deps.basePath !== '' && deps.basePath !== '/') {
    const outer = new OpenAPIHono<RegistryEnv>();
    outer.route(deps.basePath.replace(/\/$/, ''), app);
    outer.notFound((c) => c.json({ error: `No such endpoint: ${c.req.method} ${c.req.path}` }, 404));
    return outer;
  }
  return app;
}

/** What @hono/node-server passes as `c.env`: the Node request (absent under `app.request`). */
type NodeBindings = { incoming?: IncomingMessage & { rawBody?: unknown } };

/** The request body as text: from the Node request when there is one, else from the Web Request. */
async function requestText(env: NodeBindings | undefined, req: { text(): Promise<string> }): Promise<string> {
  const incoming = env?.incoming;
  if (!incoming || typeof incoming.on !== 'function') return req.text();
  // Some hosts (e.g. Cloud Functions) have read the body already.
  if (incoming.rawBody instanceof Buffer) return incoming.rawBody.toString('utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Puts the body text into hono's body cache. At run time the cache holds promises of the bodies
 * (`HonoRequest#cachedBody`), whatever its declared type says.
 */
function cacheText(req: { bodyCache: object }, text: string, replace: boolean): void {
  if (replace) req.bodyCache = {};
  (req.bodyCache as Record<string, Promise<unknown>>).text = Promise.resolve(text);
}

function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/(.+\+)?json/i.test(contentType);
}

/** The OpenAPI document of the served registry API (checked in as openapi.yaml). */
export function registryOpenApiDocument(app: OpenAPIHono<RegistryEnv>) {
  return app.getOpenAPIDocument({
    openapi: '3.0.3',
    info: {
      title: 'token-registry: Canton token-standard registry API',
      version: '1.0.0',
      description:
        'The off-ledger registry API of CIP-0056 (v1) and CIP-0112 (v2), as served by token-registry. ' +
        'Paths, schemas and status codes follow the official token-standard OpenAPI files; operationIds of v2 ' +
        'operations carry a V2 suffix where the upstream v1 and v2 files reuse the same id. 503 (with Retry-After) ' +
        'is returned when the ledger node is unavailable.',
    },
  });
}
