/**
 * The prepared transaction and its hash against an independent implementation: the official
 * wallet SDK's `@canton-network/core-tx-visualizer` (Canton's hashing scheme V2 in TypeScript,
 * over the protobuf-ts bindings of Canton's protos). Our hash must equal its hash of our bytes,
 * and its decoder must read back the commands' real content.
 */
import { describe, expect, it } from 'vitest';
import { decodePreparedTransaction, hashPreparedTransaction } from '@canton-network/core-tx-visualizer';
import { testLedger, IOU, HOLDING, create, exercise, cmds } from '../../../../support/ledger-fixtures.js';
import { prepareBody } from '../../../../support/interactive.js';
import { inProcess, mint, setupWorld, transferArg } from '../../templates/test-token-v1/tt1-scenario.js';
import { EMPTY_EXTRA_ARGS, TRANSFER_FACTORY_V1, TRANSFER_INSTRUCTION_V1 } from '../../templates/test-token-v1/tt1-client.js';
import { TEST_TOKEN_V1_PACKAGE_ID } from '../../../../../src/emulator/templates/test-token-v1/index.js';
import { LedgerEngine } from '../../../../../src/emulator/participant/engine.js';
import { createLedgerApiApp, ledgerApiRoutes } from '../../../../../src/emulator/ledger-api/routes.js';
import { buildDar } from '../../../../support/dar-builder.js';
import { tt2Ledger } from '../../templates/test-token-v2/fixture.js';
import { basic, context, extraArgs, IFACE as TT2_IFACE } from '../../templates/test-token-v2/client.js';
import { fieldsOf } from '../../../../support/ledger-wire.js';
import { field, sumOf } from './proto-value.js';

async function prepare(app: { request: (p: string, i: RequestInit) => Response | Promise<Response> }, body: unknown) {
  const r = await app.request('/v2/interactive-submission/prepare', { method: 'POST', body: JSON.stringify(body) });
  const json = await r.json();
  expect(r.status, JSON.stringify(json)).toBe(200);
  return json as { preparedTransaction: string; preparedTransactionHash: string; hashingSchemeVersion: string; hashingDetails: string | null; costEstimation: unknown };
}

function nodeOf(tx: ReturnType<typeof decodePreparedTransaction>, id: string) {
  const n = tx.transaction!.nodes.find((x) => x.nodeId === id)!;
  if (n.versionedNode.oneofKind !== 'v1') throw new Error('not v1');
  return n.versionedNode.v1.nodeType;
}

describe('prepare: hash and content against the SDK oracle', () => {
  it('a create: hash equals the oracle, the node carries the template, typed argument and signatories', async () => {
    const l = testLedger();
    const alice = l.party('alice');
    const bob = l.party('bob');
    const res = await prepare(l.app, prepareBody([alice], [create(IOU, { issuer: alice, owner: alice, amount: '12.5', observers: [bob] })]));
    expect(res.hashingSchemeVersion).toBe('HASHING_SCHEME_VERSION_V2');
    expect(await hashPreparedTransaction(res.preparedTransaction, 'base64')).toBe(res.preparedTransactionHash);

    const tx = decodePreparedTransaction(res.preparedTransaction);
    expect(tx.metadata!.submitterInfo!.actAs).toEqual([alice]);
    expect(tx.metadata!.synchronizerId).toBe(l.engine.synchronizerId);
    expect(tx.metadata!.inputContracts).toEqual([]);
    expect(tx.transaction!.roots).toEqual(['0']);
    const root = nodeOf(tx, '0');
    expect(root.oneofKind).toBe('create');
    if (root.oneofKind !== 'create') return;
    expect(root.create.templateId).toMatchObject({ moduleName: 'Iou', entityName: 'Iou' });
    expect(root.create.packageName).toBe('test-iou');
    expect(root.create.signatories).toEqual([alice]);
    expect(root.create.stakeholders).toEqual([alice, bob]);
    const fields = root.create.argument!.sum.oneofKind === 'record' ? root.create.argument!.sum.record.fields : [];
    expect(fields.map((f) => f.label)).toEqual(['issuer', 'owner', 'amount', 'observers']);
    expect(fields[0]!.value!.sum).toEqual({ oneofKind: 'party', party: alice });
    expect(fields[2]!.value!.sum).toEqual({ oneofKind: 'numeric', numeric: '12.5000000000' });
    expect(fields[3]!.value!.sum.oneofKind).toBe('list');
    // nothing was written
    expect(l.engine.ledgerEnd()).toBe(0);
  });

  it('an exercise with nested creates, choice observers and an interface choice', async () => {
    const l = testLedger();
    const alice = l.party('alice');
    const bob = l.party('bob');
    const r = await l.post('/v2/commands/submit-and-wait-for-transaction', { commands: cmds([alice], [create(IOU, { issuer: alice, owner: alice, amount: '10', observers: [] })]) });
    const cid = ((await r.json()) as { transaction: { events: Array<{ CreatedEvent: { contractId: string } }> } }).transaction.events[0]!.CreatedEvent.contractId;

    const split = await prepare(l.app, prepareBody([alice], [exercise(IOU, cid, 'Split', { amount: '4' })]));
    expect(await hashPreparedTransaction(split.preparedTransaction, 'base64')).toBe(split.preparedTransactionHash);
    // Without verboseHashing the Option fields are present as null, as Canton's JSON writes None.
    expect(split).toMatchObject({ hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2', hashingDetails: null, costEstimation: null });
    const tx = decodePreparedTransaction(split.preparedTransaction);
    const root = nodeOf(tx, tx.transaction!.roots[0]!);
    if (root.oneofKind !== 'exercise') throw new Error('root is not an exercise');
    expect(root.exercise).toMatchObject({ choiceId: 'Split', consuming: true, actingParties: [alice], contractId: cid, signatories: [alice] });
    expect(root.exercise.children.map((c) => nodeOf(tx, c).oneofKind)).toEqual(['create', 'create']);
    expect(tx.metadata!.inputContracts.map((ic) => (ic.contract.oneofKind === 'v1' ? ic.contract.v1.contractId : ''))).toEqual([cid]);
    expect(tx.transaction!.nodeSeeds.map((s) => s.nodeId).sort()).toEqual([0, 1, 2]);

    const observe = await prepare(l.app, prepareBody([alice], [exercise(IOU, cid, 'Observe', { reader: bob })]));
    expect(await hashPreparedTransaction(observe.preparedTransaction, 'base64')).toBe(observe.preparedTransactionHash);
    const obs = nodeOf(decodePreparedTransaction(observe.preparedTransaction), '0');
    if (obs.oneofKind !== 'exercise') throw new Error('not an exercise');
    expect(obs.exercise.choiceObservers).toEqual([bob]);
    expect(obs.exercise.exerciseResult!.sum).toEqual({ oneofKind: 'numeric', numeric: '10.0000000000' });

    const burn = await prepare(l.app, prepareBody([alice], [exercise(HOLDING, cid, 'Holding_Burn', {})]));
    expect(await hashPreparedTransaction(burn.preparedTransaction, 'base64')).toBe(burn.preparedTransactionHash);
    const b = nodeOf(decodePreparedTransaction(burn.preparedTransaction), '0');
    if (b.oneofKind !== 'exercise') throw new Error('not an exercise');
    expect(b.exercise.interfaceId).toMatchObject({ moduleName: 'Holding', entityName: 'Holding' });
  });

  it('TestTokenV1 transfer offer (disclosed TokenRules) and accept: hashes equal the oracle, input contracts are the disclosed and held ones', async () => {
    const { engine, clock, client, app } = inProcess();
    const w = await setupWorld(client, engine);
    const rules = await client.disclosedRules(w.admin);
    const t1 = mint(engine, w, w.alice, '100');
    const offer = await prepare(
      app,
      prepareBody(
        [w.alice],
        [{ ExerciseCommand: { templateId: TRANSFER_FACTORY_V1, contractId: w.rulesCid, choice: 'TransferFactory_Transfer', choiceArgument: transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '30', inputs: [t1] }) } }],
        { disclosedContracts: [rules], verboseHashing: true },
      ),
    );
    expect(await hashPreparedTransaction(offer.preparedTransaction, 'base64')).toBe(offer.preparedTransactionHash);
    expect(offer.hashingDetails).toContain(Buffer.from(offer.preparedTransactionHash, 'base64').toString('hex'));
    const tx = decodePreparedTransaction(offer.preparedTransaction);
    const inputs = tx.metadata!.inputContracts.map((ic) => (ic.contract.oneofKind === 'v1' ? ic.contract.v1 : undefined)!);
    expect(inputs.map((c) => c.contractId).sort()).toEqual([w.rulesCid, t1].sort());
    expect(inputs.find((c) => c.contractId === w.rulesCid)!.templateId).toMatchObject({ packageId: TEST_TOKEN_V1_PACKAGE_ID, entityName: 'TokenRules' });
    const kinds = tx.transaction!.nodes.map((n) => (n.versionedNode.oneofKind === 'v1' ? n.versionedNode.v1.nodeType.oneofKind : ''));
    expect(kinds).toContain('create');
    expect(kinds.filter((k) => k === 'exercise').length).toBeGreaterThanOrEqual(2);
    const root = nodeOf(tx, '0');
    if (root.oneofKind !== 'exercise') throw new Error('not an exercise');
    expect(root.exercise.choiceId).toBe('TransferFactory_Transfer');
    expect(root.exercise.interfaceId).toMatchObject({ entityName: 'TransferFactory' });
    // the native template's types: Numeric, Timestamp, List ContractId, TextMap Text, Optional
    const transfer = field(root.exercise.chosenValue, 'transfer');
    expect(field(transfer, 'amount').sum).toEqual({ oneofKind: 'numeric', numeric: '30.0000000000' });
    expect(field(transfer, 'requestedAt').sum.oneofKind).toBe('timestamp');
    expect(sumOf(field(transfer, 'inputHoldingCids'), 'list').list.elements[0]?.sum).toEqual({ oneofKind: 'contractId', contractId: t1 });
    expect(field(field(transfer, 'meta'), 'values').sum).toEqual({ oneofKind: 'textMap', textMap: { entries: [] } });
    const token = inputs.find((c) => c.contractId === t1)!;
    expect(field(field(token.argument, 'holding'), 'lock').sum).toEqual({ oneofKind: 'optional', optional: {} });

    // commit the offer normally, then prepare the receiver's accept
    const done = await client.exercise([w.alice], TRANSFER_FACTORY_V1, w.rulesCid, 'TransferFactory_Transfer', transferArg(clock, w, { sender: w.alice, receiver: w.bob, amount: '30', inputs: [t1] }), [rules]);
    // TransferInstructionResult { output = TransferInstructionResult_Pending { transferInstructionCid } }
    const instr = fieldsOf(fieldsOf(fieldsOf(done).output).value).transferInstructionCid;
    const accept = await prepare(app, prepareBody([w.bob], [{ ExerciseCommand: { templateId: TRANSFER_INSTRUCTION_V1, contractId: instr, choice: 'TransferInstruction_Accept', choiceArgument: { extraArgs: EMPTY_EXTRA_ARGS } } }]));
    expect(await hashPreparedTransaction(accept.preparedTransaction, 'base64')).toBe(accept.preparedTransactionHash);
    const acc = decodePreparedTransaction(accept.preparedTransaction);
    expect(acc.metadata!.submitterInfo!.actAs).toEqual([w.bob]);
    const created = acc.transaction!.nodes
      .map((n) => (n.versionedNode.oneofKind === 'v1' ? n.versionedNode.v1.nodeType : undefined))
      .filter((n) => n?.oneofKind === 'create');
    expect(created.length).toBeGreaterThan(0);
  });

  it('TestTokenV2 V2 transfer: hash equals the oracle; Optional, TextMap, GenMap and AnyValue carry their real LF shape', async () => {
    const l = tt2Ledger();
    const t1 = l.mint(l.alice, '100');
    const rules = await l.client.disclosed(l.admin, l.rules);
    const transfer = {
      sender: basic(l.alice),
      receiver: basic(l.bob),
      amount: '30',
      instrumentId: { admin: l.admin, id: 'X2' },
      requestedAt: l.at(-1000),
      executeBefore: l.at(3_600_000),
      inputHoldingCids: [t1],
      meta: { values: { 'example.com/note': 'rent' } },
    };
    const res = await prepare(
      l.app,
      prepareBody(
        [l.alice],
        [{ ExerciseCommand: { templateId: TT2_IFACE.TransferFactoryV2, contractId: l.rules, choice: 'TransferFactory_Transfer', choiceArgument: { transfer, actors: [l.alice], extraArgs: extraArgs(context(l.rules)) } } }],
        { disclosedContracts: [rules] },
      ),
    );
    expect(await hashPreparedTransaction(res.preparedTransaction, 'base64')).toBe(res.preparedTransactionHash);
    const tx = decodePreparedTransaction(res.preparedTransaction);
    const root = nodeOf(tx, '0');
    if (root.oneofKind !== 'exercise') throw new Error('not an exercise');
    expect(root.exercise.interfaceId).toMatchObject({ moduleName: 'Splice.Api.Token.TransferInstructionV2', entityName: 'TransferFactory' });
    const arg = root.exercise.chosenValue!;
    const labels = (v: typeof arg) => (v.sum.oneofKind === 'record' ? v.sum.record.fields.map((f) => f.label) : []);
    expect(labels(arg)).toEqual(['transfer', 'actors', 'extraArgs']);
    // Account { owner : Optional Party; provider : Optional Party; id : Text }: Some owner, None provider
    const sender = field(field(arg, 'transfer'), 'sender');
    expect(field(sender, 'owner').sum).toEqual({ oneofKind: 'optional', optional: { value: { sum: { oneofKind: 'party', party: l.alice } } } });
    expect(field(sender, 'provider').sum).toEqual({ oneofKind: 'optional', optional: {} });
    // Metadata.values : TextMap Text
    expect(field(field(field(arg, 'transfer'), 'meta'), 'values').sum).toEqual({
      oneofKind: 'textMap',
      textMap: { entries: [{ key: 'example.com/note', value: { sum: { oneofKind: 'text', text: 'rent' } } }] },
    });
    // ChoiceContext.values : TextMap AnyValue, AnyValue a variant (AV_List of AV_ContractId)
    const ctxValuesV = field(field(field(arg, 'extraArgs'), 'context'), 'values');
    expect(ctxValuesV.sum.oneofKind).toBe('textMap');
    const ctxValues = sumOf(ctxValuesV, 'textMap');
    expect(ctxValues.textMap.entries.map((e) => e.key)).toEqual(['testTokenV2/accountConfigs', 'testTokenV2/tokenRules']);
    expect(ctxValues.textMap.entries[0]?.value?.sum).toEqual({ oneofKind: 'variant', variant: { constructor: 'AV_List', value: { sum: { oneofKind: 'list', list: { elements: [] } } } } });
    expect(ctxValues.textMap.entries[1]?.value?.sum).toMatchObject({ oneofKind: 'variant', variant: { constructor: 'AV_ContractId', value: { sum: { oneofKind: 'contractId', contractId: l.rules } } } });
    // the created TokenTransferOffer: DA.Map fields are GenMaps keyed by the action variant, None is an empty Optional
    const offer = tx.transaction!.nodes
      .map((n) => (n.versionedNode.oneofKind === 'v1' ? n.versionedNode.v1.nodeType : undefined))
      .find((n) => n?.oneofKind === 'create' && n.create.templateId?.entityName === 'TokenTransferOffer');
    if (offer?.oneofKind !== 'create') throw new Error('no TokenTransferOffer created');
    const payload = offer.create.argument!;
    expect(labels(payload)).toEqual(['actionAuthorizers', 'availableActions', 'transfer', 'originalInstructionCid', 'mintAmount']);
    const authorizersV = field(payload, 'actionAuthorizers');
    expect(authorizersV.sum.oneofKind).toBe('genMap');
    const authorizers = sumOf(authorizersV, 'genMap');
    expect(authorizers.genMap.entries[0]?.key?.sum).toMatchObject({ oneofKind: 'variant', variant: { constructor: 'TIA_Accept', value: { sum: { oneofKind: 'unit' } } } });
    expect(field(payload, 'originalInstructionCid').sum).toEqual({ oneofKind: 'optional', optional: {} });
    // the input holding (HoldingV2 view: `lock : Optional Lock`)
    const token = tx.metadata!.inputContracts.map((ic) => (ic.contract.oneofKind === 'v1' ? ic.contract.v1 : undefined)!).find((c) => c.contractId === t1)!;
    expect(field(field(field(token.argument, 'holding'), 'account'), 'owner').sum.oneofKind).toBe('optional');
    expect(field(field(token.argument, 'holding'), 'lock').sum).toEqual({ oneofKind: 'optional', optional: {} });
  });

  it('a template of an uploaded DAR: every value is encoded with its LF type, ids on records, variants and enums', async () => {
    const dar = buildDar({
      name: 'typed-pkg',
      version: '1.0.0',
      modules: [
        {
          name: 'Main',
          dataTypes: [
            { name: 'Shape', variant: [['Circle', 'Numeric 10'], ['Empty', 'Unit']] },
            { name: 'Color', enum: ['Red', 'Green'] },
          ],
          templates: [
            {
              name: 'Deal',
              fields: [
                ['owner', 'Party'],
                ['count', 'Int64'],
                ['memo', 'Optional Text'],
                ['shape', 'Main:Shape'],
                ['color', 'Main:Color'],
                ['attrs', 'TextMap Int64'],
                ['scores', 'GenMap Text Int64'],
                ['when', 'Timestamp'],
                ['day', 'Date'],
              ],
            },
          ],
        },
      ],
    });
    const engine = new LedgerEngine({ seed: 'typed' });
    const app = createLedgerApiApp({ engine }, ledgerApiRoutes);
    engine.templates.declare({ id: { packageId: dar.mainPackageId, packageName: 'typed-pkg', moduleName: 'Main', entityName: 'Deal' }, signatories: ['owner'] });
    await app.request('/v2/dars', { method: 'POST', body: dar.bytes });
    const alice = engine.parties.allocate('alice').party;
    const args = { owner: alice, count: '42', memo: '7', shape: { tag: 'Circle', value: '1.5' }, color: 'Green', attrs: { a: '1' }, scores: [['x', '2']], when: '2026-03-01T12:00:00Z', day: '2026-03-02' };
    const res = await prepare(app, prepareBody([alice], [{ CreateCommand: { templateId: '#typed-pkg:Main:Deal', createArguments: args } }]));
    expect(await hashPreparedTransaction(res.preparedTransaction, 'base64')).toBe(res.preparedTransactionHash);
    const root = nodeOf(decodePreparedTransaction(res.preparedTransaction), '0');
    if (root.oneofKind !== 'create') throw new Error('not a create');
    const rec = root.create.argument!.sum;
    if (rec.oneofKind !== 'record') throw new Error('not a record');
    expect(rec.record.recordId).toMatchObject({ packageId: dar.mainPackageId, moduleName: 'Main', entityName: 'Deal' });
    const f = Object.fromEntries(rec.record.fields.map((x) => [x.label, x.value!.sum]));
    expect(f.count).toEqual({ oneofKind: 'int64', int64: '42' });
    // Text that reads like a number stays Text, and Some is explicit
    expect(f.memo).toMatchObject({ oneofKind: 'optional', optional: { value: { sum: { oneofKind: 'text', text: '7' } } } });
    expect(f.shape).toMatchObject({ oneofKind: 'variant', variant: { constructor: 'Circle', variantId: { entityName: 'Shape' }, value: { sum: { oneofKind: 'numeric', numeric: '1.5000000000' } } } });
    expect(f.color).toMatchObject({ oneofKind: 'enum', enum: { constructor: 'Green', enumId: { entityName: 'Color' } } });
    expect(f.attrs).toMatchObject({ oneofKind: 'textMap', textMap: { entries: [{ key: 'a', value: { sum: { oneofKind: 'int64', int64: '1' } } }] } });
    expect(f.scores).toMatchObject({ oneofKind: 'genMap' });
    expect(f.when).toEqual({ oneofKind: 'timestamp', timestamp: String(Date.parse('2026-03-01T12:00:00Z') * 1000) });
    expect(f.day).toEqual({ oneofKind: 'date', date: Math.floor(Date.parse('2026-03-02T00:00:00Z') / 86_400_000) });
    expect(root.create.lfVersion).toMatch(/^2\./);
  });
});
