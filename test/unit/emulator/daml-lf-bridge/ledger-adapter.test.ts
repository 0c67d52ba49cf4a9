/**
 * The 'daml' template kind with a fake DamlEngine (the boundary to the evaluator): TestTokenV1's
 * DAR is uploaded to a bare ledger, its templates become 'daml' templates, and the fake engine's
 * answers and scripted choice bodies drive the command interpreter through the adapter and the
 * LedgerPort.
 */
import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import type { TypeConRef } from '../../../../src/emulator/daml-lf/ast.js';
import { DamlRuntime } from '../../../../src/emulator/daml-lf-bridge/daml-runtime.js';
import { installDamlTemplates } from '../../../../src/emulator/daml-lf-bridge/install.js';
import { DamlFailure, DamlThrow, type DamlEngine, type LedgerPort } from '../../../../src/emulator/daml-lf/runtime.js';
import { UNIT, type RecordV, type Value } from '../../../../src/emulator/lf-value/runtime-value.js';
import { LedgerApiError } from '../../../../src/canton/errors.js';
import type { EngineCommand } from '../../../../src/emulator/participant/commands.js';
import { LedgerEngine } from '../../../../src/emulator/participant/engine.js';
import { ManualClock } from '../../../../src/canton/clock.js';
import { createdEventJson } from '../../../../src/emulator/ledger-api/events.js';
import { typesOnlyPackage } from '../../../support/daml-lf-types.js';
import { SHARED_DARS_URL } from '../../../support/shared-dars.js';

const TT1 = 'aaa0b576b5a3db49b3a4f7a4710fe6f8ae462aabbde4da89f639eb87fd62e90c';
const MODULE = 'Splice.Testing.Tokens.TestTokenV1';
const RULES: TypeConRef = { packageId: TT1, moduleName: MODULE, entityName: 'TokenRules' };
const HOLDING_V1 = '718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b';
const ARCHIVE_TYCON: TypeConRef = { packageId: '9e70a8b3510d617f8a136213f33d6a903a10ca0eeec76bb06ba55d1ed9680f69', moduleName: 'DA.Internal.Template', entityName: 'Archive' };
const ARCHIVE_ARG: RecordV = { tag: 'record', tycon: ARCHIVE_TYCON, fields: [], fieldNames: [] };
const ERROR_TYCON: TypeConRef = { packageId: 'e'.repeat(64), moduleName: 'My.Errors', entityName: 'Boom' };

/** Every party value inside a value, in order. */
function partiesIn(v: Value, out: string[] = []): string[] {
  if (v.tag === 'party') out.push(v.value);
  else if (v.tag === 'record') for (const f of v.fields) partiesIn(f, out);
  else if (v.tag === 'optional' && v.value) partiesIn(v.value, out);
  return out;
}

type Body = (ledger: LedgerPort, cid: string, arg: RecordV) => Value;

class FakeEngine implements DamlEngine {
  body: Body = () => UNIT;
  precondOk = true;
  /** Records each payload record the engine was asked about (to check the conversion cache). */
  seen: RecordV[] = [];
  hasTemplate(): boolean {
    return true;
  }
  signatories(_t: TypeConRef, arg: RecordV): string[] {
    this.seen.push(arg);
    return [...new Set(partiesIn(arg))];
  }
  observers(): string[] {
    return [];
  }
  precondition(): boolean {
    return this.precondOk;
  }
  key(): undefined {
    return undefined;
  }
  controllers(_o: TypeConRef, _c: string, arg: RecordV): string[] {
    return [...new Set(partiesIn(arg))];
  }
  choiceObservers(): string[] {
    return [];
  }
  exercise(_o: TypeConRef, _c: string, cid: string, arg: RecordV, _a: Value, ledger: LedgerPort): Value {
    return this.body(ledger, cid, arg);
  }
  view(): Value {
    throw new DamlFailure({ kind: 'unsupported', feature: 'views in this fake' });
  }
}

describe("templates of the 'daml' kind (fake engine)", () => {
  let ledger: LedgerEngine;
  let fake: FakeEngine;
  let rt: DamlRuntime;
  let alice: string;
  let admin: string;

  const submit = (actAs: string[], ...commands: EngineCommand[]) =>
    ledger.commands.submit({
      userId: 'u',
      actAs,
      readAs: [],
      commandId: ledger.ids.uuid(),
      workflowId: '',
      submissionId: ledger.ids.uuid(),
      commands,
      disclosedContracts: [],
    });
  const ref = (entityName: string) => ({ package: { name: 'splice-test-token-v1' }, moduleName: MODULE, entityName });
  const tokenJson = (amount: string) => ({
    holding: { owner: alice, instrumentId: { admin, id: 'TT1' }, amount, lock: null, meta: { values: {} } },
  });
  const createRules = () => {
    const tx = submit([admin], { kind: 'create', template: ref('TokenRules'), createArguments: { admin } });
    const n = tx.nodes[0]!;
    if (n.kind !== 'create') throw new Error('create expected');
    return n.contract.contractId;
  };
  const archiveRules = (cid: string) =>
    submit([admin], { kind: 'exercise', template: ref('TokenRules'), contractId: cid, choice: 'Archive', choiceArgument: {} });
  const ledgerError = (f: () => unknown): LedgerApiError => {
    try {
      f();
    } catch (e) {
      if (e instanceof LedgerApiError) return e;
      throw e;
    }
    throw new Error('expected a ledger error');
  };

  beforeEach(() => {
    ledger = new LedgerEngine({ clock: new ManualClock('2023-11-14T22:13:20Z'), seed: 'daml-adapter' });
    fake = new FakeEngine();
    rt = new DamlRuntime({ decode: (id) => typesOnlyPackage(ledger.packages.get(id)!), createEngine: () => fake });
    installDamlTemplates(ledger, rt);
    ledger.packages.uploadDar(readFileSync(new URL('splice-test-token-v1-1.0.0.dar', SHARED_DARS_URL)));
    alice = ledger.parties.allocate('alice').party;
    admin = ledger.parties.allocate('admin').party;
  });

  it("registers the DAR's templates as 'daml' templates with the DAR's choices and interfaces", () => {
    const def = ledger.templates.templateByNameKey(`splice-test-token-v1:${MODULE}:Token`)!;
    expect(def.kind).toBe('daml');
    expect(Object.keys(def.choices)).toEqual(['Archive']);
    expect(def.implements.map((i) => i.interface.id.entityName)).toEqual(['Holding']);
    expect(ledger.templates.implementorsOf(`splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding`)).toHaveLength(3);
    expect(ledger.templates.interfaceByNameKey('splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding')?.id.packageId).toBe(HOLDING_V1);
  });

  it('creates with a normalised payload, asks the engine for signatories once per payload, and archives', () => {
    const tx = submit([alice, admin], { kind: 'create', template: ref('Token'), createArguments: tokenJson('10') });
    const node = tx.nodes[0]!;
    if (node.kind !== 'create') throw new Error('create expected');
    expect(node.contract.payload).toEqual(tokenJson('10.0000000000'));
    expect(node.contract.signatories).toEqual([alice, admin].sort());
    const cid = node.contract.contractId;
    const archived = submit([alice, admin], { kind: 'exercise', template: ref('Token'), contractId: cid, choice: 'Archive', choiceArgument: {} });
    expect(archived.nodes[0]).toMatchObject({ kind: 'exercise', choice: 'Archive', consuming: true, exerciseResult: {} });
    // the payload record is read once and shared by every later question about it
    const records = fake.seen.filter((r) => r.tycon.entityName === 'Token');
    expect(records.length).toBeGreaterThan(0);
    expect(new Set(records).size).toBe(1);
    expect(ledger.contracts.getActive(cid)).toBeUndefined();
  });

  it('rejects a payload that does not fit the template type as the declared templates do', () => {
    const e = ledgerError(() => submit([alice, admin], { kind: 'create', template: ref('Token'), createArguments: { holding: { owner: alice } } }));
    expect(e.code).toBe('COMMAND_PREPROCESSING_FAILED');
    expect(e.causeText).toContain('Missing non-optional field');
  });

  it('reports a false precondition on the native templates path', () => {
    fake.precondOk = false;
    const e = ledgerError(() => submit([alice, admin], { kind: 'create', template: ref('Token'), createArguments: tokenJson('1') }));
    expect(e.code).toBe('DAML_FAILURE');
    expect(e.causeText).toBe(
      `Interpretation error: Error: User failure: UNHANDLED_EXCEPTION/DA.Exception.PreconditionFailed:PreconditionFailed (error category 9): Template precondition violated: ${TT1}:${MODULE}:Token`,
    );
  });

  it('runs nested creates and exercises, authorized by the choice', () => {
    const other = createRules();
    const rules = createRules();
    fake.body = (port, cid) => {
      if (cid !== rules) return UNIT;
      expect(port.nowMicros).toBe(1_700_000_000_000_000n);
      port.create(RULES, rt.codec.toRecord(RULES, { admin }));
      return port.exerciseTemplate(RULES, other, 'Archive', ARCHIVE_ARG);
    };
    const tx = archiveRules(rules);
    expect(tx.nodes.map((n) => n.kind)).toEqual(['exercise', 'create', 'exercise']);
    expect(tx.nodes[2]).toMatchObject({ contractId: other, choice: 'Archive' });
    const created = tx.nodes[1]!;
    if (created.kind !== 'create') throw new Error('create expected');
    expect(created.contract.payload).toEqual({ admin });
  });

  it('checks the template of an exercised contract (wrongly typed contract)', () => {
    const rules = createRules();
    const token = submit([alice, admin], { kind: 'create', template: ref('Token'), createArguments: tokenJson('1') }).nodes[0]!;
    if (token.kind !== 'create') throw new Error('create expected');
    fake.body = (port, cid) => (cid === rules ? port.exerciseTemplate(RULES, token.contract.contractId, 'Archive', ARCHIVE_ARG) : UNIT);
    const e = ledgerError(() => archiveRules(rules));
    expect(e.code).toBe('DAML_INTERPRETATION_ERROR');
    expect(e.causeText).toContain('was expected to be of template');
  });

  it('rolls back the effects of a failed try block and keeps what follows', () => {
    const rules = createRules();
    fake.body = (port) => {
      try {
        port.rollbackScope(() => {
          port.create(RULES, rt.codec.toRecord(RULES, { admin }));
          throw new DamlThrow({ tag: 'anyException', type: { kind: 'con', tycon: ERROR_TYCON, args: [] }, value: UNIT }, 'boom');
        });
      } catch (e) {
        if (!(e instanceof DamlThrow)) throw e;
      }
      port.create(RULES, rt.codec.toRecord(RULES, { admin }));
      return UNIT;
    };
    const tx = ledger.commands.submit({
      userId: 'u',
      actAs: [admin, alice],
      readAs: [],
      commandId: 'c1',
      workflowId: '',
      submissionId: 's1',
      commands: [{ kind: 'exercise', template: ref('TokenRules'), contractId: rules, choice: 'Archive', choiceArgument: {} }],
      disclosedContracts: [],
    });
    expect(tx.nodes.map((n) => n.kind)).toEqual(['exercise', 'create']);
    expect(tx.nodes.map((n) => n.nodeId)).toEqual([0, 1]);
    expect(tx.nodes[0]).toMatchObject({ lastDescendantNodeId: 1 });
    const created = tx.nodes[1]!;
    if (created.kind !== 'create') throw new Error('create expected');
    expect(created.contract.payload).toEqual({ admin });
    expect(ledger.contracts.getActive(created.contract.contractId)).toBeDefined();
  });

  it('maps an exception nobody catches to UNHANDLED_EXCEPTION, and failWithStatus with its metadata', () => {
    const rules = createRules();
    fake.body = () => {
      throw new DamlThrow({ tag: 'anyException', type: { kind: 'con', tycon: ERROR_TYCON, args: [] }, value: { tag: 'record', tycon: ERROR_TYCON, fields: [], fieldNames: [] } }, 'it broke');
    };
    let e = ledgerError(() => archiveRules(rules));
    expect(e.code).toBe('DAML_FAILURE');
    expect(e.causeText).toBe('Interpretation error: Error: User failure: UNHANDLED_EXCEPTION/My.Errors:Boom (error category 9): it broke');
    fake.body = () => {
      throw new DamlFailure({ kind: 'failureStatus', errorId: 'stdlib.daml.com/deadline-exceeded', category: 9, message: 'too late', metadata: { deadline: '2026-01-01T00:00:00Z' } });
    };
    e = ledgerError(() => archiveRules(rules));
    expect(e.causeText).toBe('Interpretation error: Error: User failure: stdlib.daml.com/deadline-exceeded (error category 9): too late');
    expect(e.options.context).toEqual({ deadline: '2026-01-01T00:00:00Z', error_id: 'stdlib.daml.com/deadline-exceeded' });
  });

  it('reports unsupported features, spent budgets and evaluator bugs as DAML_INTERPRETATION_ERROR, never a server error', () => {
    const rules = createRules();
    fake.body = () => {
      throw new DamlFailure({ kind: 'unsupported', feature: 'EXTERNAL_CALL' });
    };
    let e = ledgerError(() => archiveRules(rules));
    expect(e.code).toBe('DAML_INTERPRETATION_ERROR');
    expect(e.causeText).toContain('EXTERNAL_CALL');
    fake.body = () => {
      throw new DamlFailure({ kind: 'budgetExceeded', steps: 10 });
    };
    expect(ledgerError(() => archiveRules(rules)).causeText).toContain('step budget');
    fake.body = () => {
      throw new TypeError('expected a record value, got int64');
    };
    e = ledgerError(() => archiveRules(rules));
    expect(e.code).toBe('DAML_INTERPRETATION_ERROR');
    expect(e.causeText).toContain('expected a record value');
    // a result that does not fit the choice's return type (Unit)
    fake.body = (): Value => ({ tag: 'int64', value: 1n });
    expect(ledgerError(() => archiveRules(rules)).code).toBe('DAML_INTERPRETATION_ERROR');
    // nothing was committed by the failures
    expect(ledger.contracts.getActive(rules)).toBeDefined();
  });

  it('reports a failing evaluated interface view in viewStatus, not as a failed read', () => {
    const tx = submit([alice, admin], { kind: 'create', template: ref('Token'), createArguments: tokenJson('3') });
    const node = tx.nodes[0]!;
    if (node.kind !== 'create') throw new Error('create expected');
    const holding = ledger.templates.interfaceByNameKey('splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding')!;
    const json = createdEventJson(ledger, node.contract, [alice], { blob: false, views: new Map([['h', holding]]) }, true);
    expect(json.interfaceViews).toEqual([
      {
        interfaceId: `${HOLDING_V1}:Splice.Api.Token.HoldingV1:Holding`,
        viewStatus: { code: 9, message: expect.stringContaining('views in this fake'), details: [] },
        viewValue: null,
        implementationPackageId: TT1,
      },
    ]);
  });

  it('leaves templates with a native implementation to it', () => {
    const other = new LedgerEngine({ seed: 'native' });
    const rt2 = new DamlRuntime({ decode: (id) => typesOnlyPackage(other.packages.get(id)!), createEngine: () => fake });
    installDamlTemplates(other, rt2, { nativePackageIds: new Set([TT1]) });
    other.packages.uploadDar(readFileSync(new URL('splice-test-token-v1-1.0.0.dar', SHARED_DARS_URL)));
    expect(other.templates.templateByNameKey(`splice-test-token-v1:${MODULE}:Token`)).toBeUndefined();
    // its interfaces (other packages of the DAR) are registered
    expect(other.templates.interfaceByNameKey('splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding')).toBeDefined();
  });
});

