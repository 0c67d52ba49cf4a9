/**
 * Streams cannot be held open for nothing: a websocket that never sends its request frame is
 * closed (1008), one whose peer stops answering pings is terminated, and the list form's idle
 * wait (`stream_idle_timeout_ms`) is capped at Canton's 20 s request timeout.
 */
import { Hono } from 'hono';
import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { listParams } from '../../../src/emulator/ledger-api/lists.js';
import { LEDGER_MAX_LIST_WAIT_MS } from '../../../src/http/limits.js';
import { testLedger } from '../../support/ledger-fixtures.js';
import { serveLedger, type ServedLedger } from '../../support/ws-ledger.js';

let served: ServedLedger | undefined;

/** The server forgets a socket shortly after the client saw it close. */
async function untilNoSockets(): Promise<number> {
  for (let i = 0; i < 50 && served!.streams.size > 0; i++) await new Promise((r) => setTimeout(r, 20));
  return served!.streams.size;
}
afterEach(async () => {
  await served?.close();
  served = undefined;
});

describe('stream idle bounds', () => {
  it('closes a websocket that sends no request frame', async () => {
    served = await serveLedger(testLedger(), { requestFrameTimeoutMs: 150, pingIntervalMs: 60_000 });
    const ws = new WebSocket(`${served.wsUrl}/v2/updates`, ['daml.ws.auth']);
    const started = Date.now();
    const closed = await new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    expect(closed).toEqual({ code: 1008, reason: 'no request frame received' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await untilNoSockets()).toBe(0);
  });

  it('terminates a socket whose peer does not answer pings', async () => {
    served = await serveLedger(testLedger(), { requestFrameTimeoutMs: 60_000, pingIntervalMs: 100 });
    // autoPong off: the client never answers, as a vanished peer would not
    const ws = new WebSocket(`${served.wsUrl}/v2/updates`, ['daml.ws.auth'], { autoPong: false });
    await new Promise((r) => ws.once('open', r));
    const code = await new Promise<number>((resolve) => ws.on('close', (c) => resolve(c)));
    expect(code).toBe(1006); // terminated, no close frame
    expect(await untilNoSockets()).toBe(0);
  });

  it('keeps a socket whose peer answers pings', async () => {
    served = await serveLedger(testLedger(), { requestFrameTimeoutMs: 60_000, pingIntervalMs: 50 });
    const ws = new WebSocket(`${served.wsUrl}/v2/updates`, ['daml.ws.auth']);
    await new Promise((r) => ws.once('open', r));
    await new Promise((r) => setTimeout(r, 400));
    expect(ws.readyState).toBe(WebSocket.OPEN);
    ws.close();
  });

  it('caps the idle wait a list request may ask for', async () => {
    const app = new Hono();
    app.get('/', (c) => c.json(listParams(c)));
    const asked = async (q: string) => ((await (await app.request(`/?${q}`)).json()) as { idleTimeoutMs: number }).idleTimeoutMs;
    expect(await asked('')).toBe(500);
    expect(await asked('stream_idle_timeout_ms=1000')).toBe(1000);
    expect(await asked('stream_idle_timeout_ms=999999999')).toBe(LEDGER_MAX_LIST_WAIT_MS);
  });
});
