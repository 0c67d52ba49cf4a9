import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { inPlace } from '../../../src/registry/in-place.js';
import {
  AllocateV1ArgsSchema,
  AllocateV2ArgsSchema,
  SettleBatchArgsSchema,
  TransferV1ArgsSchema,
  TransferV2ArgsSchema,
} from '../../../src/registry/choice-arguments.js';
import { GetChoiceContextRequestSchema, GetFactoryRequestSchema } from '../../../src/registry/schemas.js';

const admin = 'admin::1220aa';
const alice = 'alice::1220bb';
const bob = 'bob::1220cc';
const account = (owner: string) => ({ owner, provider: null, id: '' });
const meta = { values: { 'splice.lfdecentralizedtrust.org/reason': 'rent' } };

/** One complete value per schema (every defaulted field present), as wallets send them. */
const examples: Array<[string, z.ZodType, unknown]> = [
  ['GetFactoryRequest', GetFactoryRequestSchema, { choiceArguments: { expectedAdmin: admin }, excludeDebugFields: true }],
  ['GetChoiceContextRequest', GetChoiceContextRequestSchema, { meta: { a: 'b' }, excludeDebugFields: false }],
  [
    'TransferFactory_Transfer V1',
    TransferV1ArgsSchema,
    {
      expectedAdmin: admin,
      transfer: {
        sender: alice,
        receiver: bob,
        amount: '10.5',
        instrumentId: { admin, id: 'TT1' },
        requestedAt: '2026-01-01T00:00:00Z',
        executeBefore: '2026-01-02T00:00:00Z',
        inputHoldingCids: ['00ab', '00cd'],
        meta,
      },
    },
  ],
  [
    'TransferFactory_Transfer V2',
    TransferV2ArgsSchema,
    {
      transfer: {
        sender: account(alice),
        receiver: { owner: bob, id: 'acc-1' },
        amount: 3,
        instrumentId: { admin, id: 'TT1' },
        requestedAt: '2026-01-01T00:00:00Z',
        executeBefore: '2026-01-02T00:00:00Z',
        inputHoldingCids: [],
        meta,
      },
      actors: [alice],
    },
  ],
  [
    'AllocationFactory_Allocate V1',
    AllocateV1ArgsSchema,
    {
      expectedAdmin: admin,
      allocation: {
        settlement: { executor: bob, requestedAt: '2026-01-01T00:00:00Z', allocateBefore: '2026-01-02T00:00:00Z', settleBefore: '2026-01-03T00:00:00Z' },
        transferLegId: 'leg-0',
        transferLeg: { sender: alice, receiver: bob, amount: '1', instrumentId: { admin, id: 'TT1' } },
      },
      requestedAt: '2026-01-01T00:00:00Z',
      inputHoldingCids: ['00ab'],
    },
  ],
  [
    'AllocationFactory_Allocate V2',
    AllocateV2ArgsSchema,
    {
      settlement: { executors: [bob], id: 's-1' },
      allocation: {
        admin,
        authorizer: account(alice),
        transferLegSides: [{ transferLegId: 'leg-0', side: 'sender', otherside: account(bob), amount: '1', instrumentId: 'TT1' }],
        settlementDeadline: null,
      },
      requestedAt: '2026-01-01T00:00:00Z',
      inputHoldingCids: [],
      actors: [alice],
    },
  ],
  [
    'SettlementFactory_SettleBatch V2',
    SettleBatchArgsSchema,
    {
      settlement: { executors: [bob], id: 's-1' },
      transferLegs: [{ transferLegId: 'leg-0', sender: account(alice), receiver: account(bob), amount: '1', instrumentId: 'TT1' }],
      allocations: [{ allocationCid: '00ef' }],
      actors: [],
    },
  ],
];

/** Every value reachable by one change at one place of `v`: removed, replaced by a value of another type, or given an unknown key. */
function mutations(v: unknown): unknown[] {
  const replacements: unknown[] = [undefined, null, '', 'x', 0, 1.5, Infinity, true, [], {}, ['x'], { x: 1 }];
  const out: unknown[] = [...replacements];
  if (Array.isArray(v)) {
    v.forEach((e, i) => {
      for (const m of mutations(e)) out.push(v.map((x, j) => (j === i ? m : x)));
    });
    out.push([...v, v[0] ?? 'extra']);
  } else if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const { [k]: _removed, ...rest } = o;
      out.push(rest);
      for (const m of mutations(o[k])) out.push({ ...o, [k]: m });
    }
    out.push({ ...o, unknownKey: { any: 'thing' } });
  }
  return out;
}

describe('inPlace', () => {
  it.each(examples)('takes a complete %s as it is, the value zod returns', (_name, schema, value) => {
    const r = inPlace(schema).safeParse(value);
    expect(r.success).toBe(true);
    expect(r.data).toBe(value);
    expect(schema.parse(value)).toEqual(value);
  });

  it.each(examples)('agrees with zod on every one-place change of a %s', (_name, schema, value) => {
    const fast = inPlace(schema);
    const all = mutations(value);
    let inPlaceTaken = 0;
    for (const m of all) {
      const ours = fast.safeParse(m);
      const zods = schema.safeParse(m);
      expect(ours.success, JSON.stringify(m)).toBe(zods.success);
      if (ours.success && ours.data === m) {
        inPlaceTaken++;
        // the value itself: zod's copy minus nothing but unknown keys
        expect(m).toMatchObject(zods.data as object);
      } else if (ours.success) {
        expect(ours.data).toEqual(zods.data);
      } else {
        expect(ours.error.issues).toEqual(zods.error!.issues);
      }
    }
    expect(all.length).toBeGreaterThan(20);
    expect(inPlaceTaken).toBeGreaterThan(0);
  });

  it('leaves a missing defaulted field to zod, which fills it in', () => {
    const { inputHoldingCids: _dropped, ...transfer } = (examples[2]![2] as { transfer: Record<string, unknown> }).transfer;
    const value = { expectedAdmin: admin, transfer };
    const r = inPlace(TransferV1ArgsSchema).safeParse(value);
    expect(r.success && r.data).not.toBe(value);
    expect(r.success && r.data.transfer.inputHoldingCids).toEqual([]);
    // also where the inner schema itself would take undefined
    const value2 = {};
    const r2 = inPlace(z.object({ a: z.string().optional().default('x') })).safeParse(value2);
    expect(r2.data).not.toBe(value2);
    expect(r2.data).toEqual({ a: 'x' });
  });

  it('leaves schema kinds it does not know to zod', () => {
    const email = inPlace(z.object({ to: z.string().email() }));
    const ok = { to: 'a@b.example' };
    expect(email.safeParse(ok).data).not.toBe(ok);
    expect(email.safeParse(ok).data).toEqual(ok);
    expect(email.safeParse({ to: 'nope' }).success).toBe(false);
    const refined = inPlace(z.string().min(1).max(3));
    expect(refined.safeParse('abcd').success).toBe(false);
    expect(refined.safeParse('abc').data).toBe('abc');
  });
});
