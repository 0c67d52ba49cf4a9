import { describe, expect, it } from 'vitest';
import { answerWhenDurable } from '../../../../../src/emulator/ledger/durability/durable-state.js';

describe('answerWhenDurable', () => {
  it('answers once the journal is flushed, with the env (the request context) passed on', async () => {
    const events: string[] = [];
    const durable = {
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

  it('is the fetch itself without durable state', () => {
    const fetch = (_req: Request, _env: unknown) => new Response('ok');
    expect(answerWhenDurable(undefined, fetch)).toBe(fetch);
  });
});
