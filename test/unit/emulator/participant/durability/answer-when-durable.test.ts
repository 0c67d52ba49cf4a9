import { describe, expect, it } from 'vitest';
import { errors } from '../../../../../src/canton/errors.js';
import { answerWhenDurable } from '../../../../../src/emulator/participant/durability/durable-state.js';

const refusal = () => errors.cannotPersist('cannot persist to STATE_DIR /x (ENOSPC: no space left on device)');

describe('answerWhenDurable', () => {
  it('answers once the journal is flushed, with the env (the request context) passed on', async () => {
    const events: string[] = [];
    const durable = {
      failures: 0,
      refusal,
      flush: async () => {
        await new Promise((r) => setTimeout(r, 5));
        events.push('flushed');
      },
    };
    const fetch = answerWhenDurable(durable, (req: Request, env: { requestContext?: { requestId: string } }) => {
      events.push(`handled ${env.requestContext?.requestId}`);
      return new Response('ok');
    });
    const res = await fetch(new Request('http://x/'), { requestContext: { requestId: 'r-1' } });
    events.push('answered');
    expect(await res.text()).toBe('ok');
    expect(events).toEqual(['handled r-1', 'flushed', 'answered']);
  });

  it('answers a 503 with Retry-After when the write failed, in the shape `refused` gives', async () => {
    const durable = { failures: 0, refusal, flush: () => Promise.reject(refusal()) };
    const res = await answerWhenDurable(durable, () => new Response('ok'))(new Request('http://x/'), {});
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.json()).toEqual({ error: expect.stringContaining('ENOSPC') });
  });

  it('refuses an answer made while a write failed, even when its own flush had nothing left', async () => {
    const durable = { failures: 0, refusal, flush: () => Promise.resolve() };
    const fetch = answerWhenDurable(
      durable,
      () => {
        durable.failures++;
        return new Response('ok');
      },
      (err) => new Response(err.code, { status: err.httpStatus }),
    );
    const res = await fetch(new Request('http://x/'), {});
    expect(res.status).toBe(503);
    expect(await res.text()).toBe('INDEX_DB_SQL_TRANSIENT_ERROR');
  });

  it('is the fetch itself without durable state', () => {
    const fetch = (_req: Request, _env: unknown) => new Response('ok');
    expect(answerWhenDurable(undefined, fetch)).toBe(fetch);
  });
});
