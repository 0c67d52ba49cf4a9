/**
 * The evaluator on real Daml code: TestTokenV1's templates and its V1 transfer workflow against a
 * fake ledger, and pure Amulet functions (fees, expiry, issuance) checked against hand computation.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { DamlPackage, Expr, LfType, PackageLookup, TypeConRef } from '../../../../src/emulator/daml-lf/ast.js';
import { ARITHMETIC_ERROR_PACKAGE_ID, builtinFunction } from '../../../../src/emulator/daml-lf/builtins/index.js';
import { Evaluator } from '../../../../src/emulator/daml-lf/evaluator.js';
import { DamlFailure } from '../../../../src/emulator/daml-lf/runtime.js';
import type { RecordV, Value } from '../../../../src/emulator/lf-value/runtime-value.js';
import { loadDars, toJs, toValue } from './dar-values.js';
import { FakeLedger } from './evaluator-fixtures.js';

const con = (tycon: TypeConRef): LfType => ({ kind: 'con', tycon, args: [] });
const int64Lit = (value: bigint): Expr => ({ tag: 'lit', value: { lit: 'int64', value } });
const N10: LfType = { kind: 'builtin', name: 'Numeric', args: [{ kind: 'nat', value: 10 }] };
const newEvaluator = (lookup: PackageLookup) => new Evaluator(lookup, { builtins: (n) => builtinFunction(n) });

function choiceArgType(lookup: PackageLookup, owner: TypeConRef, choice: string): LfType {
  const m = lookup.get(owner.packageId)!.modules.get(owner.moduleName)!;
  const def = m.templates.get(owner.entityName) ?? m.interfaces.get(owner.entityName)!;
  return def.choices.get(choice)!.argBinder.type;
}

function consuming(lookup: PackageLookup) {
  return (owner: TypeConRef, choice: string): boolean => {
    const m = lookup.get(owner.packageId)!.modules.get(owner.moduleName)!;
    const def = m.templates.get(owner.entityName) ?? m.interfaces.get(owner.entityName)!;
    return def.choices.get(choice)!.consuming;
  };
}

describe('Evaluator on TestTokenV1 (splice-test-token-v1-1.0.0.dar)', () => {
  const admin = 'admin::1220aa';
  const alice = 'alice::1220bb';
  const bob = 'bob::1220cc';
  const instrumentId = { admin, id: 'TestToken' };
  const emptyMeta = { values: {} };
  const extraArgs = { context: { values: {} }, meta: emptyMeta };
  let lookup: PackageLookup;
  let tpl: (entity: string) => TypeConRef;
  let TransferFactory: TypeConRef;
  let TransferInstruction: TypeConRef;
  let Holding: TypeConRef;

  beforeAll(() => {
    const loaded = loadDars(['splice-test-token-v1-1.0.0.dar']);
    lookup = loaded.lookup;
    const pkgId = loaded.byName('splice-test-token-v1').packageId;
    tpl = (entityName) => ({ packageId: pkgId, moduleName: 'Splice.Testing.Tokens.TestTokenV1', entityName });
    const ti = loaded.byName('splice-api-token-transfer-instruction-v1').packageId;
    TransferFactory = { packageId: ti, moduleName: 'Splice.Api.Token.TransferInstructionV1', entityName: 'TransferFactory' };
    TransferInstruction = { ...TransferFactory, entityName: 'TransferInstruction' };
    Holding = { packageId: loaded.byName('splice-api-token-holding-v1').packageId, moduleName: 'Splice.Api.Token.HoldingV1', entityName: 'Holding' };
  }, 120_000);

  const token = (owner: string, amount: string): RecordV => {
    const v = toValue(lookup, con(tpl('Token')), { holding: { owner, instrumentId, amount, lock: null, meta: emptyMeta } });
    if (v.tag !== 'record') throw new Error('not a record');
    return v;
  };

  /** An evaluator over a fake ledger (consuming choices archive) holding the admin's TokenRules. */
  const ledgerWithRules = () => {
    const ev = newEvaluator(lookup);
    const ledger = new FakeLedger(ev, consuming(lookup));
    const rulesArg = toValue(lookup, con(tpl('TokenRules')), { admin });
    if (rulesArg.tag !== 'record') throw new Error('not a record');
    const rules = ledger.create(tpl('TokenRules'), rulesArg);
    return { ev, ledger, rulesArg, rules };
  };

  it('signatories, observers, precondition and the Holding view of a Token', () => {
    const ev = newEvaluator(lookup);
    const t = token(alice, '10.0');
    expect(ev.hasTemplate(tpl('Token'))).toBe(true);
    expect(ev.signatories(tpl('Token'), t).sort()).toEqual([admin, alice].sort());
    expect(ev.observers(tpl('Token'), t)).toEqual([]);
    expect(ev.precondition(tpl('Token'), t)).toBe(true);
    expect(toJs(ev.view(Holding, t))).toEqual({ owner: alice, instrumentId, amount: '10.0000000000', lock: null, meta: emptyMeta });
  });

  it('a failing ensure throws PreconditionFailed, unhandled at the top: its message shows the contract', () => {
    const ev = newEvaluator(lookup);
    let failure: DamlFailure | undefined;
    try {
      ev.precondition(tpl('Token'), token(alice, '0.0'));
    } catch (e) {
      if (e instanceof DamlFailure) failure = e;
    }
    expect(failure?.detail).toMatchObject({
      kind: 'unhandledException',
      exceptionType: { moduleName: 'DA.Exception.PreconditionFailed', entityName: 'PreconditionFailed' },
    });
    expect(failure?.detail.kind === 'unhandledException' && failure.detail.message).toContain('Template precondition violated');
    expect(failure?.detail.kind === 'unhandledException' && failure.detail.message).toContain("owner = 'alice::1220bb'");
  });

  it('TransferFactory_Transfer then TransferInstruction_Accept, through the interfaces', () => {
    const { ev, ledger, rulesArg, rules } = ledgerWithRules();
    const input = ledger.create(tpl('Token'), token(alice, '10.0'));
    const now = ledger.nowMicros;
    const transfer = {
      sender: alice,
      receiver: bob,
      amount: '3.0',
      instrumentId,
      requestedAt: now - 1_000_000n,
      executeBefore: now + 3_600_000_000n,
      inputHoldingCids: [input],
      meta: emptyMeta,
    };
    const arg = toValue(lookup, choiceArgType(lookup, TransferFactory, 'TransferFactory_Transfer'), { expectedAdmin: admin, transfer, extraArgs });
    expect(ev.controllers(TransferFactory, 'TransferFactory_Transfer', rulesArg, arg)).toEqual([alice]);
    ledger.calls.length = 0;
    const result = ledger.exerciseInterface(TransferFactory, rules, 'TransferFactory_Transfer', arg);
    expect(ledger.calls.map((c) => [c.op, ...c.args])).toEqual([
      ['exerciseInterface', 'TransferFactory', rules, 'TransferFactory_Transfer'],
      ['fetchInterface', 'Holding', input],
      ['exerciseInterface', 'Holding', input, 'Archive'],
      ['create', 'Token', 'cid2', [admin, alice]],
      ['create', 'TokenTransferOffer', 'cid3', [admin, alice]],
    ]);
    expect(toJs(result)).toEqual({
      output: { tag: 'TransferInstructionResult_Pending', value: { transferInstructionCid: 'cid3' } },
      senderChangeCids: ['cid2'],
      meta: emptyMeta,
    });
    expect(toJs(ledger.contracts.get('cid2')!)).toMatchObject({ holding: { owner: alice, amount: '7.0000000000' } });
    expect(ledger.archived.has(input)).toBe(true);

    // The offer: its Holding view is locked, its receiver observes it, the receiver accepts.
    const offer = ledger.contracts.get('cid3')!;
    expect(ev.observers(tpl('TokenTransferOffer'), offer)).toEqual([bob]);
    expect(toJs(ev.view(Holding, offer))).toMatchObject({ owner: alice, amount: '3.0000000000', lock: { holders: [alice, admin], context: "transfer to 'bob::1220cc'" } });
    const acceptArg = toValue(lookup, choiceArgType(lookup, TransferInstruction, 'TransferInstruction_Accept'), { extraArgs });
    expect(ev.controllers(TransferInstruction, 'TransferInstruction_Accept', offer, acceptArg)).toEqual([bob]);
    const accepted = ledger.exerciseInterface(TransferInstruction, 'cid3', 'TransferInstruction_Accept', acceptArg);
    expect(toJs(accepted)).toEqual({
      output: { tag: 'TransferInstructionResult_Completed', value: { receiverHoldingCids: ['cid4'] } },
      senderChangeCids: [],
      meta: emptyMeta,
    });
    expect(toJs(ledger.contracts.get('cid4')!)).toMatchObject({ holding: { owner: bob, amount: '3.0000000000', lock: null } });
  });

  it('Reject gives the sender a new token; Update and an insufficient input fail with GeneralError messages', () => {
    const { ev, ledger, rules } = ledgerWithRules();
    const now = ledger.nowMicros;
    const transferArg = (amount: string, input: string): Value =>
      toValue(lookup, choiceArgType(lookup, TransferFactory, 'TransferFactory_Transfer'), {
        expectedAdmin: admin,
        transfer: { sender: alice, receiver: bob, amount, instrumentId, requestedAt: now - 1n, executeBefore: now + 1_000_000n, inputHoldingCids: [input], meta: emptyMeta },
        extraArgs,
      });
    const failureOf = (f: () => unknown): DamlFailure => {
      try {
        f();
      } catch (e) {
        if (e instanceof DamlFailure) return e;
        throw e;
      }
      throw new Error('expected a failure');
    };

    const short = failureOf(() => ledger.exerciseInterface(TransferFactory, rules, 'TransferFactory_Transfer', transferArg('30.0', ledger.create(tpl('Token'), token(alice, '3.0')))));
    expect(short.detail).toMatchObject({ kind: 'unhandledException', exceptionType: { moduleName: 'DA.Exception.GeneralError', entityName: 'GeneralError' } });
    expect(short.message).toContain("'input amount' is less than 'transfer.amount'");

    const pending = toJs(ledger.exerciseInterface(TransferFactory, rules, 'TransferFactory_Transfer', transferArg('3.0', ledger.create(tpl('Token'), token(alice, '3.0')))));
    const offer = (pending as { output: { value: { transferInstructionCid: string } } }).output.value.transferInstructionCid;
    const update = failureOf(() =>
      ev.exercise(TransferInstruction, 'TransferInstruction_Update', offer, ledger.contracts.get(offer)!,
        toValue(lookup, choiceArgType(lookup, TransferInstruction, 'TransferInstruction_Update'), { extraActors: [], extraArgs }), ledger),
    );
    expect(update.detail).toMatchObject({ kind: 'unhandledException', message: 'V1.TransferInstruction_Update: not supported by TokenTransferOffer' });

    const rejected = ledger.exerciseInterface(TransferInstruction, offer, 'TransferInstruction_Reject',
      toValue(lookup, choiceArgType(lookup, TransferInstruction, 'TransferInstruction_Reject'), { extraArgs }));
    const back = ledger.calls.at(-1)!.args[1] as string;
    expect(toJs(rejected)).toEqual({ output: { tag: 'TransferInstructionResult_Failed', value: {} }, senderChangeCids: [back], meta: emptyMeta });
    expect(toJs(ledger.contracts.get(back)!)).toMatchObject({ holding: { owner: alice, amount: '3.0000000000' } });
    expect(ledger.archived.has(offer)).toBe(true);
  });

  it("a builtin's ArithmeticError is caught as daml-prim's ArithmeticError, its message from the DefException", () => {
    const AE: TypeConRef = { packageId: ARITHMETIC_ERROR_PACKAGE_ID, moduleName: 'DA.Exception.ArithmeticError', entityName: 'ArithmeticError' };
    const text: LfType = { kind: 'builtin', name: 'Text', args: [] };
    // try (pure (DIV_INT64 1 0)) catch e -> Some (pure (case from_any_exception @ArithmeticError e of
    //   Some r -> r.message <> " / " <> ANY_EXCEPTION_MESSAGE e | None -> "other"))
    const body: Expr = {
      tag: 'update',
      update: {
        tag: 'tryCatch',
        returnType: text,
        tryExpr: { tag: 'update', update: { tag: 'pure', type: text, expr: { tag: 'app', fun: { tag: 'builtin', name: 'DIV_INT64' }, args: [int64Lit(1n), int64Lit(0n)] } } },
        binder: 'e',
        catchExpr: {
          tag: 'some',
          type: text,
          value: {
            tag: 'update',
            update: {
              tag: 'pure',
              type: text,
              expr: {
                tag: 'case',
                scrut: { tag: 'fromAnyException', type: con(AE), expr: { tag: 'var', name: 'e' } },
                alts: [
                  {
                    pattern: { pat: 'some', binder: 'r' },
                    body: {
                      tag: 'app',
                      fun: { tag: 'builtin', name: 'APPEND_TEXT' },
                      args: [
                        { tag: 'recProj', tycon: AE, field: 'message', record: { tag: 'var', name: 'r' } },
                        { tag: 'app', fun: { tag: 'builtin', name: 'ANY_EXCEPTION_MESSAGE' }, args: [{ tag: 'var', name: 'e' }] },
                      ],
                    },
                  },
                  { pattern: { pat: 'none' }, body: { tag: 'lit', value: { lit: 'text', value: 'other' } } },
                ],
              },
            },
          },
        },
      },
    };
    const mine: DamlPackage = {
      packageId: 'test-pkg',
      name: 'test',
      version: '1.0.0',
      lfVersion: '2.1',
      modules: new Map([
        ['T', { name: 'T', dataTypes: new Map(), synonyms: new Map(), templates: new Map(), interfaces: new Map(), exceptions: new Map(),
          values: new Map([['main', { ref: { packageId: 'test-pkg', moduleName: 'T', name: 'main' }, type: text, expr: body }]]) }],
      ]),
    };
    const both: PackageLookup = { get: (id) => (id === 'test-pkg' ? mine : lookup.get(id)) };
    expect(both.get(ARITHMETIC_ERROR_PACKAGE_ID)?.modules.get('DA.Exception.ArithmeticError')?.exceptions.has('ArithmeticError')).toBe(true);
    const ev = newEvaluator(both);
    const ledger = new FakeLedger(ev);
    const message = 'ArithmeticError while evaluating (DIV_INT64 1 0).';
    expect(toJs(ev.runUpdate(ev.evaluateValue({ packageId: 'test-pkg', moduleName: 'T', name: 'main' }), ledger))).toBe(message + message);
  });

  it('a transfer past its executeBefore fails with the deadline assertion, and nothing is created', () => {
    const { ev, ledger, rulesArg, rules } = ledgerWithRules();
    const input = ledger.create(tpl('Token'), token(alice, '10.0'));
    const now = ledger.nowMicros;
    const transfer = { sender: alice, receiver: bob, amount: '3.0', instrumentId, requestedAt: now - 2n, executeBefore: now - 1n, inputHoldingCids: [input], meta: emptyMeta };
    const arg = toValue(lookup, choiceArgType(lookup, TransferFactory, 'TransferFactory_Transfer'), { expectedAdmin: admin, transfer, extraArgs });
    const before = ledger.calls.length;
    let failure: unknown;
    try {
      ev.exercise(TransferFactory, 'TransferFactory_Transfer', rules, rulesArg, arg, ledger);
    } catch (e) {
      failure = e;
    }
    expect(failure).toBeInstanceOf(DamlFailure);
    expect(String((failure as Error).message)).toMatch(/executeBefore/);
    expect(ledger.calls.slice(before).filter((c) => c.op === 'create')).toEqual([]);
  });
});

// Decoded lazily (value bodies on first use), as the ledger loads DARs.
describe('Evaluator on pure Amulet functions (splice-amulet-0.1.22.dar, lazily decoded)', () => {
  let lookup: PackageLookup;
  let pkgs: Map<string, DamlPackage>;
  let ev: Evaluator;
  let amuletPkg: string;
  let timeTypesPkg: string;
  const tc = (moduleName: string, entityName: string, packageId = amuletPkg): TypeConRef => ({ packageId, moduleName, entityName });
  const top = (moduleName: string, name: string): Value => ev.evaluateValue({ packageId: amuletPkg, moduleName, name });
  const call = (moduleName: string, name: string, ...args: Value[]): unknown => toJs(ev.applyFunction(top(moduleName, name), args));
  const num = (s: string): Value => toValue(lookup, N10, s);

  beforeAll(() => {
    const loaded = loadDars(['splice-amulet-0.1.22.dar'], { lazy: true });
    lookup = loaded.lookup;
    pkgs = loaded.pkgs;
    amuletPkg = loaded.byName('splice-amulet').packageId;
    timeTypesPkg = loaded.byName('daml-stdlib-DA-Time-Types').packageId;
    ev = newEvaluator(lookup);
  }, 120_000);

  it('constants', () => {
    expect(toJs(top('Splice.Fees', 'microsPerDay'))).toBe('86400000000.0000000000');
    expect(toJs(top('Splice.Expiry', 'maxInt'))).toBe(9223372036854775807n);
  });

  it('chargeSteppedRate: the initial rate up to the first step, then each step rate above its threshold', () => {
    const rate = toValue(lookup, con(tc('Splice.Fees', 'SteppedRate')), {
      initialRate: '0.01',
      steps: [{ _1: '100.0', _2: '0.001' }, { _1: '1000.0', _2: '0.0001' }],
    });
    // 100 × 0.01 + 400 × 0.001
    expect(call('Splice.Fees', 'chargeSteppedRate', rate, num('500.0'))).toBe('1.4000000000');
    // 100 × 0.01 + 900 × 0.001 + 4000 × 0.0001
    expect(call('Splice.Fees', 'chargeSteppedRate', rate, num('5000.0'))).toBe('2.3000000000');
    expect(call('Splice.Fees', 'chargeSteppedRate', rate, num('50.0'))).toBe('0.5000000000');
  });

  it('expiry of an amount that loses a fixed rate per round', () => {
    const amount = toValue(lookup, con(tc('Splice.Fees', 'ExpiringAmount')), { initialAmount: '10.0', createdAt: { number: 5 }, ratePerRound: { rate: '0.5' } });
    // 10.0 / 0.5 = 20 rounds after round 5
    expect(call('Splice.Expiry', 'amountExpiresAt', amount)).toEqual({ tag: 'Singleton', value: { number: 25n } });
    const round = (n: number): Value => toValue(lookup, con(tc('Splice.Types', 'Round')), { number: n });
    expect(call('Splice.Expiry', 'isAmuletExpired', round(10), amount)).toBe(false);
    expect(call('Splice.Expiry', 'isAmuletExpired', round(26), amount)).toBe(true);
  });

  it('relative time conversions', () => {
    const relTime = toValue(lookup, con(tc('DA.Time.Types', 'RelTime', timeTypesPkg)), { microseconds: 129_600_000_000n });
    expect(call('Splice.Fees', 'relTimeToDays', relTime)).toBe('1.5000000000');
    expect(call('Splice.Fees', 'daysToRelTime', num('2.0'))).toEqual({ microseconds: 172_800_000_000n });
  });

  it('issuance tranche: rewards per coupon capped, the rest unclaimed', () => {
    expect(call('Splice.Issuance', 'computeIssuanceTranche', num('100.0'), num('30.0'), num('5.0'))).toEqual({
      rewardsToIssue: '100.0000000000',
      issuancePerCoupon: '20.0000000000',
      unclaimedRewards: '0.0000000000',
    });
    expect(call('Splice.Issuance', 'computeIssuanceTranche', num('100.0'), num('10.0'), num('5.0'))).toEqual({
      rewardsToIssue: '100.0000000000',
      issuancePerCoupon: '10.0000000000',
      unclaimedRewards: '50.0000000000',
    });
  });

  it('every top-level value of the DAR evaluates, or fails with a Daml error (never an evaluator error)', () => {
    const fresh = newEvaluator(lookup);
    const kinds = new Map<string, number>();
    for (const p of pkgs.values()) {
      for (const m of p.modules.values()) {
        for (const d of m.values.values()) {
          let kind = 'ok';
          try {
            fresh.evaluateValue(d.ref);
          } catch (e) {
            kind = e instanceof DamlFailure ? e.detail.kind : `${(e as Error).name}: ${(e as Error).message}`;
          }
          kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        }
      }
    }
    // `userError`: the compiler's metadata values (`$$imports`, `$$export…`) are `undefined`.
    expect([...kinds.keys()].sort()).toEqual(['ok', 'unhandledException', 'userError']);
    expect(kinds.get('ok')).toBeGreaterThan(5000);
  }, 120_000);
});
