/**
 * The ledger's websocket channels read by the OFFICIAL clients over real sockets, against the
 * emulated stack (`startStack`, demo world, auth off):
 * - `@canton-network/core-asyncapi-client`'s `WebSocketClient` (subprotocols `jwt.token.<JWT>` and
 *   `daml.ws.auth`, one JSON request frame, one JSON message per element) reads a bounded update
 *   range and the ACS;
 * - the wallet SDK's `events` namespace (`SDK.create({ events: { websocketURL, auth } })`, which
 *   uses that client) receives a transfer instruction that alice's SDK creates after bob
 *   subscribed.
 */
import { WebSocketClient } from '@canton-network/core-asyncapi-client';
import { AuthTokenProvider } from '@canton-network/core-wallet-auth';
import pino from 'pino';
import { CustomLogAdapter, SDK } from '@canton-network/wallet-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type RunningStack } from '../../src/stack.js';
import { createWalletSdk, selfSignedAuth } from './support/wallet-sdk.js';

const HOLDING = '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding';
const TRANSFER_INSTRUCTION = '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction';

describe('official websocket clients against the emulated ledger', () => {
  let stack: RunningStack;
  let wsUrl: string;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    stack = await startStack({ config: { port: 0, logLevel: 'silent' }, registryPort: 0 });
    wsUrl = stack.ledgerUrl.replace(/^http/, 'ws');
    const party = (hint: string) => stack.seeded!.parties.find((p) => p.hint === hint)!.party;
    alice = party('alice');
    bob = party('bob');
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  });

  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${stack.ledgerUrl}${path}`, { method: 'POST', body: JSON.stringify(body) });
    expect(r.status).toBe(200);
    return (await r.json()) as unknown[];
  };
  /** The client as the SDK builds it: a self-signed token provider (ignored by the ledger with auth off). */
  const client = () => new WebSocketClient({ baseUrl: wsUrl, accessTokenProvider: new AuthTokenProvider(selfSignedAuth('alice'), pino({ level: 'silent' })) });

  it('core-asyncapi-client reads a bounded update range: the same updates the list endpoint gives, then the stream ends', async () => {
    const end = stack.engine.ledgerEnd();
    const received: unknown[] = [];
    for await (const u of client().streamUpdates({ beginExclusive: 0, endInclusive: end, partyId: alice, interfaceIds: [HOLDING] })) received.push(u);
    const expected = await post('/v2/updates', {
      beginExclusive: 0,
      endInclusive: end,
      verbose: true,
      filter: { filtersByParty: { [alice]: { cumulative: [{ identifierFilter: { InterfaceFilter: { value: { interfaceId: HOLDING, includeInterfaceView: true, includeCreatedEventBlob: true } } } }] } } },
    });
    expect(received.length).toBeGreaterThan(0);
    expect(received).toEqual(expected);
  });

  it('core-asyncapi-client reads the ACS channel: the list endpoint\'s contracts, then the stream ends', async () => {
    const end = stack.engine.ledgerEnd();
    const request = {
      activeAtOffset: end,
      eventFormat: { filtersByParty: { [alice]: { cumulative: [{ identifierFilter: { InterfaceFilter: { value: { interfaceId: HOLDING, includeInterfaceView: true, includeCreatedEventBlob: false } } } }] } }, verbose: false },
    };
    // The client has no ACS method of its own; its generic `generate` (URL + one request frame ->
    // messages until the server closes) is what its update and completion streams use.
    const c = client();
    const received: unknown[] = [];
    for await (const m of c['generate'](`${wsUrl}/v2/state/active-contracts`, request)) received.push(m);
    expect(received.length).toBeGreaterThan(0);
    expect(received).toEqual(await post('/v2/state/active-contracts', request));
  });

  it('the wallet SDK events namespace receives a transfer made by another client after subscribing', async () => {
    const bobEvents = await SDK.create({
      auth: selfSignedAuth('bob'),
      ledgerClientUrl: stack.ledgerUrl,
      logAdapter: new CustomLogAdapter(() => {}),
      events: { auth: selfSignedAuth('bob'), websocketURL: wsUrl },
    });
    const from = stack.engine.ledgerEnd();
    const updates = bobEvents.events.updates({ partyId: bob, interfaceIds: [TRANSFER_INSTRUCTION], beginOffset: from });
    // The subscription opens when the iterator is first pulled.
    const first = updates.next();
    await new Promise((r) => setTimeout(r, 200));
    expect(stack.ledgerStreams.size).toBe(1);

    const aliceSdk = await createWalletSdk(stack.ledgerUrl, stack.registryUrl!, 'alice');
    const [command, disclosed] = await aliceSdk.token.transfer.create({ sender: alice, recipient: bob, amount: '7', instrumentId: 'TT1', registryUrl: new URL(stack.registryUrl!), memo: 'over ws' });
    const submitted = await aliceSdk.ledger.internal.submit({ commands: [command], actAs: [alice], disclosedContracts: disclosed });

    const { value, done } = await first;
    expect(done).toBe(false);
    const tx = (value as { update: { Transaction: { value: { offset: number; events: Array<{ CreatedEvent?: { signatories: string[]; observers: string[]; interfaceViews: Array<{ viewValue: { transfer: { receiver: string; amount: string } } }> } }> } } } }).update.Transaction.value;
    expect(tx.offset).toBe(submitted.completionOffset);
    const created = tx.events.map((e) => e.CreatedEvent).filter((e) => e !== undefined);
    expect(created).toHaveLength(1);
    expect(created[0]!.interfaceViews[0]!.viewValue.transfer).toMatchObject({ receiver: bob, amount: '7.0000000000' });
    await updates.return?.(undefined);
    await new Promise((r) => setTimeout(r, 100));
    expect(stack.ledgerStreams.size).toBe(0);
  }, 60_000);
});
