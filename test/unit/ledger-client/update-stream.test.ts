/**
 * The websocket update stream client (src/ledger-client/update-stream.ts) against the emulator's
 * `/v2/updates` channel on a real loopback socket: it sends the token as Canton reads it, delivers
 * updates in order from the offset it is given and live, reports a rejected token (after one
 * retry with a fresh token) and a refused upgrade, and `preferWebSocket` falls back to polls then.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { errors } from '../../../src/canton/errors.js';
import { WILDCARD } from '../../../src/emulator/participant/claims.js';
import { createLedgerStreams, type LedgerStreams } from '../../../src/emulator/ledger-api/websocket.js';
import type { TokenProvider } from '../../../src/ledger-client/auth.js';
import { LedgerClient } from '../../../src/ledger-client/client.js';
import { LedgerError, LedgerUnavailableError } from '../../../src/ledger-client/errors.js';
import { offsetOfUpdate, type JsGetUpdatesResponse } from '../../../src/ledger-client/schemas/events.js';
import { pollingUpdates, preferWebSocket, webSocketUpdates, WebSocketRefusedError } from '../../../src/ledger-client/update-stream.js';
import { ASSET_ID, assetLedger } from '../../support/asset-ledger.js';

const servers: Array<{ server: Server; streams?: LedgerStreams }> = [];
afterEach(async () => {
  for (const { server, streams } of servers.splice(0)) {
    streams?.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

async function listen(ledger: ReturnType<typeof assetLedger>, opts: { headers?: string[]; refuse?: boolean } = {}): Promise<string> {
  const server = createServer(getRequestListener(ledger.emu.app.fetch));
  let streams: LedgerStreams | undefined;
  if (opts.refuse) {
    server.on('upgrade', (_req, socket) => socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'));
  } else {
    streams = createLedgerStreams({
      engine: ledger.emu.engine,
      authenticate: async (header) => {
        opts.headers?.push(header ?? '');
        if (header !== 'Bearer good') throw errors.unauthenticated();
        return WILDCARD;
      },
    });
    streams.attach(server);
  }
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push({ server, streams });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function tokens(...values: string[]): TokenProvider & { invalidated: number } {
  const p = {
    invalidated: 0,
    token: async () => values[Math.min(p.invalidated, values.length - 1)],
    invalidate: () => void p.invalidated++,
  };
  return p;
}

const request = (admin: string, beginExclusive: number) => ({ beginExclusive, parties: [admin], templateIds: [ASSET_ID], includeCreatedEventBlob: true });

describe('webSocketUpdates', () => {
  it('carries the token in its subprotocols and delivers the updates after the offset, then live', async () => {
    const ledger = assetLedger();
    ledger.create(1);
    const from = ledger.emu.engine.ledgerEnd();
    ledger.create(2);
    const headers: string[] = [];
    const url = await listen(ledger, { headers });
    const stream = webSocketUpdates({ baseUrl: url, tokenProvider: tokens('good') });
    const seen: number[] = [];
    const abort = new AbortController();
    let live: () => void = () => undefined;
    const twoSeen = new Promise<void>((r) => (live = r));
    const following = stream.follow(
      request(ledger.admin, from),
      async (u: JsGetUpdatesResponse) => {
        seen.push(offsetOfUpdate(u));
        if (seen.length === 2) live();
      },
      abort.signal,
    );
    await new Promise((r) => setTimeout(r, 50));
    ledger.create(3); // committed while the stream is open
    await twoSeen;
    abort.abort();
    await expect(following).resolves.toBeUndefined();
    expect(headers).toEqual(['Bearer good']);
    expect(seen).toEqual([from + 1, from + 2]);
  });

  it('a rejected token: one retry with a fresh token, then the 401 as a LedgerError', async () => {
    const ledger = assetLedger();
    const url = await listen(ledger);
    const provider = tokens('stale', 'bad');
    const stream = webSocketUpdates({ baseUrl: url, tokenProvider: provider });
    const noop = async () => undefined;
    const first = await stream.follow(request(ledger.admin, 0), noop, new AbortController().signal).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(LedgerUnavailableError);
    expect(provider.invalidated).toBe(1);
    const second = await stream.follow(request(ledger.admin, 0), noop, new AbortController().signal).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(LedgerError);
    expect((second as LedgerError).status).toBe(401);
  });

  it('a refused upgrade is a WebSocketRefusedError; preferWebSocket then follows by polls', async () => {
    const ledger = assetLedger();
    const url = await listen(ledger, { refuse: true });
    const ws = webSocketUpdates({ baseUrl: url, tokenProvider: tokens('good') });
    await expect(ws.follow(request(ledger.admin, 0), async () => undefined, new AbortController().signal)).rejects.toBeInstanceOf(WebSocketRefusedError);

    const poll = pollingUpdates({ ledger: new LedgerClient({ baseUrl: url, tokenProvider: tokens('good') }), idleMs: 50 });
    const stream = preferWebSocket({ webSocket: ws, poll });
    const cid = ledger.create(7);
    const abort = new AbortController();
    const created: string[] = [];
    const following = stream.follow(
      request(ledger.admin, 0),
      async (u) => {
        if ('Transaction' in u.update) for (const e of u.update.Transaction.value.events) if ('CreatedEvent' in e) created.push(e.CreatedEvent.contractId);
        abort.abort();
      },
      abort.signal,
    );
    await expect(following).resolves.toBeUndefined();
    expect(stream.transport).toBe('poll');
    expect(created).toEqual([cid]);
  });
});
