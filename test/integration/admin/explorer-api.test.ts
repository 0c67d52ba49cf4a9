/**
 * The admin API's reads behind the explorer, over real sockets: parties, users, instruments with
 * supply, balances, transactions newest first and paged, one transaction's event tree, a contract
 * with what created and archived it, the registry requests of the last minutes, and the live event
 * stream (transactions as they commit, requests, world changes). Every JSON answer is validated
 * against the admin API's own OpenAPI document; bad input answers `{"error"}` 400/404.
 * The page itself is served at `/` with its modules, from this package, nothing from elsewhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/canton/clock.js';
import { DEFAULT_DEMO_WORLD, type DemoWorld } from '../../../src/emulator/world/seed.js';
import { startStack, type RunningStack } from '../../../src/stack.js';
import { createServedSpecValidator, expectConformant, type SpecValidator } from '../../support/openapi-conformance.js';
import { EXPLORER_OPERATIONS } from './explorer-operations.js';

// bob is hosted on both participants: transactions reach participant2 too.
const WORLD: DemoWorld = {
  ...DEFAULT_DEMO_WORLD,
  parties: DEFAULT_DEMO_WORLD.parties.map((p) => (p.hint === 'bob' ? { ...p, hostedOn: [{ participant: 'participant2', permission: 'Submission' }] } : p)),
};

let stack: RunningStack;
let spec: SpecValidator;

async function admin<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${stack.adminUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = await expectConformant(spec, res, method, path);
  return { status: res.status, body: parsed as T };
}

async function ok<T>(path: string): Promise<T> {
  const r = await admin<T>('GET', path);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

const party = (hint: string) => stack.seeded!.parties.find((p) => p.hint === hint)!.party;

interface Summary {
  participantId: string;
  offset: number;
  updateId: string;
  actAs: string[];
  roots: Array<{ kind: string; contractId: string; choice: string | null; templateId: string }>;
}
interface Page {
  ledgerEnd: number;
  transactions: Summary[];
  nextBefore: number | null;
}
interface Event {
  kind: 'created' | 'exercised';
  nodeId: number;
  parentNodeId: number | null;
  contractId: string;
  choice?: string;
  consuming?: boolean;
  lastDescendantNodeId?: number;
}

/** Reads server-sent events from `/admin/v1/events` until `until` says stop (or the time is up). */
async function readEvents(until: (events: Array<{ type: string; data: unknown }>) => boolean, during: () => Promise<void>, ms = 5000) {
  const ac = new AbortController();
  const res = await fetch(`${stack.adminUrl}/admin/v1/events`, { signal: ac.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: Array<{ type: string; data: unknown }> = [];
  let buffer = '';
  const timer = setTimeout(() => ac.abort(), ms);
  let started = false;
  try {
    while (!until(events)) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const type = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (type && data) events.push({ type, data: JSON.parse(data) });
      }
      if (!started && events.some((e) => e.type === 'hello')) {
        started = true;
        await during();
      }
    }
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  return events;
}

beforeAll(async () => {
  stack = await startStack({
    config: { port: 0, participant2Port: 0, participants: 2, logLevel: 'silent', world: WORLD },
    clock: new ManualClock('2026-03-01T12:00:00Z'),
    registryPort: 0,
    scanPort: 0,
    validatorPort: 0,
    adminPort: 0,
  });
  spec = await createServedSpecValidator(`${stack.adminUrl}/admin/openapi.json`);
});

afterAll(async () => {
  await stack?.close();
});

describe('explorer reads', () => {
  it('parties: the seeded ones by name with their hosting; users with their rights', async () => {
    const { parties } = await ok<{ parties: Array<{ party: string; name: string | null; hostedOn: Array<{ participantId: string; permission: string }>; external: unknown }> }>(
      '/admin/v1/parties',
    );
    expect(parties.slice(0, 4).map((p) => p.name)).toEqual(['token-admin', 'alice', 'bob', 'executor']);
    const bob = parties.find((p) => p.name === 'bob')!;
    expect(bob.party).toBe(party('bob'));
    expect(bob.hostedOn.map((h) => h.participantId.split('::')[0]).sort()).toEqual(['participant1', 'participant2']);
    expect(bob.external).toBeNull();
    const { users } = await ok<{ users: Array<{ participantId: string; id: string; primaryParty: string; rights: Array<{ kind: string; party: string | null }> }> }>('/admin/v1/users');
    const alice = users.find((u) => u.id === 'alice' && u.participantId === stack.engine.participantId)!;
    expect(alice.primaryParty).toBe(party('alice'));
    expect(alice.rights).toContainEqual({ kind: 'CanActAs', party: party('alice') });
    // bob's user on participant2 too
    expect(users.some((u) => u.id === 'bob' && u.participantId === stack.participants[1]!.participantId)).toBe(true);
  });

  it('instruments with supply, and balances that agree with the holdings endpoint', async () => {
    const { instruments } = await ok<{ instruments: Array<{ instrument: { id: string }; kind: string; supply: string; holders: number }> }>('/admin/v1/instruments');
    const tt1 = instruments.find((i) => i.instrument.id === 'TT1')!;
    expect(tt1).toMatchObject({ kind: 'splice-test-token-v1', supply: '1500.0000000000', holders: 2 });
    expect(instruments.map((i) => i.instrument.id)).toEqual(expect.arrayContaining(['TT1', 'TT2-USD', 'TT2-EUR', 'Amulet']));
    const { balances } = await ok<{ balances: Array<{ party: string; instrument: { id: string }; amount: string; locked: string }> }>('/admin/v1/balances');
    const holdings = await ok<{ balances: Array<{ instrument: { id: string }; amount: string; locked: string }> }>('/admin/v1/holdings?party=alice');
    for (const b of holdings.balances) {
      expect(balances.find((x) => x.party === party('alice') && x.instrument.id === b.instrument.id)).toMatchObject({ amount: b.amount, locked: b.locked });
    }
  });

  it('transactions: newest first, pages chained by nextBefore cover every offset once', async () => {
    const end = stack.engine.readableEnd();
    const seen: number[] = [];
    let before: number | null = null;
    do {
      const page: Page = await ok<Page>(`/admin/v1/transactions?limit=7${before === null ? '' : `&before=${before}`}`);
      expect(page.ledgerEnd).toBe(end);
      seen.push(...page.transactions.map((t) => t.offset));
      before = page.nextBefore;
    } while (before !== null);
    expect(seen).toEqual(Array.from({ length: end }, (_, i) => end - i));
    // past the end: from the end; before the first: nothing, and no next page
    expect((await ok<Page>(`/admin/v1/transactions?limit=1&before=${end + 100}`)).transactions[0]!.offset).toBe(end);
    expect(await ok<Page>('/admin/v1/transactions?before=1')).toMatchObject({ transactions: [], nextBefore: null });
    // participant2 by name; and a party filter (bob witnesses only some)
    const p2 = await ok<Page>('/admin/v1/transactions?participant=participant2');
    expect(p2.transactions.every((t) => t.participantId === stack.participants[1]!.participantId)).toBe(true);
    const bobs = await ok<Page>('/admin/v1/transactions?party=bob&limit=200');
    expect(bobs.transactions.length).toBeGreaterThan(0);
    expect(bobs.transactions.length).toBeLessThan(end);
  });

  it('a transaction with its event tree; a contract with what created and archived it', async () => {
    // The seeded world accepts TT2 offers: an exercise that archives the offer.
    const page = await ok<Page>('/admin/v1/transactions?limit=200');
    const accept = page.transactions.find((t) => t.roots.some((r) => r.choice === 'TransferInstruction_Accept'))!;
    const tx = await ok<Summary & { events: Event[] }>(`/admin/v1/transactions/${accept.updateId}`);
    const root = tx.events[0]!;
    expect(root).toMatchObject({ kind: 'exercised', parentNodeId: null, choice: 'TransferInstruction_Accept' });
    // The interface choice runs the template's own, which archives the offer.
    const archive = tx.events.find((e) => e.kind === 'exercised' && e.consuming && e.contractId === root.contractId)!;
    expect(archive).toBeDefined();
    for (const e of tx.events.slice(1)) {
      expect(e.parentNodeId).not.toBeNull();
      expect(e.nodeId).toBeLessThanOrEqual(root.lastDescendantNodeId!);
    }
    const offer = await ok<{ contractId: string; createdBy: { offset: number }; archivedBy: { updateId: string; choice: string; actingParties: string[] } | null; signatories: string[] }>(
      `/admin/v1/contracts/${root.contractId}`,
    );
    expect(offer.archivedBy).toMatchObject({ updateId: accept.updateId, choice: archive.choice });
    expect(offer.createdBy.offset).toBeLessThan(accept.offset);
    const created = tx.events.find((e) => e.kind === 'created')!;
    const holding = await ok<{ archivedBy: unknown; createdBy: { updateId: string } }>(`/admin/v1/contracts/${created.contractId}`);
    expect(holding.createdBy.updateId).toBe(accept.updateId);
  });

  it('the live stream: hello, then a minted transaction as it commits, a registry request, a restore', async () => {
    const snapshot = await admin<{ id: string }>('POST', '/admin/v1/snapshots');
    let minted = '';
    const events = await readEvents(
      (es) => es.some((e) => e.type === 'world'),
      async () => {
        minted = (await admin<{ updateId: string }>('POST', '/admin/v1/mint', { instrument: 'TT1', owner: 'alice', amount: '5' })).body.updateId;
        expect((await fetch(`${stack.registryUrl}/registry/metadata/v1/info`)).status).toBe(200);
        await admin('POST', `/admin/v1/snapshots/${snapshot.body.id}/restore`);
      },
    );
    expect(events[0]!.type).toBe('hello');
    expect(events[0]!.data).toEqual({ ledgerEnds: { [stack.engine.participantId]: expect.any(Number), [stack.participants[1]!.participantId]: expect.any(Number) } });
    const tx = events.find((e) => e.type === 'transaction')!.data as Summary;
    expect(tx.updateId).toBe(minted);
    expect(tx.roots[0]).toMatchObject({ kind: 'created' });
    expect(events.find((e) => e.type === 'request')!.data).toMatchObject({ service: 'registry', method: 'GET', path: '/registry/metadata/v1/info', status: 200 });
    expect(events.find((e) => e.type === 'world')!.data).toMatchObject({ change: 'restored' });
    const { requests } = await ok<{ requests: Array<{ service: string; path: string }> }>('/admin/v1/requests');
    expect(requests[0]).toMatchObject({ service: 'registry', path: '/registry/metadata/v1/info' });
  });

  it('bad input: 400/404 with {"error"}', async () => {
    const cases: Array<[string, number]> = [
      ['/admin/v1/transactions?limit=0', 400],
      ['/admin/v1/transactions?limit=201', 400],
      ['/admin/v1/transactions?limit=x', 400],
      ['/admin/v1/transactions?before=-1', 400],
      ['/admin/v1/transactions?participant=participant9', 404],
      ['/admin/v1/transactions?party=nobody', 404],
      ['/admin/v1/transactions/1220ffff', 404],
      ['/admin/v1/contracts/00ffff', 404],
      ['/admin/v1/contracts/00ffff?participant=nope', 404],
    ];
    for (const [path, status] of cases) {
      const r = await admin<{ error: string }>('GET', path);
      expect(r.status, path).toBe(status);
      expect(typeof r.body.error, path).toBe('string');
    }
  });
});

describe('coverage', () => {
  it("every explorer operation of the admin API's OpenAPI document was answered and conformed", () => {
    const ops = spec.operations().filter((o) => EXPLORER_OPERATIONS.has(o.operationId));
    expect(ops.map((o) => o.operationId).sort()).toEqual([...EXPLORER_OPERATIONS].sort());
    // the event stream is read above, by its content type and its events' shapes
    const json = ops.filter((o) => o.operationId !== 'streamEvents');
    expect(spec.uncovered(json).map((o) => `${o.method} ${o.pathTemplate}`)).toEqual([]);
  });
});

describe('the page', () => {
  it('is served at / with its modules, all from this origin', async () => {
    const res = await fetch(`${stack.adminUrl}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    const page = await res.text();
    const urls = [...page.matchAll(/(?:src|href)="([^"]+)"|"(\/explorer\/vendor\/[^"]+)"/g)].map((m) => m[1] ?? m[2]!).filter((u) => !u.startsWith('data:'));
    expect(urls.length).toBeGreaterThanOrEqual(5);
    for (const u of urls) {
      expect(u.startsWith('/'), u).toBe(true);
      const asset = await fetch(`${stack.adminUrl}${u}`);
      expect(asset.status, u).toBe(200);
      // no module or stylesheet from another origin
      expect(await asset.text(), u).not.toMatch(/(from|import\()\s*["']https?:|@import\s+url\(["']?https?:/);
    }
  });
});
