import { describe, expect, it } from 'vitest';
import { TEST_TOKEN_V2_PACKAGE_ID, registerTestTokenV2 } from '../../../../../src/emulator/templates/test-token-v2/index.js';
import type { TokenPayload } from '../../../../../src/emulator/templates/test-token-v2/holding.js';
import {
  accountFromMeta,
  accountParties,
  availableToPendingActions,
  downcastSettlementInfo,
  downcastTransfer,
  mintAccount,
  SPECIAL_ACCOUNT_OWNER_STUB_V1,
  upcastSettlementInfo,
  upcastTransfer,
} from '../../../../../src/emulator/templates/test-token-v2/utils.js';
import { action, showAccount, showDecimal } from '../../../../../src/emulator/templates/test-token-v2/values.js';
import { LedgerEngine } from '../../../../../src/emulator/participant/engine.js';
import { basic, create, exercise, IFACE, TT2 } from './client.js';
import { tt2Ledger } from './fixture.js';
import { createdOf } from '../wire.js';
import { interfaceView } from '../../../../support/ledger-wire.js';

describe('TestTokenV2 templates', () => {
  it('registers under the real package id, idempotently', () => {
    const engine = new LedgerEngine({ seed: 'x' });
    registerTestTokenV2(engine.templates);
    registerTestTokenV2(engine.templates);
    expect(engine.templates.packageIdsOf('splice-test-token-v2')).toEqual(new Set([TEST_TOKEN_V2_PACKAGE_ID]));
    const holdingImpls = engine.templates.implementorsOf('splice-api-token-holding-v2:Splice.Api.Token.HoldingV2:Holding');
    expect(holdingImpls.map((t) => t.id.entityName)).toEqual(['Token']);
  });

  it('normalises create arguments and rejects malformed ones without changing the ledger', async () => {
    const l = tt2Ledger();
    const holding = (amount: unknown, owner: string | null = l.alice) => ({
      holding: { account: { owner, provider: null, id: '' }, instrumentId: { admin: l.admin, id: 'X2' }, amount, lock: null, meta: { values: {} } },
    });
    const ok = await l.client.ok([l.admin, l.alice], [create(TT2.Token, holding('10'))]);
    const ev = createdOf(ok.events[0]);
    expect(ev.templateId).toBe(`${TEST_TOKEN_V2_PACKAGE_ID}:Splice.Testing.Tokens.TestTokenV2.Holding:Token`);
    expect((ev.createArgument as TokenPayload).holding.amount).toBe('10.0000000000');
    expect(ev.signatories.sort()).toEqual([l.admin, l.alice].sort());
    const end = await l.client.ledgerEnd();
    expect((await l.client.submit([l.admin, l.alice], [create(TT2.Token, holding('0'))])).error.code).toBe('DAML_FAILURE');
    expect((await l.client.submit([l.admin], [create(TT2.Token, holding('5', null))])).error.code).toBe('DAML_FAILURE');
    expect((await l.client.submit([l.admin, l.alice], [create(TT2.Token, holding('abc'))])).error.code).toBe('INVALID_ARGUMENT');
    expect((await l.client.submit([l.admin, l.alice], [create(TT2.Token, holding('0.00000000001'))])).error.code).toBe('COMMAND_PREPROCESSING_FAILED');
    const extra = await l.client.submit([l.admin, l.alice], [create(TT2.Token, { ...holding('1'), foo: 1 })]);
    expect(extra.error.code).toBe('INVALID_ARGUMENT');
    expect(extra.error.cause).toBe('The submitted request has invalid arguments: Unexpected fields: foo');
    const missing = await l.client.submit([l.admin, l.alice], [create(TT2.Token, { holding: { account: basic(l.alice), amount: '1', lock: null, meta: { values: {} } } })]);
    expect(missing.error.cause).toContain('Missing non-optional field: instrumentId');
    // a holding needs the owner's authority too
    expect((await l.client.submit([l.admin], [create(TT2.Token, holding('1'))])).error.code).toBe('DAML_AUTHORIZATION_ERROR');
    expect(await l.client.ledgerEnd()).toBe(end);
  });

  it('serves the factory views and public fetches of TokenRules', async () => {
    const l = tt2Ledger();
    const rulesD = await l.client.disclosed(l.admin, l.rules);
    const expected = { admin: l.admin, meta: { values: {} } };
    for (const [iface, arg] of [
      [IFACE.TransferFactoryV2, { actors: [l.alice] }],
      [IFACE.AllocationFactoryV2, { actors: [l.alice] }],
      [IFACE.SettlementFactoryV2, { actors: [l.alice] }],
      [IFACE.TransferFactoryV1, { expectedAdmin: l.admin, actor: l.alice }],
      [IFACE.AllocationFactoryV1, { expectedAdmin: l.admin, actor: l.alice }],
    ] as const) {
      const choice = iface.includes('Settlement') ? 'SettlementFactory_PublicFetch' : iface.includes('Allocation') ? 'AllocationFactory_PublicFetch' : 'TransferFactory_PublicFetch';
      const r = await l.client.ok([l.alice], [exercise(iface, l.rules, choice, arg)], [rulesD]);
      expect(r.result).toEqual(expected);
    }
    const views = await l.client.acs(l.admin, { InterfaceFilter: { value: { interfaceId: IFACE.EventLogV2, includeInterfaceView: true } } });
    expect(views.map((v) => interfaceView(v))).toEqual([expected]);
    // the EventLog choice is the admin's only
    const ev = await l.client.submit([l.alice], [
      exercise(IFACE.EventLogV2, l.rules, 'EventLog_HoldingsChange', {
        admin: l.alice,
        account: basic(l.alice),
        inputHoldingCids: [],
        transferLegSides: [],
        outputHoldingCids: [],
        observers: [],
        extraArgs: { context: { values: {} }, meta: { values: {} } },
      }),
    ], [rulesD]);
    expect(ev.error.cause).toContain("'admin' is not equal to 'expected value'");
  });
});

describe('TestTokenV2 conversions (Splice.TokenStandard.Utils)', () => {
  const alice = 'alice::1220aa';
  const bank = 'bank::1220bb';
  it('shows accounts and decimals like Daml', () => {
    expect(showAccount({ owner: alice, provider: null, id: '' })).toBe(`Account {owner = Some '${alice}', provider = None, id = ""}`);
    expect(showDecimal('10.0000000000')).toBe('10.0');
    expect(showDecimal('0.2500000000')).toBe('0.25');
  });

  it('round-trips transfers and settlement infos through the V1 shapes', () => {
    const t = {
      sender: { owner: alice, provider: bank, id: 'a1' },
      receiver: basic('bob::1220cc'),
      amount: '1.0000000000',
      instrumentId: { admin: 'adm::1220dd', id: 'X2' },
      requestedAt: '2026-01-01T00:00:00Z',
      executeBefore: '2026-01-02T00:00:00Z',
      inputHoldingCids: [],
      meta: { values: { k: 'v' } },
    };
    const v1 = downcastTransfer(t);
    expect(v1.sender).toBe(alice);
    expect(v1.meta.values).toEqual({ 'cip-112/sender.id': 'a1', 'cip-112/sender.provider': bank, k: 'v' });
    expect(upcastTransfer(v1)).toEqual(t);
    expect(accountFromMeta(SPECIAL_ACCOUNT_OWNER_STUB_V1, 'sender', { values: { 'cip-112/sender.id': 'cip-112/mint' } })).toEqual(mintAccount());
    const s = { executors: ['e1::1', 'e2::2'], id: 's', cid: null, meta: { values: {} } };
    const s1 = downcastSettlementInfo('2026-01-01T00:00:00Z', null, null, s)!;
    expect(s1).toMatchObject({ executor: 'e1::1', settleBefore: '9999-12-31T23:59:59.999999Z', allocateBefore: '9999-12-31T23:59:59.999999Z' });
    expect(s1.meta.values['cip-112/extra-executors']).toBe('e2::2');
    expect(upcastSettlementInfo(s1)).toEqual(s);
    expect(accountParties('adm', mintAccount())).toEqual(['adm']);
  });

  it('reports pending actions for V1 views', () => {
    expect(
      availableToPendingActions((tag) => tag.replace('TIA_', '').toLowerCase(), [
        [action('TIA_Accept'), [[bank], [alice, bank]]],
        [action('TIA_Withdraw'), [[alice]]],
      ]),
    ).toEqual([
      [alice, 'joint-accept or withdraw'],
      [bank, 'accept or joint-accept'],
    ]);
  });
});
