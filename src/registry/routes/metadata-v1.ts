/** token-metadata-v1.yaml: registry info and instruments (GET). */
import { createRoute, z } from '@hono/zod-openapi';
import { badRequest } from '../errors.js';
import { GetRegistryInfoResponseSchema, InstrumentSchema, ListInstrumentsResponseSchema } from '../schemas.js';
import { errorResponses, type RegistryApp } from './common.js';

const getRegistryInfo = createRoute({
  method: 'get',
  path: '/registry/metadata/v1/info',
  operationId: 'getRegistryInfo',
  description: 'Get information about the registry, including the standards it supports.',
  responses: {
    200: { description: 'ok', content: { 'application/json': { schema: GetRegistryInfoResponseSchema } } },
    ...errorResponses([404, 500, 503]),
  },
});

const listInstruments = createRoute({
  method: 'get',
  path: '/registry/metadata/v1/instruments',
  operationId: 'listInstruments',
  description: 'List all instruments managed by this instrument admin, in a stable order, paged.',
  request: {
    query: z.object({
      pageSize: z.string().optional().openapi({ param: { name: 'pageSize', in: 'query' }, description: 'Number of instruments per page (default 25).', example: '25' }),
      pageToken: z.string().optional().openapi({ param: { name: 'pageToken', in: 'query' }, description: 'The `nextPageToken` of the previous page.' }),
    }),
  },
  responses: {
    200: { description: 'ok', content: { 'application/json': { schema: ListInstrumentsResponseSchema } } },
    ...errorResponses([400, 404, 500, 503]),
  },
});

const getInstrument = createRoute({
  method: 'get',
  path: '/registry/metadata/v1/instruments/{instrumentId}',
  operationId: 'getInstrument',
  description: "Retrieve an instrument's metadata.",
  request: { params: z.object({ instrumentId: z.string().openapi({ param: { name: 'instrumentId', in: 'path', required: true } }) }) },
  responses: {
    200: { description: 'ok', content: { 'application/json': { schema: InstrumentSchema } } },
    ...errorResponses([404, 500, 503]),
  },
});

/** The spec's default page size. */
const DEFAULT_PAGE_SIZE = 25;
/** Largest page we serve; bigger requests are clamped (the spec lets servers bound it). */
const MAX_PAGE_SIZE = 1000;

export function registerMetadataV1(app: RegistryApp): void {
  app.openapi(getRegistryInfo, async (c) => c.json(await c.var.registry.getRegistryInfo(), 200));
  app.openapi(listInstruments, async (c) => {
    const { pageSize, pageToken } = c.req.valid('query');
    let size = DEFAULT_PAGE_SIZE;
    if (pageSize !== undefined) {
      if (!/^\d+$/.test(pageSize) || Number(pageSize) < 1) throw badRequest(`pageSize must be a positive integer, got "${pageSize}"`);
      size = Math.min(Number(pageSize), MAX_PAGE_SIZE);
    }
    return c.json(await c.var.registry.listInstruments(size, pageToken === '' ? undefined : pageToken, c.var.requestContext), 200);
  });
  app.openapi(getInstrument, async (c) => c.json(await c.var.registry.getInstrument(c.req.valid('param').instrumentId, c.var.requestContext), 200));
}
