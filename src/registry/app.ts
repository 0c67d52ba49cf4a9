/**
 * The registry's HTTP app: every token-standard registry endpoint (v1 and v2) at its official
 * path, optionally under a base path (e.g. behind a gateway).
 *
 * GET endpoints are thin zod-openapi routes. POST endpoints (factories and choice contexts, the
 * wallet's hot path) are documented from the endpoint table in routes/ and executed by the
 * PostDispatcher, which the Node server's fast path (server.ts) shares.
 *
 * Edges (what wallet-sdk and the Splice CLI send): unknown fields ignored, an empty or missing body on context
 * calls is `{}`, a Content-Type on GETs and an Authorization header on these public endpoints are
 * fine. Every error is `{"error": string}`: validation failures, malformed JSON, unknown paths,
 * and unexpected failures (500, logged, message not leaked).
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from 'pino';
import { apiDocsPage } from '../http/docs.js';
import type { RegistryApi } from './api.js';
import { jsonErrorBodyLimit } from '../http/body-limit.js';
import { MAX_JSON_DEPTH, REGISTRY_MAX_BODY_BYTES } from '../http/limits.js';
import { errorAnswer, PostDispatcher, validationMessage, type Answer } from './dispatch.js';
import { allocationInstructionV1Endpoints, allocationInstructionV2Endpoints } from './routes/allocation-instruction.js';
import { allocationV1Endpoints, allocationV2Endpoints } from './routes/allocation.js';
import type { PostEndpoint, RegistryEnv } from './routes/common.js';
import { registerMetadataV1 } from './routes/metadata-v1.js';
import { transferInstructionV1Endpoints, transferInstructionV2Endpoints } from './routes/transfer-instruction.js';

export interface RegistryAppDeps {
  registry: RegistryApi;
  logger?: Logger;
  /** Serve the whole surface under this prefix (e.g. `/api/token-standard`), '' by default. */
  basePath?: string;
  /** Request bounds (defaults: 64 KiB bodies, JSON nested at most 100 deep). */
  limits?: { maxBodyBytes?: number; maxJsonDepth?: number };
}

/** Every POST endpoint of the registry, in spec-file order. */
export function registryPostEndpoints(): PostEndpoint[] {
  return [
    ...transferInstructionV1Endpoints(),
    ...transferInstructionV2Endpoints(),
    ...allocationInstructionV1Endpoints(),
    ...allocationInstructionV2Endpoints(),
    ...allocationV1Endpoints(),
    ...allocationV2Endpoints(),
  ];
}

export interface RegistryHttp {
  app: OpenAPIHono<RegistryEnv>;
  dispatcher: PostDispatcher;
  basePath: string;
  /** The request body limit the Node fast path (server.ts) applies too. */
  maxBodyBytes: number;
}

export function createRegistryHttp(deps: RegistryAppDeps): RegistryHttp {
  const basePath = deps.basePath && deps.basePath !== '/' ? deps.basePath.replace(/\/$/, '') : '';
  const endpoints = registryPostEndpoints();
  const maxBodyBytes = deps.limits?.maxBodyBytes ?? REGISTRY_MAX_BODY_BYTES;
  const dispatcher = new PostDispatcher(endpoints, deps.registry, deps.logger, deps.limits?.maxJsonDepth ?? MAX_JSON_DEPTH);
  const defaultHook: ConstructorParameters<typeof OpenAPIHono<RegistryEnv>>[0] = {
    defaultHook: (result, c) => {
      if (!result.success) return c.json({ error: validationMessage(result.error) }, 400);
    },
  };
  const app = new OpenAPIHono<RegistryEnv>(defaultHook);

  app.use('*', jsonErrorBodyLimit<RegistryEnv>(maxBodyBytes));
  app.use('*', async (c, next) => {
    if (c.req.method === 'POST') {
      const path = stripBase(c.req.path, basePath);
      const found = path === undefined ? undefined : dispatcher.match(path);
      if (found) return toResponse(await dispatcher.answerMatch(found, await c.req.text(), c.env?.requestContext));
    }
    c.set('registry', deps.registry);
    if (c.env?.requestContext) c.set('requestContext', c.env.requestContext);
    await next();
  });

  const inner = new OpenAPIHono<RegistryEnv>(defaultHook);
  registerMetadataV1(inner);
  // POSTs are executed by the dispatcher above; the table documents them here.
  for (const e of endpoints) inner.openAPIRegistry.registerPath(e.route);
  app.route(basePath === '' ? '/' : basePath, inner);
  // The OpenAPI document of exactly these endpoints (the same document as openapi.yaml).
  let served: string | undefined;
  app.get(`${basePath}/openapi.json`, (c) => {
    served ??= JSON.stringify(registryOpenApiDocument(app));
    return c.body(served, 200, { 'content-type': 'application/json' });
  });

  // A reference page for browsers, rendering the document above (self-contained: no CDN).
  let docs: string | undefined;
  app.get(`${basePath}/docs`, (c) => c.html((docs ??= apiDocsPage('token-registry: token-standard registry API', 'openapi.json'))));

  app.notFound(noSuchEndpoint);
  app.onError((err, c) => {
    if (err instanceof HTTPException && err.status < 500) return c.json({ error: err.message || 'bad request' }, err.status);
    return toResponse(errorAnswer(err, deps.logger, c.req.path));
  });
  return { app, dispatcher, basePath, maxBodyBytes };
}

/** The Hono app alone (in-process use, tests, the OpenAPI document). */
export function createRegistryApp(deps: RegistryAppDeps): OpenAPIHono<RegistryEnv> {
  return createRegistryHttp(deps).app;
}

/** The registry's 404 (`{"error": ...}`), also for the hosts that mount the registry app among others. */
export function noSuchEndpoint(c: Context): Response {
  return c.json({ error: `No such endpoint: ${c.req.method} ${c.req.path}` }, 404);
}

export function stripBase(path: string, basePath: string): string | undefined {
  if (basePath === '') return path;
  if (path === basePath) return '/';
  return path.startsWith(`${basePath}/`) ? path.slice(basePath.length) : undefined;
}

function toResponse(a: Answer): Response {
  return new Response(a.body, { status: a.status, headers: a.headers });
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
