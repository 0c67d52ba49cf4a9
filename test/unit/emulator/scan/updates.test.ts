/**
 * Update history (scan.yaml `getUpdateHistoryV2`, `getUpdateByIdV2`): `POST /v2/updates` and `GET /v2/updates/{id}`
 * over the DSO's transactions, in the DSO's view of each tree.
 */
import { describe, expect, it } from 'vitest';
import type { TemplateDef } from '../../../../src/emulator/participant/templates.js';
import type { QualifiedId } from '../../../../src/emulator/participant/types.js';
import { buildWorld, IDS, json, type UpdateHistory, type UpdateHistoryTransaction, type World } from './fixture.js';

const TEST_PKG = 'd'.repeat(64);
const FaucetId: QualifiedId = { packageId: TEST_PKG, packageName: 'scan-test', moduleName: 'Main', entityName: 'Faucet' };
const WrapperId: QualifiedId = { packageId: TEST_PKG, packageName: 'scan-test', moduleName: 'Main', entityName: 'Wrapper' };
const NoticeId: QualifiedId = { packageId: TEST_PKG, packageName: 'scan-test', moduleName: 'Main', entityName: 'Notice' };

/**
 * Faucet (signatory dso): `Tap` creates two Amulets and archives one of them (children 1..3).
 * Wrapper (signatory owner, the DSO not a stakeholder): `Notify` creates a private Note and a
 * Notice the DSO observes, so the DSO sees only a subtree of the transaction.
 */
function withTestTemplates(w: World): void {
  const faucet: TemplateDef<{ dso: string }> = {
    id: FaucetId,
    kind: 'native',
    signatories: (p) => [p.dso],
    observers: () => [],
    choices: {
      Tap: {
        name: 'Tap',
        consuming: false,
        controllers: (p, a: { owner: string }) => [p.dso, a.owner],
        body: (ctx, self, a: { owner: string }) => {
          const mk = (amount: string) =>
            ctx.create(IDS.Amulet, { dso: self.payload.dso, owner: a.owner, amount: { initialAmount: amount, createdAt: { number: '1' }, ratePerRound: { rate: '0.0038051800' } } });
          const keep = mk('10.0000000000');
          const burn = mk('1.0000000000');
          ctx.exercise(burn, 'Archive', {});
          return { amulet: keep };
        },
      },
    },
    implements: [],
  };
  const wrapper: TemplateDef<{ owner: string; dso: string }> = {
    id: WrapperId,
    kind: 'native',
    signatories: (p) => [p.owner],
    observers: () => [],
    choices: {
      Notify: {
        name: 'Notify',
        consuming: false,
        controllers: (p) => [p.owner],
        body: (ctx, self) => {
          ctx.create(IDS.Other, { owner: self.payload.owner, text: 'private' });
          return { notice: ctx.create(NoticeId, { owner: self.payload.owner, dso: self.payload.dso }) };
        },
      },
    },
    implements: [],
  };
  w.engine.templates.register(faucet);
  w.engine.templates.register(wrapper);
  w.engine.templates.declare({ id: NoticeId, signatories: ['owner'], observers: ['dso'] });
}

const exercise = (w: World, actAs: string[], template: QualifiedId, contractId: string, choice: string, choiceArgument: unknown) =>
  w.engine.commands.submit({
    userId: 'scan-test',
    actAs,
    readAs: [],
    commandId: `ex-${Math.random()}`,
    workflowId: 'wf-1',
    submissionId: '',
    disclosedContracts: [],
    commands: [{ kind: 'exercise', template: { package: { name: template.packageName }, moduleName: template.moduleName, entityName: template.entityName }, contractId, choice, choiceArgument }],
  });

describe('POST /v2/updates', () => {
  it('lists the transactions the DSO witnesses, ascending, with strict > cursor paging', async () => {
    const w = buildWorld({ start: '2026-05-01T10:00:00Z' });
    const tx1 = w.submit([w.dso], [{ template: IDS.AmuletRules, createArguments: { dso: w.dso } }]);
    w.clock.advance(250);
    w.create(IDS.Other, { owner: w.alice, text: 'not for the DSO' }, [w.alice]);
    const a = w.amulet(w.alice, '1.0000000000');
    const tx3 = w.archive(IDS.Amulet, a, [w.dso, w.alice]); // same clock reading as the create

    const all = await json<UpdateHistory>(w.post('/api/scan/v2/updates', { page_size: 100 }));
    expect(all.status).toBe(200);
    const items = all.body.transactions;
    expect(items.map((t) => t.update_id)).toEqual([tx1.updateId, expect.any(String), tx3.updateId]);
    expect(items.map((t) => t.record_time)).toEqual(['2026-05-01T10:00:00.000000Z', '2026-05-01T10:00:00.250000Z', '2026-05-01T10:00:00.250001Z']);
    expect(items[2]!.effective_at).toBe('2026-05-01T10:00:00.250Z');
    expect(Object.keys(items[0]!)).toEqual(['update_id', 'migration_id', 'workflow_id', 'record_time', 'synchronizer_id', 'effective_at', 'root_event_ids', 'events_by_id']);
    expect(items[0]!.synchronizer_id).toBe(w.engine.synchronizerId);

    const page1 = await json<UpdateHistory>(w.post('/api/scan/v2/updates', { page_size: 2 }));
    expect(page1.body.transactions).toHaveLength(2);
    const last = page1.body.transactions[1]!;
    const page2 = await json<UpdateHistory>(w.post('/api/scan/v2/updates', { page_size: 2, after: { after_migration_id: last.migration_id, after_record_time: last.record_time } }));
    expect(page2.body.transactions.map((t) => t.update_id)).toEqual([tx3.updateId]);
    const page3 = await json<UpdateHistory>(w.post('/api/scan/v2/updates', { page_size: 2, after: { after_migration_id: 0, after_record_time: page2.body.transactions[0]!.record_time } }));
    expect(page3.body).toEqual({ transactions: [] });
    // a higher migration id is later, a lower one earlier
    expect((await json<UpdateHistory>(w.post('/api/scan/v2/updates', { page_size: 10, after: { after_migration_id: 1, after_record_time: '2000-01-01T00:00:00Z' } }))).body.transactions).toEqual([]);
    expect((await json<UpdateHistory>(w.post('/api/scan/v2/updates', { page_size: 10, after: { after_migration_id: -1, after_record_time: '2099-01-01T00:00:00Z' } }))).body.transactions).toHaveLength(3);
  });

  it('prints events with updateId:nodeId ids, sorted lexicographically, and the tree in root/child ids', async () => {
    const w = buildWorld();
    withTestTemplates(w);
    // 11 creates in one transaction: ids :0 .. :10 sort as :0, :1, :10, :2, ...
    const many = w.submit(
      [w.dso, w.alice],
      Array.from({ length: 11 }, (_, i) => ({ template: IDS.Amulet, createArguments: { dso: w.dso, owner: w.alice, amount: { initialAmount: `${i + 1}.0`, createdAt: { number: '1' }, ratePerRound: { rate: '0.1' } } } })),
    );
    const item = (await json<UpdateHistoryTransaction>(w.get(`/api/scan/v2/updates/${many.updateId}`))).body;
    const nodeIds = Object.keys(item.events_by_id).map((k) => k.split(':')[1]);
    expect(nodeIds).toEqual(['0', '1', '10', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(item.root_event_ids).toEqual(Array.from({ length: 11 }, (_, i) => `${many.updateId}:${i}`));
    for (const [k, ev] of Object.entries(item.events_by_id)) expect(ev.event_id).toBe(k);

    const faucet = w.create(FaucetId, { dso: w.dso }, [w.dso]);
    const tap = exercise(w, [w.dso, w.alice], FaucetId, faucet, 'Tap', { owner: w.alice });
    const t = (await json<UpdateHistoryTransaction>(w.get(`/api/scan/v2/updates/${tap.updateId}`))).body;
    const e = (n: number) => `${tap.updateId}:${n}`;
    expect(t.workflow_id).toBe('wf-1');
    expect(t.root_event_ids).toEqual([e(0)]);
    expect(t.events_by_id[e(0)]).toEqual({
      event_type: 'exercised_event',
      event_id: e(0),
      contract_id: faucet,
      template_id: `${TEST_PKG}:Main:Faucet`,
      package_name: 'scan-test',
      choice: 'Tap',
      choice_argument: { owner: w.alice },
      child_event_ids: [e(1), e(2), e(3)],
      exercise_result: { amulet: (tap.nodes[1] as { contract: { contractId: string } }).contract.contractId },
      consuming: false,
      acting_parties: [w.dso, w.alice],
    });
    expect(t.events_by_id[e(1)]).toMatchObject({ event_type: 'created_event', package_name: 'splice-amulet', signatories: [w.dso, w.alice].sort(), observers: [] });
    expect(t.events_by_id[e(3)]).toMatchObject({ event_type: 'exercised_event', choice: 'Archive', consuming: true, child_event_ids: [], exercise_result: {} });
  });

  it("shows only the DSO's part of a transaction", async () => {
    const w = buildWorld();
    withTestTemplates(w);
    const wrapper = w.create(WrapperId, { owner: w.alice, dso: w.dso }, [w.alice]);
    const tx = exercise(w, [w.alice], WrapperId, wrapper, 'Notify', {});
    const history = (await json<UpdateHistory>(w.post('/api/scan/v2/updates', { page_size: 10 }))).body.transactions;
    expect(history.map((t) => t.update_id)).toEqual([tx.updateId]); // the wrapper's creation is not the DSO's
    const item = history[0]!;
    expect(item.root_event_ids).toEqual([`${tx.updateId}:2`]);
    expect(Object.keys(item.events_by_id)).toEqual([`${tx.updateId}:2`]);
    expect(item.events_by_id[`${tx.updateId}:2`]).toMatchObject({ template_id: `${TEST_PKG}:Main:Notice`, observers: [w.dso] });
  });

  it('answers bad requests with 400s', async () => {
    const w = buildWorld();
    w.amuletRules();
    expect(await json(w.post('/api/scan/v2/updates', { page_size: 0 }))).toEqual({ status: 400, body: { error: 'Limit must be at least 1.' } });
    expect(await json(w.post('/api/scan/v2/updates', { page_size: 1001 }))).toEqual({ status: 400, body: { error: 'Exceeded limit maximum (1001 > 1000).' } });
    expect((await json(w.post('/api/scan/v2/updates', {}))).body).toEqual({ error: 'The request content was malformed:\nDecodingFailure at .page_size: Missing required field' });
    expect((await json(w.post('/api/scan/v2/updates', { page_size: 1, after: { after_migration_id: 0, after_record_time: 'x' } }))).status).toBe(400);
    expect((await json(w.post('/api/scan/v2/updates', { page_size: 1, after: { after_record_time: '2026-01-01T00:00:00Z' } }))).body).toEqual({
      error: 'The request content was malformed:\nDecodingFailure at .after.after_migration_id: Missing required field',
    });
    expect((await json(w.post('/api/scan/v2/updates', { page_size: 1, daml_value_encoding: 'protobuf_json' }))).status).toBe(400);
    expect((await json(w.post('/api/scan/v2/updates', { page_size: 1, daml_value_encoding: 'compact_json' }))).status).toBe(200);
  });
});

describe('GET /v2/updates/{update_id}', () => {
  it('returns a DSO transaction, 404 for others', async () => {
    const w = buildWorld();
    const tx = w.submit([w.dso], [{ template: IDS.AmuletRules, createArguments: { dso: w.dso } }]);
    const hidden = w.submit([w.alice], [{ template: IDS.Other, createArguments: { owner: w.alice, text: 'x' } }]);
    const r = await json(w.get(`/api/scan/v2/updates/${tx.updateId}?daml_value_encoding=compact_json`));
    expect(r.status).toBe(200);
    expect(r.body).toEqual((await json<UpdateHistory>(w.post('/api/scan/v2/updates', { page_size: 1 }))).body.transactions[0]);
    expect(await json(w.get(`/api/scan/v2/updates/${hidden.updateId}`))).toEqual({ status: 404, body: { error: `Transaction with id ${hidden.updateId} not found` } });
    expect(await json(w.get('/api/scan/v2/updates/nope'))).toEqual({ status: 404, body: { error: 'Transaction with id nope not found' } });
  });
});
