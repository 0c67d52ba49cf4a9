import { describe, expect, it } from 'vitest';
import { createRequestContexts, formatTraceparent, parseTraceparent, requestIdOf } from '../../../src/http/request-context.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

describe('W3C traceparent', () => {
  it('accepts a version-00 header and keeps trace id and flags, with a span of its own', () => {
    const t = parseTraceparent(`00-${TRACE}-${PARENT}-01`)!;
    expect(t).toMatchObject({ traceId: TRACE, parentId: PARENT, flags: '01' });
    expect(t.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(t.spanId).not.toBe(PARENT);
    expect(formatTraceparent(t)).toBe(`00-${TRACE}-${t.spanId}-01`);
  });

  it('refuses what the spec calls invalid', () => {
    for (const bad of [
      `ff-${TRACE}-${PARENT}-01`, // version ff
      `00-${'0'.repeat(32)}-${PARENT}-01`, // all-zero trace id
      `00-${TRACE}-${'0'.repeat(16)}-01`, // all-zero parent id
      `00-${TRACE.toUpperCase()}-${PARENT}-01`, // upper case hex
      `00-${TRACE}-${PARENT}-01-extra`, // version 00 has exactly four fields
      `00-${TRACE.slice(1)}-${PARENT}-01`,
      'garbage',
      '',
    ]) {
      expect(parseTraceparent(bad), bad).toBeUndefined();
    }
    expect(parseTraceparent(undefined)).toBeUndefined();
  });

  it('accepts a future version with more fields, as the spec asks', () => {
    expect(parseTraceparent(`01-${TRACE}-${PARENT}-00-more`)?.traceId).toBe(TRACE);
  });
});

describe('request ids', () => {
  it('keeps a reasonable caller id, replaces a missing, empty, long or odd one with a UUID', () => {
    expect(requestIdOf('abc-123_x.y:z')).toBe('abc-123_x.y:z');
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    for (const bad of [undefined, '', 'a'.repeat(129), 'with space', 'line\nbreak', 'quote"']) expect(requestIdOf(bad)).toMatch(uuid);
  });
});

describe('request contexts', () => {
  it('carries the context across awaits, and gives the headers for a downstream call', async () => {
    const contexts = createRequestContexts();
    expect(contexts.outgoingHeaders()).toEqual({});
    const trace = parseTraceparent(`00-${TRACE}-${PARENT}-01`)!;
    const seen = await contexts.run({ requestId: 'r-1', trace }, async () => {
      await new Promise((r) => setTimeout(r, 1));
      return contexts.outgoingHeaders();
    });
    expect(seen).toEqual({ 'x-request-id': 'r-1', traceparent: `00-${TRACE}-${trace.spanId}-01` });
    expect(contexts.current()).toBeUndefined();
  });
});
