/**
 * End to end: a second participant (PARTICIPANTS=2) and an external party hosted on both, created
 * with the official wallet SDK's multi-hosting options, over real sockets with LocalNet's JWT auth.
 *
 *  - `sdk.party.external.create(pub, { observingParticipantEndpoints: [participant2] })`: the SDK
 *    asks participant2 for its id, generates the topology on participant1 (confirming) with
 *    participant2 observing, signs the multi-hash, allocates on participant1 and then on
 *    participant2; the party becomes a party of both only then, local on each;
 *  - a TT1 offer from alice (participant1) is accepted by the multi-hosted party through
 *    interactive submission on participant1; both participants report the same transactions of
 *    the party (same update ids, each at its own offsets) and the same holdings;
 *  - a party hosted only on participant1 is invisible on participant2, and the observing
 *    participant cannot submit for the party.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintDevToken } from '../../src/emulator/ledger-api/auth.js';
import { GetConnectedSynchronizersResponseSchema, GetLedgerEndResponseSchema, JsCantonErrorSchema, JsGetUpdatesListResponseSchema } from '../../src/ledger-client/schemas/events.js';
import { GetPartiesResponseSchema } from '../../src/ledger-client/schemas/parties.js';
import { startStack, type RunningStack } from '../../src/stack.js';
import { amuletUrls, createAmuletSdk } from './support/amulet.js';
import { balanceOf, selfSignedAuth } from './support/wallet-sdk.js';

const ADMIN_USER = 'ledger-api-user';
const AUDIENCE = 'https://canton.network.global';

function createSdk(stack: RunningStack, ledgerUrl: string, userId: string) {
  const registry = amuletUrls(stack).registry;
  return createAmuletSdk(stack, userId, { viaValidator: true, registry, ledgerUrl, tokenRegistries: [stack.registryUrl!, registry] });
}

describe('wallet SDK 1.4.0: an external party hosted on two participants', () => {
  let stack: RunningStack;
  let url1: string;
  let url2: string;
  let alice: string;
  let admin: string;
  let ext: { partyId: string; privateKey: string };
  let sdk: Awaited<ReturnType<typeof createSdk>>;
  let aliceSdk: Awaited<ReturnType<typeof createSdk>>;

  /** A raw JSON API call as `ledger-api-user` (LocalNet token). */
  async function call(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
    const token = await mintDevToken({ sub: ADMIN_USER, secret: 'unsafe', audience: AUDIENCE, nowSeconds: Math.floor(Date.now() / 1000) });
    const r = await fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  }
  const ledgerEnd = async (url: string): Promise<number> => GetLedgerEndResponseSchema.parse((await call(url, 'GET', '/v2/state/ledger-end')).body).offset;
  const partyDetails = async (url: string, party: string) => GetPartiesResponseSchema.parse((await call(url, 'GET', `/v2/parties/${encodeURIComponent(party)}`)).body).partyDetails;
  const synchronizersOf = async (url: string, party: string) =>
    GetConnectedSynchronizersResponseSchema.parse((await call(url, 'GET', `/v2/state/connected-synchronizers?party=${encodeURIComponent(party)}`)).body).connectedSynchronizers;
  async function updatesOf(url: string, party: string): Promise<Array<{ updateId: string; offset: number }>> {
    const end = await ledgerEnd(url);
    const r = await call(url, 'POST', '/v2/updates', {
      beginExclusive: 0,
      endInclusive: end,
      updateFormat: { includeTransactions: { eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: false }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' } },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return JsGetUpdatesListResponseSchema.parse(r.body).map(({ update }) => {
      if (!('Transaction' in update)) throw new Error(`not a transaction: ${JSON.stringify(update)}`);
      return { updateId: update.Transaction.value.updateId, offset: update.Transaction.value.offset };
    });
  }

  beforeAll(async () => {
    stack = await startStack({
      config: { port: 0, participant2Port: 0, participants: 2, logLevel: 'silent', auth: { mode: 'localnet' } },
      registryPort: 0,
      scanPort: 0,
      validatorPort: 0,
    });
    [url1, url2] = stack.participants.map((p) => p.ledgerUrl) as [string, string];
    const party = (hint: string) => stack.seeded!.parties.find((p) => p.hint === hint)!.party;
    alice = party('alice');
    admin = party('token-admin');
    [sdk, aliceSdk] = await Promise.all([createSdk(stack, url1, ADMIN_USER), createSdk(stack, url1, 'alice')]);
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('creates the party with the SDK multi-hosting options: confirming on participant1, observing on participant2', async () => {
    const { publicKey, privateKey } = sdk.keys.generate();
    const created = await sdk.party.external
      .create(publicKey, {
        partyHint: 'multi',
        observingParticipantEndpoints: [{ url: new URL(url2), tokenProviderConfig: selfSignedAuth(ADMIN_USER) }],
      })
      .sign(privateKey)
      .execute();
    ext = { partyId: created.partyId, privateKey };
    for (const [url, permission] of [
      [url1, 'PARTICIPANT_PERMISSION_CONFIRMATION'],
      [url2, 'PARTICIPANT_PERMISSION_OBSERVATION'],
    ] as const) {
      const details = await partyDetails(url, ext.partyId);
      expect(details).toHaveLength(1);
      expect(details[0]?.isLocal).toBe(true);
      const sync = await synchronizersOf(url, ext.partyId);
      expect(sync[0]?.permission).toBe(permission);
    }
    // participant2 reads as the party with its own user's rights (the SDK granted rights on participant1 only)
    const grant = await call(url2, 'POST', `/v2/users/${ADMIN_USER}/rights`, {
      userId: ADMIN_USER,
      rights: [{ kind: { CanReadAs: { value: { party: ext.partyId } } } }],
      identityProviderId: '',
    });
    expect(grant.status, JSON.stringify(grant.body)).toBe(200);
  });

  it('a TT1 transfer to the party is seen by both participants, with the same holdings', async () => {
    const [offer, disclosed] = await aliceSdk.token.transfer.create({
      sender: alice,
      recipient: ext.partyId,
      amount: '25',
      instrumentId: 'TT1',
      registryUrl: new URL(stack.registryUrl!),
    });
    await aliceSdk.ledger.internal.submit({ commands: [offer], actAs: [alice], disclosedContracts: disclosed });
    const pending = await sdk.token.transfer.pending(ext.partyId);
    expect(pending).toHaveLength(1);
    const [accept, acceptDisclosed] = await sdk.token.transfer.accept({ transferInstructionCid: pending[0]!.contractId, registryUrl: new URL(stack.registryUrl!) });
    await sdk.ledger.prepare({ partyId: ext.partyId, commands: accept, disclosedContracts: acceptDisclosed }).sign(ext.privateKey).execute({ partyId: ext.partyId });

    const on1 = await updatesOf(url1, ext.partyId);
    const on2 = await updatesOf(url2, ext.partyId);
    expect(on1).toHaveLength(2); // the offer and the accept
    expect(on2.map((u) => u.updateId)).toEqual(on1.map((u) => u.updateId));
    // each participant numbers them in its own offset space
    expect(on2.map((u) => u.offset)).not.toEqual(on1.map((u) => u.offset));

    const sdk2 = await createSdk(stack, url2, ADMIN_USER);
    const tt1 = { admin, id: 'TT1' };
    expect(await balanceOf(sdk, ext.partyId, tt1)).toEqual({ unlocked: '25', locked: '0' });
    expect(await balanceOf(sdk2, ext.partyId, tt1)).toEqual({ unlocked: '25', locked: '0' });
  });

  it('a party confirming on both (threshold 2) is served by either: an accept prepared and executed on participant2 reaches participant1', async () => {
    const { publicKey, privateKey } = sdk.keys.generate();
    const created = await sdk.party.external
      .create(publicKey, {
        partyHint: 'both',
        confirmingThreshold: 2,
        confirmingParticipantEndpoints: [{ url: new URL(url2), tokenProviderConfig: selfSignedAuth(ADMIN_USER) }],
      })
      .sign(privateKey)
      .execute();
    const both = created.partyId;
    for (const url of [url1, url2]) {
      const sync = await synchronizersOf(url, both);
      expect(sync[0]?.permission).toBe('PARTICIPANT_PERMISSION_CONFIRMATION');
    }
    const grant = await call(url2, 'POST', `/v2/users/${ADMIN_USER}/rights`, { userId: ADMIN_USER, rights: [{ kind: { CanActAs: { value: { party: both } } } }], identityProviderId: '' });
    expect(grant.status, JSON.stringify(grant.body)).toBe(200);

    const [offer, disclosed] = await aliceSdk.token.transfer.create({ sender: alice, recipient: both, amount: '7', instrumentId: 'TT1', registryUrl: new URL(stack.registryUrl!) });
    await aliceSdk.ledger.internal.submit({ commands: [offer], actAs: [alice], disclosedContracts: disclosed });
    const sdk2 = await createSdk(stack, url2, ADMIN_USER);
    const pending = await sdk2.token.transfer.pending(both);
    expect(pending).toHaveLength(1);
    const [accept, acceptDisclosed] = await sdk2.token.transfer.accept({ transferInstructionCid: pending[0]!.contractId, registryUrl: new URL(stack.registryUrl!) });
    const end1 = await ledgerEnd(url1);
    await sdk2.ledger.prepare({ partyId: both, commands: accept, disclosedContracts: acceptDisclosed }).sign(privateKey).execute({ partyId: both });
    expect(await ledgerEnd(url1)).toBe(end1 + 1);
    const tt1 = { admin, id: 'TT1' };
    expect(await balanceOf(sdk, both, tt1)).toEqual({ unlocked: '7', locked: '0' });
    expect(await balanceOf(sdk2, both, tt1)).toEqual({ unlocked: '7', locked: '0' });
    expect((await updatesOf(url1, both)).map((u) => u.updateId)).toEqual((await updatesOf(url2, both)).map((u) => u.updateId));
  });

  it('a party of participant1 only is invisible on participant2; the observing participant cannot submit for the party', async () => {
    const details = await partyDetails(url2, alice);
    expect(details[0]?.isLocal).toBe(false);
    for (const url of [url1, url2]) {
      const g = await call(url, 'POST', `/v2/users/${ADMIN_USER}/rights`, { userId: ADMIN_USER, rights: [{ kind: { CanReadAs: { value: { party: alice } } } }], identityProviderId: '' });
      expect(g.status, JSON.stringify(g.body)).toBe(200);
    }
    expect(await updatesOf(url2, alice)).toEqual([]);
    expect((await updatesOf(url1, alice)).length).toBeGreaterThan(0);

    // Even a user that may act as the party cannot submit through a participant that only observes it.
    const actAs = await call(url2, 'POST', `/v2/users/${ADMIN_USER}/rights`, { userId: ADMIN_USER, rights: [{ kind: { CanActAs: { value: { party: ext.partyId } } } }], identityProviderId: '' });
    expect(actAs.status, JSON.stringify(actAs.body)).toBe(200);
    const end2 = await ledgerEnd(url2);
    const r = await call(url2, 'POST', '/v2/commands/submit-and-wait', {
      commands: [{ CreateCommand: { templateId: '#splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:Token', createArguments: {} } }],
      commandId: 'observer-submits',
      actAs: [ext.partyId],
      userId: ADMIN_USER,
    });
    expect(JsCantonErrorSchema.safeParse(r.body).data?.code, JSON.stringify(r.body)).toBe('NO_SYNCHRONIZER_ON_WHICH_ALL_SUBMITTERS_CAN_SUBMIT');
    expect(await ledgerEnd(url2)).toBe(end2);
  });
});
