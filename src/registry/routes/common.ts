/**
 * Route-building helpers shared by the per-spec route files: every factory endpoint and every
 * choice-context endpoint has the same shape across v1 and v2 (the upstream YAMLs duplicate the
 * schemas); only paths, operationIds and documented error codes differ.
 */
import { createRoute, z, type OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import type { RequestContext } from '../../http/request-context.js';
import type { RequestContextBindings } from '../../http/service.js';
import type { GetChoiceContextRequest, GetFactoryRequest, RegistryApi } from '../api.js';
import type { MaybePromise } from '../maybe-promise.js';
import {
  ChoiceContextSchema,
  ErrorResponseSchema,
  GetChoiceContextRequestSchema,
  GetFactoryRequestSchema,
  type ChoiceContext,
  type FactoryAnswer,
} from '../schemas.js';

export type RegistryEnv = { Variables: { registry: RegistryApi; requestContext?: RequestContext }; Bindings: RequestContextBindings };
export type RegistryApp = OpenAPIHono<RegistryEnv>;

/**
 * One POST endpoint: its OpenAPI route (the documentation and the path template) and the service
 * call it makes. The same table drives the OpenAPI document and execution (src/registry/dispatch.ts),
 * for both transports (Hono, and the Node fast path of the server), so they cannot diverge.
 * `body` says which request schema the body is validated against (GetFactoryRequest,
 * GetChoiceContextRequest) and so what the answer is: a factory with its choice context, or a
 * choice context.
 */
export type PostEndpoint =
  | {
      route: RouteConfig & { method: 'post' };
      body: 'factory';
      call(api: RegistryApi, params: Record<string, string>, body: GetFactoryRequest, ctx?: RequestContext): MaybePromise<FactoryAnswer>;
    }
  | {
      route: RouteConfig & { method: 'post' };
      body: 'context';
      call(api: RegistryApi, params: Record<string, string>, body: GetChoiceContextRequest, ctx?: RequestContext): MaybePromise<ChoiceContext>;
    };

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'bad request',
  404: 'not found',
  409: 'conflict',
  500: 'Internal server error',
  503: 'the ledger node is unavailable; retry after the Retry-After delay',
};

export function errorResponses(codes: number[]) {
  return Object.fromEntries(
    codes.map((code) => [code, { description: ERROR_DESCRIPTIONS[code]!, content: { 'application/json': { schema: ErrorResponseSchema } } }]),
  );
}

/** POST <path> with a GetFactoryRequest body. */
export function factoryRoute<R extends z.ZodType>(opts: { path: string; operationId: string; description: string; response: R; errors: number[] }) {
  return createRoute({
    method: 'post',
    path: opts.path,
    operationId: opts.operationId,
    description: opts.description,
    request: { body: { required: true, content: { 'application/json': { schema: GetFactoryRequestSchema } } } },
    responses: {
      200: { description: 'ok', content: { 'application/json': { schema: opts.response } } },
      ...errorResponses(opts.errors),
    },
  });
}

/** POST <path with one contract-id parameter> with a GetChoiceContextRequest body. */
export function contextRoute<P extends string>(opts: { path: string; param: P; operationId: string; description: string; errors: number[] }) {
  const params = z.object({ [opts.param]: z.string().openapi({ param: { name: opts.param, in: 'path', required: true } }) } as Record<P, z.ZodString>);
  return createRoute({
    method: 'post',
    path: opts.path,
    operationId: opts.operationId,
    description: opts.description,
    request: {
      params,
      body: { required: true, content: { 'application/json': { schema: GetChoiceContextRequestSchema } } },
    },
    responses: {
      200: { description: 'ok', content: { 'application/json': { schema: ChoiceContextSchema } } },
      ...errorResponses(opts.errors),
    },
  });
}
