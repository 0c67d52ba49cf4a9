/**
 * The emulated example test-token registry of the wallet repository (canton-network/wallet
 * `examples/test-token-v1-registry`) over real loopback HTTP, started by startStack on a free
 * port (`exampleRegistryPort: 0`):
 *  - its metadata: the three instruments and the info exactly as the example answers them;
 *  - `POST /admin/v2/offer-mint`: the offer, the receiver's accept with the registry's V2 accept
 *    context, and bad input (a 400 `{"error": ...}` that changes nothing);
 *  - the V2 factories' contexts (`testTokenV2/tokenRules` only, TokenRules disclosed), the
 *    settlement factory also disclosing the allocations and their locked holdings, used by the
 *    executor's `SettlementFactory_SettleBatch`.
 * Every registry answer is validated against the official token-standard OpenAPI files.
 */
import { AssertionError } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type RunningStack } from '../../../src/stack.js';
import { SPECS, createSpecValidator, type SpecValidator } from '../../support/openapi-conformance.js';
import { basic, exercise, IFACE, LedgerClient, TT2, type Disclosed } from '../../unit/emulator/templates/test-token-v2/client.js';

const meta = { values: {} };
const at = (ms: number) => new Date(Date.now() + ms).toISOString();

const V1_APIS = {
  'splice-api-token-metadata-v1': 1,
  'splice-api-token-transfer-instruction-v1': 1,
  'splice-api-token-allocation-v1': 1,
  'splice-api-token-allocation-instruction-v1': 1,
};
const DUAL_APIS = {
  ...V1_APIS,
  'splice-api-token-holding-v2': 1,
  'splice-api-token-transfer-instruction-v2': 1,
  'splice-api-token-allocation-v2': 1,
  'splice-api-token-allocation-instruction-v2': 1,
  'splice-api-token-allocation-request-v2': 1,
  'splice-api-token-transfer-events-v2': 1,
};
/** The example's instruments (examples/test-token-v1-registry/src/api/metadata/common.ts). */
const INSTRUMENTS = [
  { id: 'test-token-v1', name: 'TestTokenV1', symbol: 'tt', totalSupply: '1_000_000_000', totalSupplyAsOf: '2026-07-13T09:49:23.104Z', decimals: 2, supportedApis: V1_APIS, paused: false, showAccountInputFields: false },
  { id: 'test-token-v2', name: 'TestTokenV2', symbol: 'tt2', totalSupply: '1_000_000_000', totalSupplyAsOf: '2026-07-13T09:49:23.104Z', decimals: 2, supportedApis: DUAL_APIS, paused: false, showAccountInputFields: false },
  {
    id: 'test-token-paused',
    name: 'TestTokenPaused',
    symbol: 'ttp',
    totalSupply: '0',
    totalSupplyAsOf: '2026-07-13T09:49:23.104Z',
    decimals: 2,
    supportedApis: DUAL_APIS,
    paused: true,
    pauseInfo: { reason: 'CIP-0112 solvency fixture', until: '2099-01-01T00:00:00.000Z' },
    showAccountInputFields: false,
  },
];

type SpecKey = 'tokenMetadataV1' | 'transferInstructionV2' | 'allocationInstructionV2' | 'allocationV2';
const validators: Record<SpecKey, SpecValidator> = {
  tokenMetadataV1: createSpecValidator(SPECS.tokenMetadataV1),
  transferInstructionV2: createSpecValidator(SPECS.transferInstructionV2),
  allocationInstructionV2: createSpecValidator(SPECS.allocationInstructionV2),
  allocationV2: createSpecValidator(SPECS.allocationV2),
};

interface ChoiceContext {
  choiceContextData: { values: Record<string, unknown> };
  disclosedContracts: Disclosed[];
}
interface Factory {
  factoryId: string;
  transferKind?: string;
  choiceContext: ChoiceContext;
}

describe('the example test-token registry (wallet examples/test-token-v1-registry), emulated', () => {
  let stack: RunningStack;
  let url: string;
  let operator: string;
  let alice: string;
  let bob: string;
  let executor: string;
  let ledger: LedgerClient;
  let rulesCid: string;

  /** A registry call whose answer must conform to the official file of `spec`. */
  async function registry<T>(spec: SpecKey, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const r = await fetch(`${url}${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
    const text = await r.text();
    const v = validators[spec].validateResponse({ method, path, status: r.status, contentType: r.headers.get('content-type'), body: text });
    if (!v.ok) throw new AssertionError({ message: [`${method} ${path} -> ${r.status} does not conform to ${SPECS[spec]}:`, ...v.errors, text].join('\n') });
    return { status: r.status, body: JSON.parse(text) as T };
  }

  async function offerMint(body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const r = await fetch(`${url}/admin/v2/offer-mint`, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  }

  /** The party's unlocked TestTokenV2 holdings of `instrument` (the operator's). */
  async function holdingsOf(party: string, instrument = 'test-token-v2') {
    return (await ledger.holdings(party)).filter((h) => h.view.account.owner === party && h.view.instrumentId.admin === operator && h.view.instrumentId.id === instrument && h.view.lock === null);
  }
  const sum = (hs: Array<{ view: { amount: string } }>) => hs.reduce((s, h) => s + Number(h.view.amount), 0);

  /** offer-mint, then the receiver accepts with the registry's V2 accept context. */
  async function mintTo(receiver: string, amount: string): Promise<void> {
    const offer = await offerMint({ receiver, amount });
    expect(offer.status, JSON.stringify(offer.body)).toBe(200);
    const ctx = await registry<ChoiceContext>('transferInstructionV2', 'POST', `/registry/transfer-instruction/v2/${offer.body.offerCid as string}/choice-contexts/accept`, { excludeDebugFields: true });
    await ledger.ok([receiver], [exercise(IFACE.TransferInstructionV2, offer.body.offerCid as string, 'TransferInstruction_Accept', { actors: [receiver], extraArgs: { context: ctx.body.choiceContextData, meta } })], ctx.body.disclosedContracts);
  }

  beforeAll(async () => {
    stack = await startStack({ config: { port: 0, logLevel: 'silent' }, registryPort: 0, scanPort: 0, validatorPort: 0, exampleRegistryPort: 0 });
    url = stack.exampleRegistry!.url;
    operator = stack.exampleRegistry!.admin;
    const party = (hint: string) => stack.seeded!.parties.find((p) => p.hint === hint)!.party;
    [alice, bob, executor] = [party('alice'), party('bob'), party('executor')];
    ledger = new LedgerClient((path, init) => fetch(`${stack.ledgerUrl}${path}`, init));
    rulesCid = (await ledger.acs(operator, { TemplateFilter: { value: { templateId: TT2.TokenRules, includeCreatedEventBlob: false } } }))[0]!.contractId;
  });

  afterAll(async () => {
    await stack?.close();
  });

  describe('metadata', () => {
    it("info: the operator party as adminId and the example's V1 APIs", async () => {
      const info = await registry('tokenMetadataV1', 'GET', '/registry/metadata/v1/info');
      expect(info).toEqual({ status: 200, body: { adminId: operator, supportedApis: V1_APIS } });
      expect(operator).toMatch(/^operator::1220[0-9a-f]{64}$/);
    });

    it('lists test-token-v1, test-token-v2 and test-token-paused exactly as the example does, in its order', async () => {
      const list = await registry('tokenMetadataV1', 'GET', '/registry/metadata/v1/instruments?pageSize=1');
      expect(list).toEqual({ status: 200, body: { instruments: INSTRUMENTS } });
    });

    it('answers each instrument alone, and an unknown one with the example 404', async () => {
      for (const i of INSTRUMENTS) expect(await registry('tokenMetadataV1', 'GET', `/registry/metadata/v1/instruments/${i.id}`)).toEqual({ status: 200, body: i });
      expect(await registry('tokenMetadataV1', 'GET', '/registry/metadata/v1/instruments/TT2-USD')).toEqual({ status: 404, body: { error: 'Instrument not found' } });
    });
  });

  describe('POST /admin/v2/offer-mint', () => {
    it('offers 100.0 test-token-v2 by default; the receiver accepts with the V2 accept context and holds it', async () => {
      const before = sum(await holdingsOf(bob));
      const offer = await offerMint({ receiver: bob });
      expect(offer.status).toBe(200);
      expect(Object.keys(offer.body)).toEqual(['offerCid', 'updateId', 'completionOffset']);
      expect(offer.body.completionOffset).toBe(await ledger.ledgerEnd());
      // The offer: from the mint account to bob's basic account, of the operator's test-token-v2.
      const [created] = await ledger.acs(bob, { TemplateFilter: { value: { templateId: TT2.TokenTransferOffer, includeCreatedEventBlob: false } } });
      expect(created!.contractId).toBe(offer.body.offerCid);
      expect(created!.createArgument).toMatchObject({
        mintAmount: '100.0000000000',
        transfer: { receiver: basic(bob), amount: '100.0000000000', instrumentId: { admin: operator, id: 'test-token-v2' } },
      });
      const tx = await ledger.post('/v2/updates/update-by-id', {
        updateId: offer.body.updateId,
        updateFormat: { includeTransactions: { eventFormat: { filtersByParty: { [operator]: { cumulative: [] } }, verbose: false }, transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' } },
      });
      expect(tx.status).toBe(200);
      expect(JSON.stringify(tx.body)).toContain('TokenRules_OfferMint');

      const ctx = await registry<ChoiceContext>('transferInstructionV2', 'POST', `/registry/transfer-instruction/v2/${offer.body.offerCid as string}/choice-contexts/accept`, { excludeDebugFields: true });
      expect(ctx.body.choiceContextData).toEqual({ values: { 'testTokenV2/tokenRules': { tag: 'AV_ContractId', value: rulesCid } } });
      expect(ctx.body.disclosedContracts.map((d) => d.contractId)).toEqual([rulesCid]);
      const accepted = await ledger.ok<{ output: { tag: string } }>(
        [bob],
        [exercise(IFACE.TransferInstructionV2, offer.body.offerCid as string, 'TransferInstruction_Accept', { actors: [bob], extraArgs: { context: ctx.body.choiceContextData, meta } })],
        ctx.body.disclosedContracts,
      );
      expect(accepted.result.output.tag).toBe('TransferInstructionResult_Completed');
      expect(sum(await holdingsOf(bob))).toBe(before + 100);
    });

    it('mints the amount and instrument given', async () => {
      const offer = await offerMint({ receiver: alice, amount: '12.5', instrumentId: 'test-token-paused' });
      expect(offer.status).toBe(200);
      const [created] = (await ledger.acs(alice, { TemplateFilter: { value: { templateId: TT2.TokenTransferOffer, includeCreatedEventBlob: false } } })).filter((c) => c.contractId === offer.body.offerCid);
      expect(created!.createArgument).toMatchObject({ mintAmount: '12.5000000000', transfer: { instrumentId: { admin: operator, id: 'test-token-paused' } } });
    });

    it.each([
      ['no receiver', {}, 'receiver party is required'],
      ['an empty receiver', { receiver: '' }, 'receiver party is required'],
      ['a null receiver', { receiver: null, amount: '5' }, 'receiver party is required'],
      ['a JSON array', '[1]', 'receiver party is required'],
      ['an empty body', '', 'receiver party is required'],
      ['a receiver that is no text', { receiver: 42 }, /^receiver must be a party id/],
      ['a receiver unknown to the ledger', { receiver: 'mallory::1220aa' }, /Parties not known on ledger/],
      ['a negative amount', { receiver: 'ALICE', amount: '-1' }, /^amount must be a decimal/],
      ['a zero amount', { receiver: 'ALICE', amount: '0.0' }, /^amount must be positive/],
      ['11 decimal places', { receiver: 'ALICE', amount: '1.00000000001' }, /^amount must be a decimal/],
      ['an amount that is no decimal', { receiver: 'ALICE', amount: 'lots' }, /^amount must be a decimal/],
      ['an empty instrumentId', { receiver: 'ALICE', instrumentId: '' }, /^instrumentId must be a non-empty text/],
      ['an instrumentId that is no text', { receiver: 'ALICE', instrumentId: { id: 'x' } }, /^instrumentId must be a non-empty text/],
      ['malformed JSON', '{"receiver": ', /^The request body is not valid JSON/],
    ])('%s: 400 {"error": ...}, and nothing changes', async (_what, body, error) => {
      const input = typeof body === 'object' && 'receiver' in body && body.receiver === 'ALICE' ? { ...body, receiver: alice } : body;
      const end = await ledger.ledgerEnd();
      const r = await offerMint(input);
      expect(r.status).toBe(400);
      expect(Object.keys(r.body)).toEqual(['error']);
      if (typeof error === 'string') expect(r.body.error).toBe(error);
      else expect(r.body.error).toMatch(error);
      expect(await ledger.ledgerEnd()).toBe(end);
    });
  });

  describe('the V2 factories', () => {
    const tokenRulesOnly = () => ({ values: { 'testTokenV2/tokenRules': { tag: 'AV_ContractId', value: rulesCid } } });

    it('transfer-factory and allocation-factory: TokenRules, with the context testTokenV2/tokenRules and TokenRules disclosed', async () => {
      await mintTo(alice, '50');
      const inputs = (await holdingsOf(alice)).map((h) => h.contractId);
      const transfer = await registry<Factory>('transferInstructionV2', 'POST', '/registry/transfer-instruction/v2/transfer-factory', {
        choiceArguments: {
          expectedAdmin: operator,
          transfer: { sender: basic(alice), receiver: basic(bob), amount: '1.0', instrumentId: { admin: operator, id: 'test-token-v2' }, requestedAt: at(-1000), executeBefore: at(3_600_000), inputHoldingCids: inputs, meta },
          actors: [alice],
          extraArgs: { context: { values: {} }, meta },
        },
        excludeDebugFields: true,
      });
      expect(transfer.status).toBe(200);
      expect(transfer.body.factoryId).toBe(rulesCid);
      expect(transfer.body.transferKind).toBe('offer');
      expect(transfer.body.choiceContext.choiceContextData).toEqual(tokenRulesOnly());
      expect(transfer.body.choiceContext.disclosedContracts).toEqual([
        { templateId: expect.stringMatching(/:Splice\.Testing\.Tokens\.TestTokenV2:TokenRules$/), contractId: rulesCid, createdEventBlob: expect.any(String), synchronizerId: stack.engine.synchronizerId },
      ]);

      const allocation = await registry<Factory>('allocationInstructionV2', 'POST', '/registry/allocation-instruction/v2/allocation-factory', {
        choiceArguments: allocateArgs(alice, 'SenderSide', inputs),
        excludeDebugFields: true,
      });
      expect(allocation.status).toBe(200);
      expect(allocation.body.factoryId).toBe(rulesCid);
      expect(allocation.body.choiceContext.choiceContextData).toEqual(tokenRulesOnly());
      expect(allocation.body.choiceContext.disclosedContracts.map((d) => d.contractId)).toEqual([rulesCid]);
    });

    it('settlement-factory: also discloses the allocations named and their locked holdings; the executor settles with it', async () => {
      const inputs = (await holdingsOf(alice)).map((h) => h.contractId);
      const bobBefore = sum(await holdingsOf(bob));
      const allocate = async (who: string, side: 'SenderSide' | 'ReceiverSide', holdings: string[]) => {
        const args = allocateArgs(who, side, holdings);
        const f = await registry<Factory>('allocationInstructionV2', 'POST', '/registry/allocation-instruction/v2/allocation-factory', { choiceArguments: args, excludeDebugFields: true });
        const r = await ledger.ok<{ output: { tag: string; value: { allocationCid: string } } }>(
          [who],
          [exercise(IFACE.AllocationFactoryV2, f.body.factoryId, 'AllocationFactory_Allocate', { ...args, extraArgs: { context: f.body.choiceContext.choiceContextData, meta } })],
          f.body.choiceContext.disclosedContracts,
        );
        expect(r.result.output.tag).toBe('AllocationInstructionResult_Completed');
        return r.result.output.value.allocationCid;
      };
      const aliceAllocation = await allocate(alice, 'SenderSide', inputs);
      const bobAllocation = await allocate(bob, 'ReceiverSide', []);
      const locked = (await ledger.holdings(alice)).filter((h) => h.view.lock !== null && h.view.instrumentId.id === 'test-token-v2').map((h) => h.contractId);
      expect(locked).toHaveLength(1);

      const settleArgs = {
        settlement: SETTLEMENT(executor),
        transferLegs: [{ transferLegId: 'leg-1', sender: basic(alice), receiver: basic(bob), amount: '20.0', instrumentId: 'test-token-v2', meta }],
        allocations: [aliceAllocation, bobAllocation].map((allocationCid) => ({ allocationCid, extraTransferLegSides: [], nextIterationFunding: null })),
        actors: [executor],
        extraArgs: { context: { values: {} }, meta },
      };
      const settle = await registry<Factory>('allocationV2', 'POST', '/registry/allocation/v2/settlement-factory', { choiceArguments: settleArgs, excludeDebugFields: true });
      expect(settle.status).toBe(200);
      expect(settle.body.factoryId).toBe(rulesCid);
      expect(settle.body.choiceContext.choiceContextData).toEqual(tokenRulesOnly());
      expect(settle.body.choiceContext.disclosedContracts.map((d) => d.contractId)).toEqual([rulesCid, aliceAllocation, bobAllocation, ...locked]);
      expect(settle.body.choiceContext.disclosedContracts[1]!.templateId).toMatch(/:Splice\.Testing\.Tokens\.TestTokenV2\.Allocation:TokenAllocationV2$/);

      // The executor, no stakeholder of the locked holdings, settles with exactly that context.
      const settled = await ledger.ok<{ allocationSettleResults: Array<{ output: { tag: string } }> }>(
        [executor],
        [exercise(IFACE.SettlementFactoryV2, settle.body.factoryId, 'SettlementFactory_SettleBatch', { ...settleArgs, extraArgs: { context: settle.body.choiceContext.choiceContextData, meta } })],
        settle.body.choiceContext.disclosedContracts,
      );
      expect(settled.result.allocationSettleResults.map((r) => r.output.tag)).toEqual(['AllocationResult_Settled', 'AllocationResult_Settled']);
      expect(sum(await holdingsOf(bob))).toBe(bobBefore + 20);
    });

    it('settlement-factory refuses an allocation that is not there (404), and an id that is none (400)', async () => {
      const args = (cid: string) => ({
        settlement: SETTLEMENT(executor),
        transferLegs: [{ transferLegId: 'leg-1', sender: basic(alice), receiver: basic(bob), amount: '1.0', instrumentId: 'test-token-v2', meta }],
        allocations: [{ allocationCid: cid, extraTransferLegSides: [], nextIterationFunding: null }],
        actors: [executor],
        extraArgs: { context: { values: {} }, meta },
      });
      const missing = await registry<{ error: string }>('allocationV2', 'POST', '/registry/allocation/v2/settlement-factory', { choiceArguments: args(`00${'ab'.repeat(32)}`) });
      expect(missing.status, JSON.stringify(missing.body)).toBe(404);
      const bad = await registry<{ error: string }>('allocationV2', 'POST', '/registry/allocation/v2/settlement-factory', { choiceArguments: args('not-a-cid') });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/not a contract id/);
    });

    function allocateArgs(who: string, side: 'SenderSide' | 'ReceiverSide', inputs: string[]) {
      const other = basic(side === 'SenderSide' ? bob : alice);
      return {
        settlement: SETTLEMENT(executor),
        allocation: {
          admin: operator,
          authorizer: basic(who),
          transferLegSides: [{ transferLegId: 'leg-1', side, otherside: other, amount: '20.0', instrumentId: 'test-token-v2', meta }],
          settlementDeadline: at(3_600_000),
          nextIterationFunding: null,
          committed: false,
          meta,
        },
        requestedAt: at(-1000),
        inputHoldingCids: inputs,
        extraArgs: { context: { values: {} }, meta },
        actors: [who],
      };
    }
  });
});

describe('the example registry with STATE_DIR', () => {
  it('keeps its operator, TokenRules and offers across a restart; a world saved without it is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'example-registry-state-'));
    const start = (exampleRegistryPort?: number) =>
      startStack({ config: { port: 0, logLevel: 'silent', stateDir: dir }, registryPort: 0, scanPort: 0, validatorPort: 0, ...(exampleRegistryPort === undefined ? {} : { exampleRegistryPort }) });
    try {
      const first = await start(0);
      const alice = first.seeded!.parties.find((p) => p.hint === 'alice')!.party;
      const minted = await fetch(`${first.exampleRegistry!.url}/admin/v2/offer-mint`, { method: 'POST', body: JSON.stringify({ receiver: alice }) });
      expect(minted.status).toBe(200);
      const { offerCid } = (await minted.json()) as { offerCid: string };
      const admin = first.exampleRegistry!.admin;
      await first.close();

      const second = await start(0);
      try {
        expect(second.exampleRegistry!.admin).toBe(admin);
        const ctx = await fetch(`${second.exampleRegistry!.url}/registry/transfer-instruction/v2/${offerCid}/choice-contexts/accept`, { method: 'POST', body: '{}' });
        expect(ctx.status).toBe(200);
      } finally {
        await second.close();
      }
      // The saved world has the example registry's contracts: starting without it names the difference.
      await expect(start()).rejects.toThrow(/exampleRegistry: saved true, now undefined/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

let settlementCounter = 0;
const SETTLEMENT = (executor: string) => ({ executors: [executor], id: `example-dvp-${settlementCounter}`, cid: null, meta });
