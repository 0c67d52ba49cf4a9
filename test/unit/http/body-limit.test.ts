import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { honoBodyLimit, jsonDepthExceeds, jsonErrorBodyLimit, readLimitedBody, showJson, writeTooLarge } from '../../../src/http/body-limit.js';

describe('jsonDepthExceeds', () => {
  it('counts array and object nesting, ignoring brackets in strings and escaped quotes', () => {
    expect(jsonDepthExceeds('[[[]]]', 3)).toBe(false);
    expect(jsonDepthExceeds('[[[[]]]]', 3)).toBe(true);
    expect(jsonDepthExceeds('{"a":{"b":[1]}}', 3)).toBe(false);
    expect(jsonDepthExceeds('{"a":{"b":[{}]}}', 3)).toBe(true);
    expect(jsonDepthExceeds('["[[[[[[", "\\"[[[[["]', 1)).toBe(false);
    expect(jsonDepthExceeds('['.repeat(100_000), 100)).toBe(true);
    expect(jsonDepthExceeds('[1],[2],[3]', 1)).toBe(false);
  });

  it('finds the end of a string past escaped backslashes and quotes', () => {
    const deep = (s: string) => `[${s},[[[]]]]`; // depth 4 after the string
    expect(jsonDepthExceeds(deep(JSON.stringify('a\\')), 3)).toBe(true); // "a\\": the quote after two backslashes ends it
    expect(jsonDepthExceeds(deep(JSON.stringify('a\\"[[[[')), 3)).toBe(true);
    expect(jsonDepthExceeds(deep(JSON.stringify('\\\\"')), 4)).toBe(false);
    expect(jsonDepthExceeds(`["${'\\'.repeat(3)}"${'['.repeat(5)}`, 4)).toBe(false); // still inside the string
    expect(jsonDepthExceeds('["unterminated [[[[[', 2)).toBe(false); // JSON.parse reports it
  });
});

describe('showJson', () => {
  it('bounds the rendering and never throws', () => {
    expect(showJson({ a: 1 })).toBe('{"a":1}');
    expect(showJson('x'.repeat(1000)).length).toBe(203);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(showJson(cyclic)).toBe('<unprintable value>');
    expect(showJson(undefined)).toBe('undefined');
  });
});

describe('honoBodyLimit (in process)', () => {
  const app = new Hono();
  app.use('*', jsonErrorBodyLimit(10));
  app.post('/echo', async (c) => c.text(await c.req.text()));

  it('passes a body within the limit, declared or streamed', async () => {
    expect(await (await app.request('/echo', { method: 'POST', body: '0123456789', headers: { 'content-length': '10' } })).text()).toBe('0123456789');
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode('01234'));
        c.enqueue(new TextEncoder().encode('56789'));
        c.close();
      },
    });
    const res = await app.request('/echo', { method: 'POST', body: stream, duplex: 'half' } as RequestInit);
    expect(await res.text()).toBe('0123456789');
  });

  it('refuses a declared length over the limit with 413 in the API shape and Connection: close', async () => {
    const res = await app.request('/echo', { method: 'POST', body: '01234567890', headers: { 'content-length': '11' } });
    expect(res.status).toBe(413);
    expect(res.headers.get('connection')).toBe('close');
    expect(await res.json()).toEqual({ error: 'Request Content-Length of 11 bytes exceeds the configured limit of 10 bytes' });
  });

  it('refuses a streamed body at the first chunk over the limit, without reading the rest', async () => {
    let pulled = 0;
    const stream = new ReadableStream({
      pull(c) {
        pulled++;
        c.enqueue(new Uint8Array(6));
        if (pulled > 1000) c.close();
      },
    });
    const res = await app.request('/echo', { method: 'POST', body: stream, duplex: 'half' } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: 'Request body exceeds the configured limit of 10 bytes' });
    expect(pulled).toBeLessThan(10);
  });

  it('lets a per-request limit and answer be chosen', async () => {
    const a = new Hono();
    a.use('*', honoBodyLimit({ maxBytes: (c) => (c.req.path === '/big' ? 100 : 5), tooLarge: (c, limit) => c.text(`limit ${limit}`, 413) }));
    a.post('*', (c) => c.text('ok'));
    expect((await a.request('/big', { method: 'POST', body: 'x'.repeat(50) })).status).toBe(200);
    const small = await a.request('/small', { method: 'POST', body: 'x'.repeat(50) });
    expect([small.status, await small.text()]).toEqual([413, 'limit 5']);
  });
});

describe('readLimitedBody over a real socket', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

  async function start(limit: number): Promise<number> {
    server = createServer((req, res) => {
      void readLimitedBody(req, limit).then((read) => {
        if (!read.ok) return writeTooLarge(res, 'application/json', JSON.stringify({ error: `too large (${read.receivedBytes})` }));
        res.end(`got ${read.body.length}`);
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
    return (server.address() as AddressInfo).port;
  }

  function send(port: number, chunks: Buffer[], headers: Record<string, string>): Promise<{ status: number; body: string; connection?: string }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest({ port, host: '127.0.0.1', method: 'POST', path: '/', headers }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body, connection: res.headers.connection }));
      });
      req.on('error', reject);
      for (const c of chunks) req.write(c);
      req.end();
    });
  }

  it('reads a body within the limit', async () => {
    const port = await start(100);
    expect(await send(port, [Buffer.alloc(60), Buffer.alloc(40)], {})).toMatchObject({ status: 200, body: 'got 100' });
  });

  it('refuses a declared over-long body before reading it', async () => {
    const port = await start(100);
    const r = await send(port, [Buffer.alloc(101)], { 'content-length': '101' });
    expect(r).toMatchObject({ status: 413, body: '{"error":"too large (101)"}', connection: 'close' });
  });

  it('abandons a chunked body at the first byte over the limit', async () => {
    const port = await start(100);
    const r = await send(port, [Buffer.alloc(60), Buffer.alloc(60)], { 'transfer-encoding': 'chunked' });
    expect(r.status).toBe(413);
    expect(r.connection).toBe('close');
  });
});
