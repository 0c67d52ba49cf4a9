/**
 * Evaluated Daml code meets a contract of a NATIVE template through an interface: the trading
 * app's OTCTrade_Settle (Splice.Testing.Apps.TradingApp) fetches each allocation as an
 * `Allocation` and takes its view, while the allocation's template (Amulet, the test tokens) is
 * implemented in TypeScript and its package is not evaluated. The ledger port then hands the
 * evaluator an interface value that carries the native view, signatories and observers
 * (lf-value/runtime-value.ts, ForeignContract), and the evaluator answers `view_interface` from it.
 *
 * Ledger side with the real decoder and a fake engine body (the trading app's DAR uploaded next
 * to a native TestTokenV1); evaluator side with the real Evaluator and no packages at all.
 */
import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import type { TypeConRef } from '../../../../src/emulator/daml-lf/ast.js';
import { decodeDamlPackage } from '../../../../src/emulator/daml-lf/decode/index.js';
import { Evaluator } from '../../../../src/emulator/daml-lf/evaluator.js';
import { DamlRuntime } from '../../../../src/emulator/daml-lf-bridge/daml-runtime.js';
import { installDamlTemplates } from '../../../../src/emulator/daml-lf-bridge/install.js';
import { DamlFailure, type DamlEngine, type LedgerPort } from '../../../../src/emulator/daml-lf/runtime.js';
import { UNIT, type RecordV, type Value } from '../../../../src/emulator/lf-value/runtime-value.js';
import { ManualClock } from '../../../../src/canton/clock.js';
import { LedgerEngine } from '../../../../src/emulator/participant/engine.js';
import { mintTestTokenV1, registerTestTokenV1 } from '../../../../src/emulator/templates/test-token-v1/index.js';
import { TestTokenV1Ids } from '../../../../src/emulator/templates/test-token-v1/templates.js';
import { SHARED_DARS_URL } from '../../../support/shared-dars.js';

const HOLDING: TypeConRef = { packageId: '718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b', moduleName: 'Splice.Api.Token.HoldingV1', entityName: 'Holding' };
const TRADING = { package: { name: 'splice-token-test-trading-app' }, moduleName: 'Splice.Testing.Apps.TradingApp' };

/** The field `name` of a record value. */
function field(v: Value | undefined, name: string): Value | undefined {
  if (v?.tag !== 'record') return undefined;
  return v.fields[v.fieldNames.indexOf(name)];
}

/** Signatory: the venue; runs `body` for every choice. */
class ScriptedEngine implements DamlEngine {
  body: (ledger: LedgerPort) => Value = () => UNIT;
  hasTemplate(t: TypeConRef): boolean {
    return t.moduleName === TRADING.moduleName;
  }
  signatories(_t: TypeConRef, arg: RecordV): string[] {
    const venue = field(arg, 'venue');
    return venue?.tag === 'party' ? [venue.value] : [];
  }
  observers(): string[] {
    return [];
  }
  precondition(): boolean {
    return true;
  }
  key(): undefined {
    return undefined;
  }
  /** The venue and the choice's `trader` (so the body carries the token owner's authority). */
  controllers(t: TypeConRef, _c: string, arg: RecordV, choiceArg: Value): string[] {
    const trader = field(choiceArg, 'trader');
    return [...this.signatories(t, arg), ...(trader?.tag === 'party' ? [trader.value] : [])];
  }
  choiceObservers(): string[] {
    return [];
  }
  exercise(_o: TypeConRef, _c: string, _cid: string, _arg: RecordV, _a: Value, ledger: LedgerPort): Value {
    return this.body(ledger);
  }
  view(): Value {
    throw new DamlFailure({ kind: 'unsupported', feature: 'views in this fake' });
  }
}

describe('interface values of native contracts in evaluated code', () => {
  let ledger: LedgerEngine;
  let engine: ScriptedEngine;
  let admin: string;
  let alice: string;
  let venue: string;
  let tokenCid: string;
  let proposalCid: string;

  beforeEach(() => {
    ledger = new LedgerEngine({ clock: new ManualClock('2023-11-14T22:13:20Z'), seed: 'native-interface' });
    registerTestTokenV1(ledger.templates);
    engine = new ScriptedEngine();
    const rt = new DamlRuntime({ decode: decodeDamlPackage, createEngine: () => engine });
    installDamlTemplates(ledger, rt, { nativePackageIds: new Set([TestTokenV1Ids.Token.packageId]) });
    ledger.packages.uploadDar(readFileSync(new URL('splice-token-test-trading-app-1.0.0.dar', SHARED_DARS_URL)));
    admin = ledger.parties.allocate('admin').party;
    alice = ledger.parties.allocate('alice').party;
    venue = ledger.parties.allocate('venue').party;
    tokenCid = mintTestTokenV1(ledger, { admin, owner: alice, instrumentId: 'TT1', amount: '12.5' });
    const tx = ledger.commands.submit({
      userId: 'u',
      actAs: [venue],
      readAs: [],
      commandId: ledger.ids.uuid(),
      workflowId: '',
      submissionId: ledger.ids.uuid(),
      commands: [{ kind: 'create', template: { ...TRADING, entityName: 'OTCTradeProposal' }, createArguments: { venue, tradeCid: null, transferLegs: {}, approvers: [] } }],
      disclosedContracts: [],
    });
    const n = tx.nodes[0]!;
    if (n.kind !== 'create') throw new Error('create expected');
    proposalCid = n.contract.contractId;
  });

  /** Runs `body` as the venue's OTCTradeProposal_Reject (alice and admin read along, so the token is visible). */
  function run(body: (ledger: LedgerPort) => Value) {
    engine.body = body;
    return ledger.commands.submit({
      userId: 'u',
      actAs: [venue, alice, admin],
      readAs: [],
      commandId: ledger.ids.uuid(),
      workflowId: '',
      submissionId: ledger.ids.uuid(),
      commands: [{ kind: 'exercise', template: { ...TRADING, entityName: 'OTCTradeProposal' }, contractId: proposalCid, choice: 'OTCTradeProposal_Reject', choiceArgument: { trader: alice } }],
      disclosedContracts: [],
    });
  }

  it('fetch_interface of a native contract gives an interface value carrying its native view, signatories and observers', () => {
    let fetched: RecordV | undefined;
    run((port) => {
      fetched = port.fetchInterface(HOLDING, tokenCid);
      return UNIT;
    });
    expect(fetched?.tycon).toMatchObject({ moduleName: 'Splice.Testing.Tokens.TestTokenV1', entityName: 'Token' });
    expect(fetched?.fields).toEqual([]);
    const foreign = fetched!.foreign!;
    expect(foreign.implements(HOLDING)).toBe(true);
    expect(foreign.implements({ ...HOLDING, moduleName: 'Splice.Api.Token.AllocationV1', entityName: 'Allocation' })).toBe(false);
    expect([...foreign.signatories].sort()).toEqual([admin, alice].sort());
    // The view is a HoldingView value of the interface's package, converted from the native JSON.
    const view = foreign.view(HOLDING);
    expect(view).toMatchObject({ tag: 'record', tycon: { packageId: HOLDING.packageId, entityName: 'HoldingView' } });
    expect(field(view, 'owner')).toEqual({ tag: 'party', value: alice });
    expect(field(view, 'amount')).toEqual({ tag: 'numeric', scale: 10, unscaled: 125_000_000_000n });
    expect(field(field(view, 'instrumentId'), 'id')).toEqual({ tag: 'text', value: 'TT1' });
    // A fetch does not consume: the token is still active.
    expect(ledger.contracts.getActive(tokenCid)).toBeDefined();
  });

  it("the evaluator answers view_interface from the ledger's view, and refuses an interface the template does not implement", () => {
    let fetched: RecordV | undefined;
    run((port) => {
      fetched = port.fetchInterface(HOLDING, tokenCid);
      return UNIT;
    });
    const evaluator = new Evaluator({ get: () => undefined }, { builtins: () => { throw new Error('no builtins needed'); } });
    expect(evaluator.view(HOLDING, fetched!)).toEqual(fetched!.foreign!.view(HOLDING));
    expect(() => evaluator.view({ ...HOLDING, entityName: 'Other' }, fetched!)).toThrow(DamlFailure);
  });
});
