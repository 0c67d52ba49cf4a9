/**
 * TestTokenV1 templates: registration, payload normalisation, ensure clauses, signatories and
 * the mint / rules helpers (Splice `TestTokenV1.daml`, `TestTokenV1_RegistryV1.daml`).
 */
import { describe, expect, it } from 'vitest';
import {
  TEST_TOKEN_V1_PACKAGE_ID,
  TestTokenV1Ids,
  type TokenPayload,
  createTestTokenV1Rules,
  mintTestTokenV1,
  registerTestTokenV1,
  testTokenV1TemplateId,
} from '../../../../../src/emulator/templates/test-token-v1/index.js';
import { LedgerEngine } from '../../../../../src/emulator/participant/engine.js';
import { nameKey } from '../../../../../src/emulator/participant/types.js';
import { TS } from '../../../../../src/emulator/templates/token-standard.js';
import { HOLDING_V1, TOKEN, TOKEN_RULES } from './tt1-client.js';
import { inProcess, mint, setupWorld } from './tt1-scenario.js';
import { createdOf } from '../wire.js';

describe('TestTokenV1 registration', () => {
  it('registers the four templates under the real package id, idempotently', () => {
    const engine = new LedgerEngine({ seed: 'x' });
    registerTestTokenV1(engine.templates);
    registerTestTokenV1(engine.templates);
    for (const id of Object.values(TestTokenV1Ids)) {
      const def = engine.templates.templateById(id);
      expect(def?.id.packageId).toBe(TEST_TOKEN_V1_PACKAGE_ID);
      expect(def?.id.packageName).toBe('splice-test-token-v1');
    }
    // each template is listed once as an implementor
    const holders = engine.templates.implementorsOf(nameKey(TS.HoldingV1.id)).map((d) => d.id.entityName);
    expect(holders).toEqual(['Token', 'TokenTransferOffer', 'TokenAllocation']);
    expect(engine.templates.implementorsOf(nameKey(TS.TransferFactoryV1.id)).map((d) => d.id.entityName)).toEqual(['TokenRules']);
    expect(engine.templates.implementorsOf(nameKey(TS.AllocationFactoryV1.id)).map((d) => d.id.entityName)).toEqual(['TokenRules']);
    expect(engine.templates.implementorsOf(nameKey(TS.AllocationInstructionV1.id))).toEqual([]);
    expect(testTokenV1TemplateId('Token')).toBe('#splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:Token');
  });
});

describe('TestTokenV1 mint and rules helpers', () => {
  it('mints through the command service: a Token signed by owner and admin, visible as a V1 holding', async () => {
    const { engine, client } = inProcess();
    const w = await setupWorld(client, engine);
    const before = engine.ledgerEnd();
    const cid = mintTestTokenV1(engine, { admin: w.admin, owner: w.alice, instrumentId: 'X1', amount: '1000' });
    expect(engine.ledgerEnd()).toBe(before + 1);
    const c = engine.contracts.getActive(cid)!;
    expect(c.signatories).toEqual([w.alice, w.admin].sort());
    expect(c.observers).toEqual([]);
    expect(c.payload).toEqual({
      holding: { owner: w.alice, instrumentId: { admin: w.admin, id: 'X1' }, amount: '1000.0000000000', lock: null, meta: { values: {} } },
    });
    const hs = await client.holdings(w.alice);
    expect(hs).toEqual([{ contractId: cid, templateId: `${TEST_TOKEN_V1_PACKAGE_ID}:Splice.Testing.Tokens.TestTokenV1:Token`, view: (c.payload as TokenPayload).holding }]);
  });

  it('creates TokenRules signed by the admin only, with no observers', async () => {
    const { engine, client } = inProcess();
    const w = await setupWorld(client, engine);
    const rules = engine.contracts.getActive(w.rulesCid)!;
    expect(rules.payload).toEqual({ admin: w.admin });
    expect(rules.signatories).toEqual([w.admin]);
    expect(rules.observers).toEqual([]);
    // a second one is a separate contract (the registry then refuses to pick: "Multiple…")
    expect(createTestTokenV1Rules(engine, w.admin)).not.toBe(w.rulesCid);
  });
});

describe('TestTokenV1 payloads over the JSON API', () => {
  it('normalises a Token create (Decimal scale, optional fields) and needs owner and admin', async () => {
    const { engine, client } = inProcess();
    const w = await setupWorld(client, engine);
    const holding = { owner: w.alice, instrumentId: { admin: w.admin, id: 'X1' }, amount: '10', lock: null, meta: { values: {} } };
    const denied = await client.submit([w.alice], [{ CreateCommand: { templateId: TOKEN, createArguments: { holding } } }]);
    expect(denied.status).toBe(400);
    expect(denied.error.code).toBe('DAML_AUTHORIZATION_ERROR');
    const ok = await client.submit([w.alice, w.admin], [{ CreateCommand: { templateId: TOKEN, createArguments: { holding: { ...holding, lock: undefined } } } }]);
    expect(ok.status).toBe(200);
    const created = createdOf(ok.transaction.events[0]).createArgument as TokenPayload;
    expect(created.holding.amount).toBe('10.0000000000');
    expect(created.holding.lock).toBeNull();
  });

  it('rejects malformed payloads with COMMAND_PREPROCESSING_FAILED and changes nothing', async () => {
    const { engine, client } = inProcess();
    const w = await setupWorld(client, engine);
    const end = engine.ledgerEnd();
    const bad = [
      { holding: { owner: w.alice, instrumentId: { admin: w.admin }, amount: '1', lock: null, meta: { values: {} } } },
      { holding: { owner: w.alice, instrumentId: { admin: w.admin, id: 'X1' }, amount: '1', lock: null } },
      { holding: { owner: w.alice, instrumentId: { admin: w.admin, id: 'X1' }, amount: '0.00000000001', lock: null, meta: { values: {} } } },
      {},
    ];
    for (const createArguments of bad) {
      const r = await client.submit([w.alice, w.admin], [{ CreateCommand: { templateId: TOKEN, createArguments } }]);
      expect(r.status, JSON.stringify(createArguments)).toBe(400);
      expect(r.error.code).toBe('COMMAND_PREPROCESSING_FAILED');
    }
    // a Numeric text the Ledger API's validation cannot read is rejected before the template sees it
    const unreadable = { holding: { owner: w.alice, instrumentId: { admin: w.admin, id: 'X1' }, amount: 'ten', lock: null, meta: { values: {} } } };
    const ten = await client.submit([w.alice, w.admin], [{ CreateCommand: { templateId: TOKEN, createArguments: unreadable } }]);
    expect([ten.status, ten.error.code, ten.error.cause]).toEqual([400, 'INVALID_ARGUMENT', 'The submitted request has invalid arguments: Could not read Numeric string "ten"']);
    const missing = await client.submit([w.admin], [{ CreateCommand: { templateId: TOKEN_RULES, createArguments: {} } }]);
    expect(missing.error.code).toBe('COMMAND_PREPROCESSING_FAILED');
    expect(missing.error.cause).toContain('Missing non-optional field: admin');
    expect(engine.ledgerEnd()).toBe(end);
  });

  it('enforces the Token ensure clause: positive amount, no lock', async () => {
    const { engine, client } = inProcess();
    const w = await setupWorld(client, engine);
    const base = { owner: w.alice, instrumentId: { admin: w.admin, id: 'X1' }, amount: '1', lock: null, meta: { values: {} } };
    const zero = await client.submit([w.alice, w.admin], [{ CreateCommand: { templateId: TOKEN, createArguments: { holding: { ...base, amount: '0' } } } }]);
    expect(zero.error.code).toBe('DAML_FAILURE');
    expect(zero.error.cause).toContain('PreconditionFailed');
    const lock = { holders: [w.admin], expiresAt: null, expiresAfter: null, context: null };
    const locked = await client.submit([w.alice, w.admin], [{ CreateCommand: { templateId: TOKEN, createArguments: { holding: { ...base, lock } } } }]);
    expect(locked.error.code).toBe('DAML_FAILURE');
  });

  it('shows the Holding interface view through an InterfaceFilter', async () => {
    const { engine, client } = inProcess();
    const w = await setupWorld(client, engine);
    mint(engine, w, w.alice, '5');
    const rows = await client.acs(w.alice, { InterfaceFilter: { value: { interfaceId: HOLDING_V1, includeInterfaceView: true, includeCreatedEventBlob: false } } });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.createdEvent.interfaceViews[0]).toMatchObject({
      interfaceId: '718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b:Splice.Api.Token.HoldingV1:Holding',
      viewStatus: { code: 0 },
      viewValue: { owner: w.alice, amount: '5.0000000000', lock: null },
    });
  });
});

describe('TestTokenV1 Daml show (for failure messages)', () => {
  it('prints Decimal unscaled, Time as ISO_INSTANT, records and optionals like derived Show', async () => {
    const v = await import('../../../../../src/emulator/templates/test-token-v1/values.js');
    expect(v.showDecimal(100n * 10n ** 10n)).toBe('100.0');
    expect(v.showDecimal(5n * 10n ** 9n)).toBe('0.5');
    expect(v.showDecimal(-15n * 10n ** 9n)).toBe('-1.5');
    expect(v.showDecimal(1n)).toBe('0.0000000001');
    expect(v.showTimeText('2026-03-01T12:00:00.5Z')).toBe('2026-03-01T12:00:00.500Z');
    expect(v.showInstrumentId({ admin: 'a::1', id: 'X1' })).toBe(`InstrumentId {admin = 'a::1', id = "X1"}`);
    const lock = { holders: ['a::1', 'b::2'], expiresAt: null, expiresAfter: { microseconds: '5' }, context: null };
    expect(v.showOptional(lock, v.showLock, false)).toBe(`Some (Lock {holders = ['a::1','b::2'], expiresAt = None, expiresAfter = Some (RelTime {microseconds = 5}), context = None})`);
    expect(v.showOptional(null, v.showLock, false)).toBe('None');
  });
});

describe('TestTokenV1 interface Archive', () => {
  it('archives a Token through the HoldingV1 interface (owner and admin)', async () => {
    const { engine, client } = inProcess();
    const w = await setupWorld(client, engine);
    const cid = mint(engine, w, w.alice, '5');
    const archive = { ExerciseCommand: { templateId: HOLDING_V1, contractId: cid, choice: 'Archive', choiceArgument: {} } };
    expect((await client.submit([w.alice], [archive])).error.code).toBe('DAML_AUTHORIZATION_ERROR');
    const r = await client.submit([w.alice, w.admin], [archive]);
    expect(r.status).toBe(200);
    expect(r.transaction.events[0]!.ExercisedEvent).toMatchObject({ choice: 'Archive', consuming: true, interfaceId: expect.stringContaining(':Splice.Api.Token.HoldingV1:Holding') });
    expect(await client.holdings(w.alice)).toEqual([]);
  });
});
