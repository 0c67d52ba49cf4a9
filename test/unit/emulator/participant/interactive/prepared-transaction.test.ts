/**
 * Our PreparedTransaction protobuf writer/reader and V2 hasher on a synthetic transaction that
 * uses every value kind and node kind (rollback, fetch by interface, optional metadata times):
 * the bytes round-trip through our decoder, the SDK's protobuf-ts bindings read the same values,
 * and the hash equals the SDK oracle's.
 */
import { describe, expect, it } from 'vitest';
import { decodePreparedTransaction as sdkDecode, hashPreparedTransaction } from '@canton-network/core-tx-visualizer';
import { decodePreparedTransaction, encodePreparedTransaction, type PCreate, type PPreparedTransaction } from '../../../../../src/emulator/participant/interactive/prepared-transaction.js';
import type { PValue } from '../../../../../src/emulator/lf-value/proto-value.js';
import { hashPreparedTransactionV2 } from '../../../../../src/emulator/participant/interactive/hashing.js';

const PKG = 'ab'.repeat(32);
const cid = (n: number) => `00${n.toString(16).padStart(64, '0')}ca101220${'cd'.repeat(32)}`;
const alice = `alice::1220${'1'.repeat(64)}`;
const bob = `bob::1220${'2'.repeat(64)}`;
const id = (entityName: string, moduleName = 'Main.Sub') => ({ packageId: PKG, moduleName, entityName });

const everyValue: PValue = {
  kind: 'record',
  recordId: id('Everything'),
  fields: [
    { label: 'unit', value: { kind: 'unit' } },
    { label: 'yes', value: { kind: 'bool', value: true } },
    { label: 'no', value: { kind: 'bool', value: false } },
    { label: 'min', value: { kind: 'int64', value: -(2n ** 63n) } },
    { label: 'max', value: { kind: 'int64', value: 2n ** 63n - 1n } },
    { label: 'zero', value: { kind: 'int64', value: 0n } },
    { label: 'before1970', value: { kind: 'date', value: -719162 } },
    { label: 'ts', value: { kind: 'timestamp', value: -62135596800000000n } },
    { label: 'num', value: { kind: 'numeric', value: '-0.0000000001' } },
    { label: 'party', value: { kind: 'party', value: alice } },
    { label: 'text', value: { kind: 'text', value: 'ünïcødé ✓' } },
    { label: 'empty', value: { kind: 'text', value: '' } },
    { label: 'cid', value: { kind: 'contractId', value: cid(1) } },
    { label: 'none', value: { kind: 'optional', value: undefined } },
    { label: 'someNone', value: { kind: 'optional', value: { kind: 'optional', value: undefined } } },
    { label: 'list', value: { kind: 'list', elements: [{ kind: 'int64', value: 1n }, { kind: 'int64', value: -1n }] } },
    { label: 'textMap', value: { kind: 'textMap', entries: [{ key: 'a', value: { kind: 'text', value: 'x' } }, { key: '', value: { kind: 'unit' } }] } },
    { label: 'genMap', value: { kind: 'genMap', entries: [{ key: { kind: 'party', value: bob }, value: { kind: 'list', elements: [] } }] } },
    { label: 'variant', value: { kind: 'variant', variantId: id('V'), constructor: 'Some', value: { kind: 'numeric', value: '1.5' } } },
    { label: 'anonVariant', value: { kind: 'variant', constructor: 'Other', value: { kind: 'unit' } } },
    { label: 'enum', value: { kind: 'enum', enumId: id('Color'), constructor: 'Red' } },
    { label: 'anonRecord', value: { kind: 'record', fields: [{ label: 'x', value: { kind: 'int64', value: 7n } }] } },
  ],
};

const create = (n: number, argument: PValue): PCreate => ({
  lfVersion: '2.1',
  contractId: cid(n),
  packageName: 'pkg',
  templateId: id('T'),
  argument,
  signatories: [alice],
  stakeholders: [alice, bob],
});

const tx: PPreparedTransaction = {
  transaction: {
    version: '2.1',
    roots: ['0', '5'],
    nodes: [
      {
        nodeId: '0',
        node: {
          kind: 'exercise',
          exercise: {
            lfVersion: '2.1',
            contractId: cid(2),
            packageName: 'pkg',
            templateId: id('T'),
            signatories: [alice],
            stakeholders: [alice, bob],
            actingParties: [alice],
            interfaceId: id('I', 'Iface'),
            choiceId: 'Go',
            chosenValue: everyValue,
            consuming: true,
            children: ['1', '2', '3'],
            exerciseResult: { kind: 'contractId', value: cid(3) },
            choiceObservers: [bob],
          },
        },
      },
      { nodeId: '1', node: { kind: 'create', create: create(3, everyValue) } },
      {
        nodeId: '2',
        node: {
          kind: 'fetch',
          fetch: { lfVersion: '2.1', contractId: cid(4), packageName: 'pkg', templateId: id('T'), signatories: [bob], stakeholders: [bob], interfaceId: id('I', 'Iface'), actingParties: [alice] },
        },
      },
      { nodeId: '3', node: { kind: 'rollback', children: ['4'] } },
      { nodeId: '4', node: { kind: 'create', create: create(5, { kind: 'unit' }) } },
      {
        nodeId: '5',
        node: {
          kind: 'exercise',
          exercise: {
            lfVersion: '2.1',
            contractId: cid(6),
            packageName: 'pkg',
            templateId: id('T'),
            signatories: [alice],
            stakeholders: [alice],
            actingParties: [alice],
            choiceId: 'Peek',
            chosenValue: { kind: 'record', fields: [] },
            consuming: false,
            children: [],
            choiceObservers: [],
          },
        },
      },
    ],
    nodeSeeds: [0, 1, 4, 5].map((nodeId) => ({ nodeId, seed: Buffer.alloc(32, nodeId + 1) })),
  },
  metadata: {
    actAs: [alice, bob],
    commandId: 'cmd-1',
    synchronizerId: `global-domain::1220${'3'.repeat(64)}`,
    mediatorGroup: 0,
    transactionUuid: '6c4a1e4e-7d3f-4a5b-9c1d-2e3f4a5b6c7d',
    preparationTime: 1_772_366_400_000_000n,
    inputContracts: [{ create: create(2, everyValue), createdAt: 1_772_366_000_000_000n, eventBlob: Buffer.from('blob') }],
    minLedgerEffectiveTime: 0n,
    maxLedgerEffectiveTime: 1_772_366_460_000_000n,
    maxRecordTime: 1_772_366_500_000_000n,
  },
};

describe('PreparedTransaction encoding and V2 hash', () => {
  it('round-trips through our decoder', () => {
    expect(decodePreparedTransaction(encodePreparedTransaction(tx))).toEqual(tx);
  });

  it('the SDK bindings read the same values; the hash equals the SDK oracle', async () => {
    const bytes = encodePreparedTransaction(tx);
    const sdk = sdkDecode(bytes.toString('base64'));
    expect(sdk.metadata!.minLedgerEffectiveTime).toBe(0n);
    expect(sdk.metadata!.maxRecordTime).toBe(1_772_366_500_000_000n);
    const root = sdk.transaction!.nodes[0]!.versionedNode;
    if (root.oneofKind !== 'v1' || root.v1.nodeType.oneofKind !== 'exercise') throw new Error('root is not an exercise');
    const fields = root.v1.nodeType.exercise.chosenValue!.sum;
    if (fields.oneofKind !== 'record') throw new Error('not a record');
    const byLabel = Object.fromEntries(fields.record.fields.map((f) => [f.label, f.value!.sum]));
    expect(byLabel.min).toEqual({ oneofKind: 'int64', int64: '-9223372036854775808' });
    expect(byLabel.max).toEqual({ oneofKind: 'int64', int64: '9223372036854775807' });
    expect(byLabel.ts).toEqual({ oneofKind: 'timestamp', timestamp: '-62135596800000000' });
    expect(byLabel.before1970).toEqual({ oneofKind: 'date', date: -719162 });
    expect(byLabel.no).toEqual({ oneofKind: 'bool', bool: false });
    expect(byLabel.text).toEqual({ oneofKind: 'text', text: 'ünïcødé ✓' });
    expect(byLabel.enum).toMatchObject({ oneofKind: 'enum', enum: { constructor: 'Red', enumId: { moduleName: 'Main.Sub' } } });
    // The oracle reads Int64 through a JS number (parseInt), exact only below 2^53: compare the
    // hash on a copy whose Int64 values are within that range.
    const safe = structuredClone(tx);
    const top = safe.transaction.nodes[0]!.node;
    if (top.kind !== 'exercise' || top.exercise.chosenValue.kind !== 'record') throw new Error('unexpected fixture');
    for (const f of top.exercise.chosenValue.fields) if (f.label === 'max') f.value = { kind: 'int64', value: 2n ** 53n - 1n };
    const safeBytes = encodePreparedTransaction(safe).toString('base64');
    expect(await hashPreparedTransaction(safeBytes, 'base64')).toBe(hashPreparedTransactionV2(safe).hash.toString('base64'));
  });

  it('Int64 is hashed as 8 bytes big endian, exactly (2^63 - 1 included)', () => {
    const withMax = (n: bigint): PPreparedTransaction => ({
      ...tx,
      transaction: { ...tx.transaction, roots: ['1'], nodes: [{ nodeId: '1', node: { kind: 'create', create: create(3, { kind: 'int64', value: n }) } }] },
    });
    const a = hashPreparedTransactionV2(withMax(2n ** 63n - 1n)).hash;
    const b = hashPreparedTransactionV2(withMax(-(2n ** 63n))).hash;
    expect(a.equals(b)).toBe(false);
  });

  it('every part of the transaction is covered by the hash', () => {
    const base = hashPreparedTransactionV2(tx).hash;
    const variants: PPreparedTransaction[] = [
      { ...tx, metadata: { ...tx.metadata, commandId: 'cmd-2' } },
      { ...tx, metadata: { ...tx.metadata, minLedgerEffectiveTime: undefined } },
      { ...tx, metadata: { ...tx.metadata, inputContracts: [] } },
      { ...tx, transaction: { ...tx.transaction, roots: ['0'] } },
      { ...tx, transaction: { ...tx.transaction, nodeSeeds: tx.transaction.nodeSeeds.map((s) => ({ ...s, seed: Buffer.alloc(32, 9) })) } },
    ];
    for (const v of variants) expect(hashPreparedTransactionV2(v).hash.equals(base)).toBe(false);
    // maxRecordTime is not part of the V2 hash (it was added to the metadata after V2)
    expect(hashPreparedTransactionV2({ ...tx, metadata: { ...tx.metadata, maxRecordTime: undefined } }).hash.equals(base)).toBe(true);
  });
});
