/**
 * End to end: the OFFICIAL Canton clients against the emulated JSON Ledger API v2, over real
 * loopback HTTP. Two clients, both from canton-network/wallet:
 *  - `LedgerClient` (@canton-network/core-ledger-client@1.8.0): the version probe, typed
 *    GET/POST/PATCH on /v2 paths, and a few helpers (createUser, grantRights, checkIfPartyExists…);
 *  - the wallet SDK (@canton-network/wallet-sdk@1.4.0): `SDK.create`, then its `party`, `user` and
 *    `ledger` namespaces, which build their own requests (see .notes/official-client.md).
 *
 * What the clients send, and so what the emulator must accept, is recorded in
 * .notes/official-client.md (wallet-sdk 1.4.0's `LedgerClient`, seen on the wire). Two things matter most here:
 *  - every POST arrives WITHOUT a Content-Type header (the clients' fetch wrapper replaces the
 *    request's headers with just `Authorization`);
 *  - the first GET of each LedgerClient is preceded by `GET /v2/version`.
 *
 * The main story runs with auth off (the app's default wildcard claims, like a sandbox without
 * auth-services). The LedgerClient then sends no Authorization header at all; the SDK sends an
 * HS256 self-signed token (LocalNet convention) that the emulator ignores in this mode, and learns
 * its user id from the token's `sub` because `GET /v2/authenticated-user` fails in wildcard mode.
 * A second, shorter story runs with LocalNet's auth (`unsafe-jwt-hmac-256`, secret `unsafe`,
 * target audience `https://canton.network.global`), where the same SDK tokens are verified and the
 * user's rights are enforced.
 *
 * The steps of each story share state and run in order (one ledger, one story).
 *
 * The declared template implements a declared interface (its view maps payload fields), so the
 * SDK's interface-filtered ACS read (`acs.read({ interfaceIds })`, exactly the request it sends
 * for holdings, seen on the wire) is exercised too.
 */
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { LedgerClient, isJsCantonError } from '@canton-network/core-ledger-client';
import { CustomLogAdapter, SDK } from '@canton-network/wallet-sdk';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerEngine } from '../../src/emulator/participant/engine.js';
import { createLedgerApiApp, ledgerApiRoutes } from '../../src/emulator/ledger-api/routes.js';
import type { LedgerApiDeps } from '../../src/emulator/ledger-api/route-module.js';
import { createAuthenticator } from '../../src/emulator/ledger-api/auth.js';

/** A declared template: the emulator knows its signatories/observers, its only choice is Archive. */
const PACKAGE_NAME = 'e2e-model';
const PACKAGE_ID = createHash('sha256').update(`${PACKAGE_NAME}-1.0.0`).digest('hex');
const ASSET = { packageId: PACKAGE_ID, packageName: PACKAGE_NAME, moduleName: 'Main', entityName: 'Asset' };
/** Package-name reference: what clients send. */
const ASSET_REF = `#${PACKAGE_NAME}:Main:Asset`;
/** Package-id form: what the JSON API always emits (Canton `IdentifierConverter`). */
const ASSET_ID_OUT = `${PACKAGE_ID}:Main:Asset`;

/** An interface the declared template implements (view = owner and amount fields of the payload). */
const OWNED = { packageId: createHash('sha256').update('e2e-interfaces-1.0.0').digest('hex'), packageName: 'e2e-interfaces', moduleName: 'Owned', entityName: 'Owned' };
const OWNED_REF = '#e2e-interfaces:Owned:Owned';

const USER_ID = 'e2e-user';
const OBSERVER_USER_ID = 'e2e-observer';

type Client = LedgerClient;
type Sdk = Awaited<ReturnType<typeof createSdk>>;

/** The LocalNet-style self-signed token config (core-wallet-auth `self_signed`: HS256, secret 'unsafe'). */
function createSdk(baseUrl: string, userId: string) {
  return SDK.create({
    auth: {
      method: 'self_signed',
      issuer: 'unsafe-auth',
      credentials: { clientId: userId, clientSecret: 'unsafe', audience: 'https://canton.network.global', scope: '' },
    },
    ledgerClientUrl: baseUrl,
    logAdapter: new CustomLogAdapter(() => {}),
  });
}

/** No token: `getAccessToken()` returns '' so the client sends no Authorization header at all. */
const noAuth = {
  getAccessToken: async () => '',
  getAuthContext: async () => ({ userId: '', accessToken: '' }),
};

/** Transaction-by-id / updates format: all of `party`'s events of any template. */
function allEventsOf(party: string, shape: 'TRANSACTION_SHAPE_ACS_DELTA' | 'TRANSACTION_SHAPE_LEDGER_EFFECTS') {
  return {
    eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: true },
    transactionShape: shape,
  };
}

/** The event kinds of a JsTransaction, e.g. `['CreatedEvent:00ab…']`. */
function eventSummary(events: readonly unknown[] | undefined): string[] {
  return (events ?? []).map((e) => {
    const [kind, body] = Object.entries(e as Record<string, { contractId: string }>)[0]!;
    return `${kind}:${body.contractId}`;
  });
}

/** Starts the emulated ledger API on an ephemeral loopback port; returns its base URL. */
async function startLedger(
  engine: LedgerEngine,
  extra: Omit<LedgerApiDeps, 'engine'> = {},
): Promise<{ server: ServerType; baseUrl: string }> {
  engine.templates.declare({
    id: ASSET,
    signatories: ['owner'],
    observers: ['observers'],
    implements: [{ interfaceId: OWNED, view: { owner: 'owner', amount: 'amount' } }],
  });
  const app = createLedgerApiApp({ engine, ...extra }, ledgerApiRoutes);
  let server!: ServerType;
  const info = await new Promise<AddressInfo>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, resolve);
  });
  return { server, baseUrl: `http://127.0.0.1:${info.port}` };
}

function stopLedger(server: ServerType | undefined): Promise<void> {
  return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
}

describe('official Canton client (core-ledger-client 1.8.0 / wallet-sdk 1.4.0) against the emulated ledger over HTTP', () => {
  let engine: LedgerEngine;
  let server: ServerType | undefined;
  let baseUrl: string;
  let client: Client;
  let sdk: Sdk;

  let alice: string;
  let bob: string;
  let create1: { updateId: string; completionOffset: number };
  let cid1: string;
  let cid2: string;
  let offset2: number;
  let archive: { updateId: string; completionOffset: number };

  beforeAll(async () => {
    engine = new LedgerEngine({ seed: 'e2e-official-client' });
    ({ server, baseUrl } = await startLedger(engine));
    client = new LedgerClient({ baseUrl: new URL(baseUrl), logger: pino({ level: 'silent' }), accessTokenProvider: noAuth });
  });

  afterAll(() => stopLedger(server));

  it('handshakes: GET /v2/version gives a 3.4/3.5 version the client recognises', async () => {
    await client.init();
    expect(['3.4', '3.5']).toContain(client.getCurrentClientVersion());
    // The client silently falls back to 3.5 on an unknown version, so check the raw answer too.
    const version = await client.get('/v2/version');
    expect(version.version).toMatch(/^3\.[45]\.\d+/);
    // getSynchronizerId reads connectedSynchronizers[0].synchronizerId.
    expect(await client.getSynchronizerId()).toBe(engine.synchronizerId);
  });

  it('allocates a party and a user with CanActAs rights (LedgerClient helpers)', async () => {
    const allocated = await client.post('/v2/parties', {
      partyIdHint: 'alice',
      identityProviderId: '',
      synchronizerId: engine.synchronizerId,
      userId: '',
    });
    alice = allocated.partyDetails!.party;
    expect(alice).toMatch(/^alice::1220[0-9a-f]{64}$/);
    expect(allocated.partyDetails!.isLocal).toBe(true);

    // GET /v2/parties/{party} with the party URL-encoded (`alice%3A%3A1220…`).
    expect(await client.checkIfPartyExists(alice)).toBe(true);
    expect(await client.checkIfPartyExists(`nobody::1220${'0'.repeat(64)}`)).toBe(false);

    // createUser: GET /v2/users/{id} (404 USER_NOT_FOUND is swallowed), then POST /v2/users with ParticipantAdmin.
    const user = await client.createUser(USER_ID, alice);
    expect(user.id).toBe(USER_ID);
    expect(user.primaryParty).toBe(alice);

    // Polls GET /v2/parties/{party}, then POST /v2/users/{id}/rights with CanActAs; requires newlyGrantedRights.
    await client.waitForPartyAndGrantUserRights(USER_ID, alice, 3, 1);

    const { rights } = await client.get('/v2/users/{user-id}/rights', { path: { 'user-id': USER_ID } });
    expect(rights).toEqual(
      expect.arrayContaining([
        { kind: { ParticipantAdmin: { value: {} } } },
        { kind: { CanActAs: { value: { party: alice } } } },
      ]),
    );

    // Errors come back as JsCantonError objects (the promise rejects with the parsed body).
    const missing = await client.get('/v2/users/{user-id}', { path: { 'user-id': 'no-such-user' } }).catch((e: unknown) => e);
    expect(isJsCantonError(missing)).toBe(true);
    expect(missing).toMatchObject({ code: 'USER_NOT_FOUND' });
  });

  it('boots the wallet SDK as that user and allocates a second party through it', async () => {
    // SDK.create: GET /v2/version, /v2/authenticated-user (fails in wildcard mode → falls back to
    // the token's sub), /v2/state/connected-synchronizers.
    sdk = await createSdk(baseUrl, USER_ID);

    // party.internal.allocate: GET participant-id, GET /v2/parties/{party}?parties=… (200 with [] for an
    // unknown party), POST /v2/parties with userId = the SDK's user, which grants it CanActAs(bob).
    bob = await sdk.party.internal.allocate({ partyHint: 'bob' });
    expect(bob).toMatch(/^bob::1220[0-9a-f]{64}$/);
    expect(bob.split('::')[1]).toBe(alice.split('::')[1]);

    // party.list: GET /v2/users/{own id}/rights → parties of CanActAs/CanReadAs/CanExecuteAs.
    expect((await sdk.party.list()).sort()).toEqual([alice, bob].sort());

    // Allocating an existing hint is a no-op for the SDK (it finds the party first).
    expect(await sdk.party.internal.allocate({ partyHint: 'bob' })).toBe(bob);
  });

  it('creates a user with rights through the SDK', async () => {
    const user = await sdk.user.create({
      userId: OBSERVER_USER_ID,
      primaryParty: bob,
      userRights: { actAs: [bob], readAs: [alice] },
    });
    expect(user.id).toBe(OBSERVER_USER_ID);
    expect(user.primaryParty).toBe(bob);

    const { rights } = await client.get('/v2/users/{user-id}/rights', { path: { 'user-id': OBSERVER_USER_ID } });
    expect(rights).toEqual(
      expect.arrayContaining([
        { kind: { CanActAs: { value: { party: bob } } } },
        { kind: { CanReadAs: { value: { party: alice } } } },
      ]),
    );
    expect(rights).toHaveLength(2);

    // Second call: GET finds the user, no POST (the SDK's "ensure user" semantics).
    expect((await sdk.user.create({ userId: OBSERVER_USER_ID, primaryParty: bob })).id).toBe(OBSERVER_USER_ID);
  });

  it('creates a contract of a declared template (SDK submit-and-wait) and reads it back by update id', async () => {
    create1 = await sdk.ledger.internal.submit({
      commands: [{ CreateCommand: { templateId: ASSET_REF, createArguments: { owner: alice, observers: [bob], amount: '10.0' } } }],
      actAs: [alice],
      commandId: 'e2e-create-1',
    });
    expect(create1.updateId).toMatch(/^1220[0-9a-f]{64}$/);
    expect(create1.completionOffset).toBeGreaterThan(0);

    const { transaction } = await client.post('/v2/updates/transaction-by-id', {
      updateId: create1.updateId,
      transactionFormat: allEventsOf(alice, 'TRANSACTION_SHAPE_ACS_DELTA'),
    });
    expect(transaction.updateId).toBe(create1.updateId);
    expect(transaction.offset).toBe(create1.completionOffset);
    expect(transaction.commandId).toBe('e2e-create-1');
    expect(transaction.synchronizerId).toBe(engine.synchronizerId);
    expect(transaction.events).toHaveLength(1);
    const created = (transaction.events![0] as { CreatedEvent: Record<string, unknown> }).CreatedEvent;
    cid1 = created.contractId as string;
    expect(cid1).toMatch(/^00[0-9a-f]{136}$/);
    expect(created).toMatchObject({
      offset: create1.completionOffset,
      templateId: ASSET_ID_OUT,
      packageName: PACKAGE_NAME,
      createArgument: { owner: alice, observers: [bob], amount: '10.0' },
      signatories: [alice],
      observers: [bob],
      witnessParties: [alice],
    });

    // The non-deprecated lookup gives the same transaction.
    const { update } = await client.post('/v2/updates/update-by-id', {
      updateId: create1.updateId,
      updateFormat: { includeTransactions: allEventsOf(bob, 'TRANSACTION_SHAPE_ACS_DELTA') },
    });
    const viaUpdate = (update as { Transaction: { value: { updateId: string; events: unknown[] } } }).Transaction.value;
    expect(viaUpdate.updateId).toBe(create1.updateId);
    expect(eventSummary(viaUpdate.events)).toEqual([`CreatedEvent:${cid1}`]);
  });

  it('creates a second contract with submit-and-wait-for-transaction (LedgerClient)', async () => {
    const { transaction } = await client.post('/v2/commands/submit-and-wait-for-transaction', {
      commands: {
        commands: [{ CreateCommand: { templateId: ASSET_REF, createArguments: { owner: alice, observers: [], amount: '5.0' } } }],
        commandId: 'e2e-create-2',
        userId: USER_ID,
        actAs: [alice],
        readAs: [],
        synchronizerId: engine.synchronizerId,
      },
      transactionFormat: allEventsOf(alice, 'TRANSACTION_SHAPE_ACS_DELTA'),
    });
    expect(transaction.offset).toBeGreaterThan(create1.completionOffset);
    offset2 = transaction.offset;
    const [event] = transaction.events ?? [];
    const created = (event as { CreatedEvent: { contractId: string; observers: string[] } }).CreatedEvent;
    cid2 = created.contractId;
    expect(cid2).not.toBe(cid1);
    expect(created.observers).toEqual([]);
  });

  it('exercises Archive on the first contract and sees the archive', async () => {
    archive = await sdk.ledger.internal.submit({
      commands: [{ ExerciseCommand: { templateId: ASSET_REF, contractId: cid1, choice: 'Archive', choiceArgument: {} } }],
      actAs: [alice],
    });
    expect(archive.completionOffset).toBeGreaterThan(offset2);

    const acsDelta = await client.post('/v2/updates/transaction-by-id', {
      updateId: archive.updateId,
      transactionFormat: allEventsOf(alice, 'TRANSACTION_SHAPE_ACS_DELTA'),
    });
    expect(eventSummary(acsDelta.transaction.events)).toEqual([`ArchivedEvent:${cid1}`]);
    expect((acsDelta.transaction.events![0] as { ArchivedEvent: Record<string, unknown> }).ArchivedEvent).toMatchObject({
      templateId: ASSET_ID_OUT,
      packageName: PACKAGE_NAME,
      witnessParties: [alice],
    });

    const effects = await client.post('/v2/updates/transaction-by-id', {
      updateId: archive.updateId,
      transactionFormat: allEventsOf(alice, 'TRANSACTION_SHAPE_LEDGER_EFFECTS'),
    });
    expect(eventSummary(effects.transaction.events)).toEqual([`ExercisedEvent:${cid1}`]);
    expect((effects.transaction.events![0] as { ExercisedEvent: Record<string, unknown> }).ExercisedEvent).toMatchObject({
      choice: 'Archive',
      consuming: true,
      actingParties: [alice],
      templateId: ASSET_ID_OUT,
    });

    // Archiving again fails with Canton's error, surfaced by the SDK as the JsCantonError body.
    const again = await sdk.ledger.internal
      .submit({
        commands: [{ ExerciseCommand: { templateId: ASSET_REF, contractId: cid1, choice: 'Archive', choiceArgument: {} } }],
        actAs: [alice],
      })
      .catch((e: unknown) => e);
    expect(isJsCantonError(again)).toBe(true);
    expect(again).toMatchObject({ code: 'CONTRACT_NOT_FOUND' });
  });

  it('reads the ACS with an interface filter through the SDK, with interface views', async () => {
    // The SDK's holdings read: legacy `filter` + InterfaceFilter(includeInterfaceView, includeCreatedEventBlob).
    const viaInterface = await sdk.ledger.acs.read({ parties: [alice], filterByParty: true, interfaceIds: [OWNED_REF] });
    expect(viaInterface.map((c) => c.contractId)).toEqual([cid2]);
    const raw = await client.post('/v2/state/active-contracts', {
      eventFormat: {
        filtersByParty: {
          [alice]: { cumulative: [{ identifierFilter: { InterfaceFilter: { value: { interfaceId: OWNED_REF, includeInterfaceView: true, includeCreatedEventBlob: true } } } }] },
        },
        verbose: false,
      },
      activeAtOffset: await sdk.ledger.ledgerEnd(),
    });
    const entry = raw[0]?.contractEntry;
    if (entry === undefined || !('JsActiveContract' in entry)) throw new Error(`expected an active contract first, got ${JSON.stringify(raw)}`);
    const ev = entry.JsActiveContract.createdEvent;
    expect(ev.interfaceViews).toEqual([
      {
        interfaceId: `${OWNED.packageId}:Owned:Owned`,
        viewStatus: { code: 0, message: '', details: [] },
        viewValue: { owner: alice, amount: expect.any(String) },
        implementationPackageId: PACKAGE_ID,
      },
    ]);
    // an unknown interface is Canton's TEMPLATES_OR_INTERFACES_NOT_FOUND
    const unknown = await sdk.ledger.acs.read({ parties: [alice], filterByParty: true, interfaceIds: ['#e2e-interfaces:Owned:Nope'] }).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ code: 'TEMPLATES_OR_INTERFACES_NOT_FOUND' });
  });

  it('reads the ACS with a template filter through the SDK', async () => {
    // GET /v2/state/ledger-end, then POST /v2/state/active-contracts with the legacy `filter` +
    // TemplateFilter(includeCreatedEventBlob: true) for the party, `verbose: false`, `activeAtOffset`.
    const asAlice = await sdk.ledger.acs.read({ parties: [alice], filterByParty: true, templateIds: [ASSET_REF] });
    expect(asAlice.map((c) => c.contractId)).toEqual([cid2]);
    expect(asAlice[0]).toMatchObject({
      templateId: ASSET_ID_OUT,
      packageName: PACKAGE_NAME,
      signatories: [alice],
      synchronizerId: engine.synchronizerId,
    });
    expect(asAlice[0]!.createdEventBlob).toMatch(/^[A-Za-z0-9+/]+=*$/);

    // Bob observed only the first (archived) contract: nothing active for him.
    expect(await sdk.ledger.acs.read({ parties: [bob], filterByParty: true, templateIds: [ASSET_REF] })).toEqual([]);

    // A historical ACS (activeAtOffset before the archive) still holds the first contract.
    const past = await sdk.ledger.acs.read({ parties: [alice], filterByParty: true, templateIds: [ASSET_REF], offset: offset2 });
    expect(past.map((c) => c.contractId).sort()).toEqual([cid1, cid2].sort());
    const bobPast = await sdk.ledger.acs.read({ parties: [bob], filterByParty: true, templateIds: [ASSET_REF], offset: offset2 });
    expect(bobPast.map((c) => c.contractId)).toEqual([cid1]);

    // The raw element shape: {workflowId, contractEntry: {JsActiveContract: {createdEvent, synchronizerId, reassignmentCounter}}}.
    const raw = await client.post('/v2/state/active-contracts', {
      eventFormat: {
        filtersByParty: { [alice]: { cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: ASSET_REF, includeCreatedEventBlob: false } } } }] } },
        verbose: true,
      },
      activeAtOffset: archive.completionOffset,
    });
    expect(raw).toHaveLength(1);
    expect(raw[0]).toMatchObject({
      workflowId: '',
      contractEntry: { JsActiveContract: { createdEvent: { contractId: cid2, createdEventBlob: '' }, synchronizerId: engine.synchronizerId, reassignmentCounter: 0 } },
    });

    // The SDK's "continueUntilCompletion" path rebuilds the ACS from POST /v2/updates?limit=N with the
    // legacy {beginExclusive, endInclusive, filter, verbose} body, stepping beginExclusive by 1 when a
    // page is empty; it keeps created events whose createArgument.owner is a filter party.
    const fromUpdates = await sdk.ledger.acs.read({
      parties: [alice],
      filterByParty: true,
      templateIds: [ASSET_REF],
      continueUntilCompletion: true,
      limit: 50,
    });
    expect(fromUpdates.map((c) => c.contractId)).toEqual([cid2]);
  });

  it('reads updates from offset 0: the three transactions in order, offsets increasing', async () => {
    const end = await sdk.ledger.ledgerEnd();
    expect(end).toBe(engine.ledgerEnd());
    expect(end).toBeGreaterThanOrEqual(archive.completionOffset);

    const updates = await client.post(
      '/v2/updates',
      {
        beginExclusive: 0,
        endInclusive: end,
        updateFormat: { includeTransactions: allEventsOf(alice, 'TRANSACTION_SHAPE_ACS_DELTA') },
      },
      { query: { limit: 100 } },
    );
    expect(Array.isArray(updates)).toBe(true);
    const txs = updates
      .map((u) => u.update)
      .filter((u): u is Extract<NonNullable<typeof u>, { Transaction: unknown }> => u !== undefined && 'Transaction' in u)
      .map((u) => u.Transaction.value);
    expect(txs.map((t) => t.updateId)).toEqual([create1.updateId, expect.any(String), archive.updateId]);
    expect(txs.map((t) => t.offset)).toEqual([create1.completionOffset, offset2, archive.completionOffset]);
    expect(txs.map((t) => eventSummary(t.events))).toEqual([
      [`CreatedEvent:${cid1}`],
      [`CreatedEvent:${cid2}`],
      [`ArchivedEvent:${cid1}`],
    ]);
    // Every update (transactions and checkpoints) comes in strictly increasing offset order.
    const offsets = updates.map((u) => {
      const [, v] = Object.entries(u.update as Record<string, { value: { offset: number } }>)[0]!;
      return v.value.offset;
    });
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    expect(new Set(offsets).size).toBe(offsets.length);

    // Bob sees only what he is a stakeholder of: the first create and its archive.
    const bobUpdates = await client.post(
      '/v2/updates',
      { beginExclusive: 0, endInclusive: end, updateFormat: { includeTransactions: allEventsOf(bob, 'TRANSACTION_SHAPE_ACS_DELTA') } },
      { query: { limit: 100 } },
    );
    const bobTxIds = bobUpdates
      .map((u) => u.update)
      .filter((u): u is Extract<NonNullable<typeof u>, { Transaction: unknown }> => u !== undefined && 'Transaction' in u)
      .map((u) => u.Transaction.value.updateId);
    expect(bobTxIds).toEqual([create1.updateId, archive.updateId]);
  });
});

describe('official Canton client against the emulated ledger with LocalNet-style HS256 auth', () => {
  let engine: LedgerEngine;
  let server: ServerType | undefined;
  let baseUrl: string;

  beforeAll(async () => {
    engine = new LedgerEngine({ seed: 'e2e-official-client-auth' });
    // Splice LocalNet: auth-services = [{type = unsafe-jwt-hmac-256, secret = "unsafe",
    // target-audience = "https://canton.network.global"}] (Splice LocalNet's Canton config, `cluster/compose/localnet`).
    const authenticate = createAuthenticator(
      { mode: 'jwt', hs256Secret: 'unsafe', targetAudience: 'https://canton.network.global' },
      { engine },
    );
    ({ server, baseUrl } = await startLedger(engine, { authenticate }));
  });

  afterAll(() => stopLedger(server));

  it('an admin SDK onboards a wallet user, which then transacts only as its own party', async () => {
    // The SDK signs {sub, aud, scope: '', iat, exp, iss} with HS256; /v2/authenticated-user names the user.
    const admin = await createSdk(baseUrl, 'participant_admin');
    const carol = await admin.party.internal.allocate({ partyHint: 'carol' });
    const dave = await admin.party.internal.allocate({ partyHint: 'dave' });
    await admin.user.create({ userId: 'carol-wallet', primaryParty: carol, userRights: { actAs: [carol] } });

    const wallet = await createSdk(baseUrl, 'carol-wallet');
    expect(await wallet.party.list()).toEqual([carol]);

    const created = await wallet.ledger.internal.submit({
      commands: [{ CreateCommand: { templateId: ASSET_REF, createArguments: { owner: carol, observers: [dave], amount: '1.0' } } }],
      actAs: [carol],
    });
    expect(created.completionOffset).toBeGreaterThan(0);
    const acs = await wallet.ledger.acs.read({ parties: [carol], filterByParty: true, templateIds: [ASSET_REF] });
    expect(acs.map((c) => c.signatories)).toEqual([[carol]]);

    // No CanActAs(dave): PERMISSION_DENIED, which Canton redacts on the wire (security-sensitive
    // category): {code: 'NA', cause: 'A security-sensitive error has been received', grpcCodeValue: 7}.
    const denied = await wallet.ledger.internal
      .submit({
        commands: [{ CreateCommand: { templateId: ASSET_REF, createArguments: { owner: dave, observers: [], amount: '1.0' } } }],
        actAs: [dave],
      })
      .catch((e: unknown) => e);
    expect(isJsCantonError(denied)).toBe(true);
    expect(denied).toMatchObject({ code: 'NA', grpcCodeValue: 7 });

    // No read right for dave either.
    const unreadable = await wallet.ledger.acs
      .read({ parties: [dave], filterByParty: true, templateIds: [ASSET_REF] })
      .catch((e: unknown) => e);
    expect(unreadable).toMatchObject({ code: 'NA', grpcCodeValue: 7 });
  });

  it('a LedgerClient without a token passes the version probe, then gets a (redacted) UNAUTHENTICATED', async () => {
    const anonymous = new LedgerClient({ baseUrl: new URL(baseUrl), logger: pino({ level: 'silent' }), accessTokenProvider: noAuth });
    await anonymous.init(); // the version service has no authorization in Canton
    expect(['3.4', '3.5']).toContain(anonymous.getCurrentClientVersion());
    const refused = await anonymous.get('/v2/state/ledger-end').catch((e: unknown) => e);
    expect(isJsCantonError(refused)).toBe(true);
    // UNAUTHENTICATED is redacted too: code 'NA', gRPC code 16 (Canton `DecodedCantonError.redactedError`).
    expect(refused).toMatchObject({ code: 'NA', cause: 'A security-sensitive error has been received', grpcCodeValue: 16 });
  });
});
