/**
 * The ledger client against the real emulator over loopback HTTP, with JWT auth on
 * (HS256, target audience): ACS paging, updates, point lookups, bad tokens, and an OAuth2
 * client-credentials token server on 127.0.0.1 that issues tokens the emulator accepts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { oauth2ClientCredentials, selfSignedHs256, staticToken, type TokenProvider } from '../../../src/ledger-client/auth.js';
import { LedgerClient, type LedgerClientOptions } from '../../../src/ledger-client/client.js';
import { LedgerError } from '../../../src/ledger-client/errors.js';
import { z } from 'zod';
import { JsTransactionSchema, offsetOfUpdate, type JsTransaction } from '../../../src/ledger-client/schemas/events.js';
import { DEFAULT_DEMO_WORLD } from '../../../src/emulator/world/seed.js';

const SECRET = 'secret';
const AUDIENCE = 'https://example';
const ASSET = '#acme-token:Acme.Token:Asset';
const HOLDING_IFACE = '#acme-api:Acme.Api:IHolding';
const OTHER = '#acme-token:Acme.Token:Other';

let emu: RunningEmulator;
let admin: string;
let alice: string;
let adminToken: TokenProvider;

function ledger(extra: Partial<LedgerClientOptions> = {}) {
  return new LedgerClient({ baseUrl: emu.ledgerUrl, tokenProvider: adminToken, retry: { baseDelayMs: 1 }, ...extra });
}

const SubmitAndWaitForTransactionResponseSchema = z.object({ transaction: JsTransactionSchema });

/** Submits commands as the admin user over HTTP (the client itself never writes). */
async function submit(commands: unknown[]): Promise<JsTransaction> {
  const r = await fetch(`${emu.ledgerUrl}/v2/commands/submit-and-wait-for-transaction`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${await adminToken.token()}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      commands: { commands, commandId: `cmd-${Math.random()}`, actAs: [admin], userId: 'token-admin' },
      transactionFormat: {
        eventFormat: { filtersByParty: { [admin]: { cumulative: [] } }, verbose: false },
        transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
      },
    }),
  });
  const body = await r.json();
  if (r.status !== 200) throw new Error(`submit failed: ${r.status} ${JSON.stringify(body)}`);
  return SubmitAndWaitForTransactionResponseSchema.parse(body).transaction;
}

/** The contract id of a transaction's first event, a create. */
function firstCreated(tx: JsTransaction): string {
  const e = tx.events[0];
  if (!e || !('CreatedEvent' in e)) throw new Error(`the first event is not a create: ${JSON.stringify(e)}`);
  return e.CreatedEvent.contractId;
}

const createAsset = (i: number, owner = admin) => ({
  CreateCommand: { templateId: ASSET, createArguments: { admin, owner, amount: `${i}.0`, label: `asset-${i}` } },
});

beforeAll(async () => {
  emu = await startEmulator({
    // the demo parties, without token instruments: these tests count contracts
    world: { ...DEFAULT_DEMO_WORLD, instruments: [], amulet: undefined },
    config: {
      port: 0,
      logLevel: 'silent',
      auth: { mode: 'jwt', hs256Secret: SECRET, targetAudience: AUDIENCE },
      listMaxElements: 20,
      declaredTemplates: [
        {
          packageName: 'acme-token',
          moduleName: 'Acme.Token',
          entityName: 'Asset',
          signatories: ['admin'],
          observers: ['owner'],
          implements: [
            { interface: { packageName: 'acme-api', moduleName: 'Acme.Api', entityName: 'IHolding' }, view: { owner: 'owner', amount: 'amount' } },
          ],
        },
        { packageName: 'acme-token', moduleName: 'Acme.Token', entityName: 'Other', signatories: ['admin'], observers: [], implements: [] },
      ],
    },
  });
  admin = emu.seeded!.parties.find((p) => p.hint === 'token-admin')!.party;
  alice = emu.seeded!.parties.find((p) => p.hint === 'alice')!.party;
  adminToken = selfSignedHs256({ secret: SECRET, userId: 'token-admin', audience: AUDIENCE });
  // 25 assets (more than one page and more than the node's list limit of 20), one Other
  await submit(Array.from({ length: 25 }, (_, i) => createAsset(i, i % 5 === 0 ? alice : admin)));
  await submit([{ CreateCommand: { templateId: OTHER, createArguments: { admin } } }]);
});

afterAll(async () => {
  await emu?.close();
});

describe('LedgerClient against the emulator', () => {
  it('reads the version, ledger end and connected synchronizers', async () => {
    const c = ledger();
    expect((await c.version()).version).toMatch(/^3\.[45]\./);
    expect(await c.ledgerEnd()).toBe(emu.engine.ledgerEnd());
    const syncs = await c.connectedSynchronizers();
    expect(syncs[0]!.synchronizerId).toBe(emu.engine.synchronizerId);
  });

  it('pages through the ACS with active-contracts-page', async () => {
    const seen: string[] = [];
    const counting: typeof fetch = (input, init) => {
      seen.push(new URL(String(input)).pathname);
      return fetch(input, init);
    };
    const c = ledger({ acsPageSize: 10, fetch: counting });
    const set = await c.activeContracts({ parties: [admin], templateIds: [ASSET], includeCreatedEventBlob: true });
    expect(set.contracts).toHaveLength(25);
    expect(new Set(set.contracts.map((x) => x.createdEvent.contractId)).size).toBe(25);
    expect(set.activeAtOffset).toBe(emu.engine.ledgerEnd());
    expect(seen.filter((p) => p === '/v2/state/active-contracts-page')).toHaveLength(3);
    expect(c.acsPaging).toBe('page');
    const first = set.contracts[0]!;
    expect(first.synchronizerId).toBe(emu.engine.synchronizerId);
    expect(first.createdEvent.createdEventBlob).not.toBe('');
    expect(first.createdEvent.templateId).toMatch(/^[0-9a-f]{64}:Acme\.Token:Asset$/);
  });

  it('reads interface views through an interface filter', async () => {
    const set = await ledger().activeContracts({ parties: [admin], interfaceIds: [HOLDING_IFACE], includeInterfaceView: true });
    expect(set.contracts).toHaveLength(25);
    const view = set.contracts[0]!.createdEvent.interfaceViews[0]!;
    expect(view.interfaceId).toMatch(/:Acme\.Api:IHolding$/);
    expect(view.viewStatus.code).toBe(0);
    expect(view.viewValue).toMatchObject({ owner: expect.any(String) });
    // the wildcard sees the Other contract too
    expect((await ledger().activeContracts({ parties: [admin] })).contracts).toHaveLength(26);
  });

  it('falls back to the list form with continuation tokens when the page endpoint is missing', async () => {
    const without35: typeof fetch = (input, init) =>
      new URL(String(input)).pathname === '/v2/state/active-contracts-page'
        ? Promise.resolve(new Response('The requested resource could not be found.', { status: 404 }))
        : fetch(input, init);
    const c = ledger({ fetch: without35, listPageSize: 10 });
    const set = await c.activeContracts({ parties: [admin], templateIds: [ASSET] });
    expect(set.contracts).toHaveLength(25);
    expect(c.acsPaging).toBe('list-token');
  });

  it('on a 3.4-like node (no page endpoint, no continuation tokens) reports the list limit clearly', async () => {
    const like34: typeof fetch = async (input, init) => {
      const path = new URL(String(input)).pathname;
      if (path === '/v2/state/active-contracts-page') return new Response('The requested resource could not be found.', { status: 404 });
      const res = await fetch(input, init);
      if (path !== '/v2/state/active-contracts' || res.status !== 200) return res;
      const items = (await res.json()) as Array<Record<string, unknown>>;
      return Response.json(items.map(({ streamContinuationToken: _drop, ...rest }) => rest));
    };
    const c = ledger({ fetch: like34, listPageSize: 10 });
    // one Other contract fits the node's limit of 20
    const small = await c.activeContracts({ parties: [admin], templateIds: [OTHER] });
    expect(small.contracts).toHaveLength(1);
    const err = (await c.activeContracts({ parties: [admin], templateIds: [ASSET] }).catch((e: unknown) => e)) as LedgerError;
    expect(err).toBeInstanceOf(LedgerError);
    expect(err).toMatchObject({ status: 413, code: 'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED' });
    expect(c.acsPaging).toBe('list-whole');
  });

  it('reads updates: creates, archives (ACS_DELTA) and exercises (LEDGER_EFFECTS)', async () => {
    const c = ledger();
    const before = await c.ledgerEnd();
    const created = await submit([createAsset(100)]);
    const cid = firstCreated(created);
    await submit([{ ExerciseCommand: { templateId: ASSET, contractId: cid, choice: 'Archive', choiceArgument: {} } }]);
    const end = await c.ledgerEnd();

    const delta = await c.updates({ beginExclusive: before, endInclusive: end, parties: [admin], templateIds: [ASSET] });
    expect(delta.map(offsetOfUpdate)).toEqual([before + 1, before + 2]);
    const kinds = delta.flatMap((u) => ('Transaction' in u.update ? u.update.Transaction.value.events.map((e) => Object.keys(e)[0]) : []));
    expect(kinds).toEqual(['CreatedEvent', 'ArchivedEvent']);

    const effects = await c.updates({ beginExclusive: before + 1, endInclusive: end, parties: [admin], shape: 'LEDGER_EFFECTS' });
    const ex = effects.flatMap((u) => ('Transaction' in u.update ? u.update.Transaction.value.events : []))[0]!;
    expect('ExercisedEvent' in ex && ex.ExercisedEvent).toMatchObject({ contractId: cid, choice: 'Archive', consuming: true });

    // open-ended: returns after the idle timeout with what there is
    const started = Date.now();
    const tail = await c.updates({ beginExclusive: end, parties: [admin], idleTimeoutMs: 50 });
    expect(tail).toEqual([]);
    expect(Date.now() - started).toBeLessThan(5000);

    // limit caps the list; continue from the last offset
    const page = await c.updates({ beginExclusive: 0, endInclusive: end, parties: [admin], limit: 2 });
    expect(page).toHaveLength(2);
  });

  it('looks contracts up by id: events (with blob and views) and contract-by-id', async () => {
    const c = ledger();
    const tx = await submit([createAsset(200)]);
    const cid = firstCreated(tx);
    const ev = await c.eventsByContractId(cid, [admin], { includeBlob: true, interfaceIds: [HOLDING_IFACE] });
    expect(ev?.created?.synchronizerId).toBe(emu.engine.synchronizerId);
    expect(ev?.created?.createdEvent.createdEventBlob).not.toBe('');
    expect(ev?.created?.createdEvent.interfaceViews).toHaveLength(1);
    expect(ev?.archived).toBeUndefined();

    expect((await c.contractById(cid, [admin]))?.contractId).toBe(cid);

    await submit([{ ExerciseCommand: { templateId: ASSET, contractId: cid, choice: 'Archive', choiceArgument: {} } }]);
    const after = await c.eventsByContractId(cid, [admin]);
    expect(after?.archived?.archivedEvent.contractId).toBe(cid);

    // unknown, or invisible to the reading party
    expect(await c.eventsByContractId('00' + 'f'.repeat(64) + 'ca10', [admin])).toBeUndefined();
    expect(await c.contractById('00' + 'f'.repeat(64) + 'ca10', [admin])).toBeUndefined();
  });

  it('surfaces a bad token as LedgerError 401', async () => {
    const forged = await new SignJWT({ sub: 'token-admin', aud: AUDIENCE })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('wrong-secret'));
    for (const token of ['not-a-jwt', forged]) {
      const err = (await ledger({ tokenProvider: staticToken(token) }).ledgerEnd().catch((e: unknown) => e)) as LedgerError;
      expect(err).toBeInstanceOf(LedgerError);
      expect(err.status).toBe(401);
      expect(err.grpcCode).toBe(16);
    }
    // a user without rights on the party: 403
    const bob = selfSignedHs256({ secret: SECRET, userId: 'bob', audience: AUDIENCE });
    const denied = (await ledger({ tokenProvider: bob }).activeContracts({ parties: [admin] }).catch((e: unknown) => e)) as LedgerError;
    expect(denied.status).toBe(403);
  });
});

describe('OAuth2 client credentials against a token server on 127.0.0.1', () => {
  let server: Server;
  let tokenUrl: string;
  let issued = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (d) => (raw += d));
      req.on('end', async () => {
        const form = new URLSearchParams(raw);
        res.setHeader('Content-Type', 'application/json');
        if (req.method !== 'POST' || form.get('grant_type') !== 'client_credentials') {
          res.statusCode = 400;
          return res.end(JSON.stringify({ error: 'unsupported_grant_type' }));
        }
        if (form.get('client_id') !== 'registry' || form.get('client_secret') !== 'registry-secret') {
          res.statusCode = 401;
          return res.end(JSON.stringify({ error: 'invalid_client' }));
        }
        issued++;
        // The IdP maps the client to the ledger user it acts as (`sub`) and the audience asked for.
        const token = await new SignJWT({ sub: 'token-admin', aud: form.get('audience') ?? undefined })
          .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode(SECRET));
        res.end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 300 }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    tokenUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/token`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('obtains one token for concurrent reads and the emulator accepts it', async () => {
    const provider = oauth2ClientCredentials({ tokenUrl, clientId: 'registry', clientSecret: 'registry-secret', audience: AUDIENCE });
    const c = ledger({ tokenProvider: provider });
    const results = await Promise.all([c.ledgerEnd(), c.connectedSynchronizers(admin), c.activeContracts({ parties: [admin], templateIds: [ASSET] })]);
    expect(results[0]).toBe(emu.engine.ledgerEnd());
    expect(results[1][0]!.permission).toBe('PARTICIPANT_PERMISSION_SUBMISSION');
    expect(results[2].contracts.length).toBeGreaterThan(0);
    expect(issued).toBe(1);
  });

  it('a wrong client secret is a clear, non-retryable error', async () => {
    const provider = oauth2ClientCredentials({ tokenUrl, clientId: 'registry', clientSecret: 'nope', audience: AUDIENCE });
    const err = (await ledger({ tokenProvider: provider }).ledgerEnd().catch((e: unknown) => e)) as Error & { reason?: string; retryable?: boolean };
    expect(err.reason).toBe('auth');
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('answered 401: invalid_client');
    expect(err.message).not.toContain('nope');
  });
});
