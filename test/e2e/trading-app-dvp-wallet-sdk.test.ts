/**
 * End to end: the OTC trading app's DvP flow of the official wallet SDK's LocalNet
 * example (splice-wallet-kernel, docs/wallet-integration-guide/examples/scripts,
 * "token-standard-allocation"), run with @canton-network/wallet-sdk@1.4.0 against the emulated
 * stack (`startStack`, LocalNet JWT auth, over loopback HTTP).
 *
 * The trading app (`splice-token-test-trading-app-1.0.0.dar`, module
 * Splice.Testing.Apps.TradingApp of hyperledger-labs/splice) has no native implementation here:
 * the wallet uploads its DAR (`sdk.ledger.dar.upload`, POST /v2/packages + vetting) and from then
 * on its templates OTCTradeProposal and OTCTrade, their choices and OTCTrade's AllocationRequest
 * interface view run through the Daml-LF evaluator. They call into the tokens' own templates
 * through the token-standard interfaces: OTCTrade_Settle fetches each allocation as an
 * `Allocation` (interface fetch and view) and exercises `Allocation_ExecuteTransfer` on it.
 *
 * The steps, as the SDK script does them:
 *  1. upload the DAR; three external parties (alice, bob, venue) created with their own keys;
 *     every command of theirs goes through interactive submission (prepare, sign, execute);
 *  2. alice and bob get Canton Coin (`amulet.tap`);
 *  3. alice creates an OTCTradeProposal (leg0: alice → bob 100 CC, leg1: bob → alice 20 CC),
 *     bob accepts it, the venue initiates settlement (OTCTrade, an AllocationRequest);
 *  4. each trader reads its pending allocation request (`token.allocation.request.pending`) and
 *     allocates its leg through the Amulet registry's allocation factory
 *     (`token.allocation.instruction.create`: POST /registry/allocation-instruction/v1/
 *     allocation-factory on the scan host, AllocationFactory_Allocate);
 *  5. the venue lists the allocations it executes (`token.allocation.pending`), fetches each one's
 *     execute-transfer choice context (`token.allocation.context.execute`: POST
 *     /registry/allocations/v1/{cid}/choice-contexts/execute-transfer) and exercises
 *     OTCTrade_Settle with them, which executes both allocations;
 *  6. the holdings moved: bob +100 − 20, alice −100 + 20, nothing left locked.
 *
 * A second trade swaps Canton Coin against the demo admin's test token TT2-USD (two registries,
 * one settlement), which the SDK script does not do but its API supports unchanged.
 *
 * Each flow runs twice: with the native (TypeScript) Amulet and test tokens, and with
 * TEMPLATE_ENGINE=daml + DARS_DIR, where the tokens' own Daml (allocation factories, execute
 * transfer, transfer factory) runs through the evaluator as well.
 */
import { readFile } from 'node:fs/promises';
import { CustomLogAdapter, SDK } from '@canton-network/wallet-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type RunningStack } from '../../src/stack.js';
import { amuletUrls } from './support/amulet.js';
import { SHARED_DARS_DIR } from '../support/shared-dars.js';
import { asDamlDecimal, balanceOf, plus, selfSignedAuth, type Balance } from './support/wallet-sdk.js';

/** LocalNet's admin user, as in the SDK's LocalNet examples. */
const ADMIN_USER = 'ledger-api-user';
const TRADING_APP_DAR = new URL('../../../shared/dars/splice-token-test-trading-app-1.0.0.dar', import.meta.url);
/** The package id of that DAR's main package (the SDK example uploads it under this id). */
const TRADING_APP_PACKAGE_ID = 'e5c9847d5a88d3b8d65436f01765fc5ba142cc58529692e2dacdd865d9939f71';
const OTC_TRADE_PROPOSAL = '#splice-token-test-trading-app:Splice.Testing.Apps.TradingApp:OTCTradeProposal';
const OTC_TRADE = '#splice-token-test-trading-app:Splice.Testing.Apps.TradingApp:OTCTrade';

function createSdk(stack: RunningStack, userId: string) {
  const auth = selfSignedAuth(userId);
  const urls = amuletUrls(stack);
  const registries = [urls.registry, stack.registryUrl!];
  return SDK.create({
    auth,
    ledgerClientUrl: stack.ledgerUrl,
    logAdapter: new CustomLogAdapter(() => {}),
    amulet: { auth, scanApiUrl: urls.scanApi, registryUrl: urls.registry, validatorUrl: urls.validatorApi },
    token: { auth, registries },
    asset: { auth, registries },
  });
}
type Sdk = Awaited<ReturnType<typeof createSdk>>;

interface ExternalParty {
  partyId: string;
  privateKey: string;
}
interface Disclosed {
  templateId?: string;
  contractId?: string;
  createdEventBlob: string;
  synchronizerId?: string;
}
/** `legs` with each amount as the JSON Ledger API renders a Daml Decimal ("20" → "20.0000000000"). */
function rendered(legs: Record<string, TransferLeg>): Record<string, TransferLeg> {
  return Object.fromEntries(Object.entries(legs).map(([id, leg]) => [id, { ...leg, amount: asDamlDecimal(leg.amount) }]));
}

interface Instrument {
  admin: string;
  id: string;
}
interface TransferLeg {
  sender: string;
  receiver: string;
  amount: string;
  instrumentId: Instrument;
  meta: { values: Record<string, string> };
}


describe.each([
  { engine: 'native' as const, what: 'native Amulet and test tokens' },
  { engine: 'daml' as const, what: 'Amulet and test tokens evaluated too (TEMPLATE_ENGINE=daml)' },
])('wallet SDK 1.4.0: the OTC trading app DvP (evaluated DAR) against the emulated stack, $what', ({ engine }) => {
  let stack: RunningStack;
  let sdk: Sdk;
  let dso: string;
  let tokenAdmin: string;
  let amuletRegistry: URL;
  let alice: ExternalParty;
  let bob: ExternalParty;
  let venue: ExternalParty;
  const cc = (): Instrument => ({ admin: dso, id: 'Amulet' });
  const tt2 = (): Instrument => ({ admin: tokenAdmin, id: 'TT2-USD' });

  beforeAll(async () => {
    stack = await startStack({
      config: { port: 0, logLevel: 'silent', auth: { mode: 'localnet' }, ...(engine === 'daml' ? { templateEngine: engine, darsDir: SHARED_DARS_DIR } : {}) },
      registryPort: 0,
      scanPort: 0,
      validatorPort: 0,
    });
    dso = stack.seeded!.amulet!.dso;
    tokenAdmin = stack.seeded!.parties.find((p) => p.hint === 'token-admin')!.party;
    amuletRegistry = new URL(amuletUrls(stack).registry);
    sdk = await createSdk(stack, ADMIN_USER);
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
  });

  async function createExternalParty(hint: string): Promise<ExternalParty> {
    const { publicKey, privateKey } = sdk.keys.generate();
    const created = await sdk.party.external.create(publicKey, { partyHint: hint }).sign(privateKey).execute();
    return { partyId: created.partyId, privateKey };
  }

  /** prepare → sign → executeAndWait, as an external party's wallet does. */
  function submitAs(p: ExternalParty, commands: unknown, disclosedContracts: Disclosed[] = []) {
    return sdk.ledger.prepare({ partyId: p.partyId, commands, disclosedContracts }).sign(p.privateKey).execute({ partyId: p.partyId });
  }

  async function activeContracts(templateId: string, party: ExternalParty) {
    return sdk.ledger.acs.read({ templateIds: [templateId], parties: [party.partyId], filterByParty: true });
  }

  /** The one active contract of `templateId` that `party` sees and that is not in `seen`. */
  async function newContract(templateId: string, party: ExternalParty, seen: ReadonlySet<string>) {
    const fresh = (await activeContracts(templateId, party)).filter((c) => !seen.has(c.contractId));
    expect(fresh).toHaveLength(1);
    return fresh[0]!;
  }
  /** Contract ids already handled by earlier trades. */
  const seen = new Set<string>();

  it('uploads the trading app DAR through the SDK: its package is known and its templates are evaluated', async () => {
    // With TEMPLATE_ENGINE=daml the participant has it from DARS_DIR already; uploading again is a no-op.
    expect(await sdk.ledger.dar.check(TRADING_APP_PACKAGE_ID)).toBe(engine === 'daml');
    await sdk.ledger.dar.upload(await readFile(TRADING_APP_DAR), TRADING_APP_PACKAGE_ID);
    expect(await sdk.ledger.dar.check(TRADING_APP_PACKAGE_ID)).toBe(true);
    for (const entity of ['OTCTradeProposal', 'OTCTrade']) {
      const def = stack.engine.templates.templateByNameKey(`splice-token-test-trading-app:Splice.Testing.Apps.TradingApp:${entity}`);
      expect(def?.kind).toBe('daml');
    }
  });

  it('creates alice, bob and the venue as external parties and taps Canton Coin to the traders', async () => {
    [alice, bob, venue] = await Promise.all([createExternalParty('dvp-alice'), createExternalParty('dvp-bob'), createExternalParty('dvp-venue')]);
    for (const p of [alice, bob]) {
      const [tap, disclosed] = await sdk.amulet.tap(p.partyId, '2000');
      await submitAs(p, tap, disclosed);
      expect(await balanceOf(sdk, p.partyId, cc())).toEqual({ unlocked: '2000', locked: '0' });
    }
  });

  /** Step 3: alice proposes, bob accepts, the venue initiates settlement; the proposal and the OTCTrade. */
  async function openTrade(legs: Record<string, TransferLeg>) {
    // 3. alice proposes (she is the first approver), bob accepts, the venue initiates settlement.
    await submitAs(alice, {
      CreateCommand: {
        templateId: OTC_TRADE_PROPOSAL,
        createArguments: { venue: venue.partyId, tradeCid: null, transferLegs: legs, approvers: [alice.partyId] },
      },
    });
    const proposal = await newContract(OTC_TRADE_PROPOSAL, bob, seen);
    await submitAs(bob, [
      { ExerciseCommand: { templateId: OTC_TRADE_PROPOSAL, contractId: proposal.contractId, choice: 'OTCTradeProposal_Accept', choiceArgument: { approver: bob.partyId } } },
    ]);
    // The accepted proposal tracks the original one (tradeCid = Some self) and lists both approvers.
    seen.add(proposal.contractId);
    const accepted = await newContract(OTC_TRADE_PROPOSAL, venue, seen);
    expect(accepted.createArgument).toMatchObject({ tradeCid: proposal.contractId, approvers: [bob.partyId, alice.partyId] });

    const now = Date.now();
    const prepareUntil = new Date(now + 60 * 60 * 1000).toISOString();
    const settleBefore = new Date(now + 2 * 60 * 60 * 1000).toISOString();
    await submitAs(venue, [
      {
        ExerciseCommand: {
          templateId: OTC_TRADE_PROPOSAL,
          contractId: accepted.contractId,
          choice: 'OTCTradeProposal_InitiateSettlement',
          choiceArgument: { prepareUntil, settleBefore },
        },
      },
    ]);
    seen.add(accepted.contractId);
    const otcTrade = await newContract(OTC_TRADE, venue, seen);
    seen.add(otcTrade.contractId);
    // InitiateSettlement consumed the accepted proposal.
    expect((await activeContracts(OTC_TRADE_PROPOSAL, venue)).map((c) => c.contractId)).not.toContain(accepted.contractId);
    return { proposal, otcTrade };
  }

  /**
   * The whole trade of the SDK script for two legs: proposal, acceptance, settlement initiation,
   * one allocation per leg through its instrument's registry, settlement by the venue. Returns
   * the settled trade's contract id.
   */
  async function trade(legs: Record<string, TransferLeg>, registryOf: (i: Instrument) => URL) {
    const { proposal, otcTrade } = await openTrade(legs);

    // 4. each trader allocates the leg it sends, from the request's view (OTCTrade's
    //    AllocationRequest instance, computed by the evaluator).
    for (const trader of [alice, bob]) {
      const requests = await sdk.token.allocation.request.pending(trader.partyId);
      const request = requests.find((r) => r.contractId === otcTrade.contractId);
      expect(request).toBeDefined();
      const view = request!.interfaceViewValue;
      expect(view.settlement).toMatchObject({ executor: venue.partyId, settlementRef: { id: 'OTCTradeProposal', cid: proposal.contractId } });
      // The legs as the ledger renders them (Decimals with their 10 decimal places).
      expect(view.transferLegs).toEqual(rendered(legs));
      const [legId, leg] = Object.entries(view.transferLegs).find(([, l]) => l.sender === trader.partyId)!;
      const asset = await sdk.asset.find(leg.instrumentId.id, registryOf(leg.instrumentId));
      const [allocate, disclosed] = await sdk.token.allocation.instruction.create({
        allocationSpecification: { settlement: view.settlement, transferLegId: legId, transferLeg: leg },
        asset,
        // A V2 token allocated through its V1 factory keeps only the call's `requestedAt`: its V1
        // view reports it as `settlement.requestedAt` (splice-token-standard-utils,
        // allocationFactoryV1_allocateDefaultImplUsingV2 and tryDowncast_v2_v1_AllocationView),
        // and OTCTrade_Settle requires the view to equal the trade's settlement. So the wallet
        // passes the request's time; Amulet keeps the V1 settlement whole and needs nothing.
        ...(leg.instrumentId.id === 'Amulet' ? {} : { requestedAt: view.settlement.requestedAt }),
      });
      await submitAs(trader, allocate, disclosed);
      // The allocated amount is locked in the sender's holdings until settlement.
      expect((await balanceOf(sdk, trader.partyId, leg.instrumentId)).locked).not.toBe('0');
    }

    // 5. the venue settles: one execute-transfer context per allocation from its registry.
    const settlementRef = { id: 'OTCTradeProposal', cid: proposal.contractId };
    const allocations = (await sdk.token.allocation.pending(venue.partyId)).filter(
      (a) => a.interfaceViewValue.allocation.settlement.executor === venue.partyId && a.interfaceViewValue.allocation.settlement.settlementRef.cid === settlementRef.cid,
    );
    expect(allocations.map((a) => a.interfaceViewValue.allocation.transferLegId).sort()).toEqual(Object.keys(legs).sort());
    const withContext: Record<string, { _1: string; _2: { context: { values: Record<string, unknown> }; meta: { values: Record<string, string> } } }> = {};
    const disclosed = new Map<string, Disclosed>();
    for (const a of allocations) {
      const registry = registryOf(a.interfaceViewValue.allocation.transferLeg.instrumentId);
      const context = await sdk.token.allocation.context.execute({ allocationCid: a.contractId, registryUrl: registry });
      withContext[a.interfaceViewValue.allocation.transferLegId] = {
        _1: a.contractId,
        _2: { context: { values: context.choiceContextData?.values ?? {} }, meta: { values: {} } },
      };
      for (const d of context.disclosedContracts ?? []) disclosed.set(d.contractId, d);
    }
    await submitAs(
      venue,
      [{ ExerciseCommand: { templateId: OTC_TRADE, contractId: otcTrade.contractId, choice: 'OTCTrade_Settle', choiceArgument: { allocationsWithContext: withContext } } }],
      [...disclosed.values()],
    );
    expect((await activeContracts(OTC_TRADE, venue)).map((c) => c.contractId)).not.toContain(otcTrade.contractId);
    expect((await sdk.token.allocation.pending(venue.partyId)).filter((a) => a.interfaceViewValue.allocation.settlement.settlementRef.cid === settlementRef.cid)).toEqual([]);
    return otcTrade.contractId;
  }

  const snapshot = async (instrument: Instrument): Promise<{ alice: Balance; bob: Balance }> => ({
    alice: await balanceOf(sdk, alice.partyId, instrument),
    bob: await balanceOf(sdk, bob.partyId, instrument),
  });

  it('Canton Coin both ways (the SDK script): propose, accept, initiate, allocate through the Amulet registry, settle', async () => {
    const before = await snapshot(cc());
    await trade(
      {
        leg0: { sender: alice.partyId, receiver: bob.partyId, amount: '100', instrumentId: cc(), meta: { values: {} } },
        leg1: { sender: bob.partyId, receiver: alice.partyId, amount: '20', instrumentId: cc(), meta: { values: {} } },
      },
      () => amuletRegistry,
    );
    expect(await snapshot(cc())).toEqual({
      alice: { unlocked: plus(before.alice.unlocked, '-80'), locked: '0' },
      bob: { unlocked: plus(before.bob.unlocked, '80'), locked: '0' },
    });
  });

  it('Canton Coin against TT2-USD: one allocation through each registry, one settlement', async () => {
    // bob gets TT2-USD from the demo world's alice (an offer he accepts).
    const demoAlice = stack.seeded!.parties.find((p) => p.hint === 'alice')!.party;
    const aliceSdk = await createSdk(stack, 'alice');
    const [offer, offerDisclosed] = await aliceSdk.token.transfer.create({
      sender: demoAlice,
      recipient: bob.partyId,
      amount: '50',
      instrumentId: 'TT2-USD',
      registryUrl: new URL(stack.registryUrl!),
    });
    await aliceSdk.ledger.internal.submit({ commands: [offer], actAs: [demoAlice], disclosedContracts: offerDisclosed });
    const [instruction] = (await sdk.token.transfer.pending(bob.partyId)).filter((i) => i.interfaceViewValue.transfer.instrumentId.id === 'TT2-USD');
    const [accept, acceptDisclosed] = await sdk.token.transfer.accept({ transferInstructionCid: instruction!.contractId, registryUrl: new URL(stack.registryUrl!) });
    await submitAs(bob, accept, acceptDisclosed);

    const ccBefore = await snapshot(cc());
    const usdBefore = await snapshot(tt2());
    expect(usdBefore.bob.unlocked).toBe('50');
    await trade(
      {
        pay: { sender: alice.partyId, receiver: bob.partyId, amount: '30', instrumentId: cc(), meta: { values: {} } },
        deliver: { sender: bob.partyId, receiver: alice.partyId, amount: '12.5', instrumentId: tt2(), meta: { values: {} } },
      },
      (i) => (i.id === 'Amulet' ? amuletRegistry : new URL(stack.registryUrl!)),
    );
    expect(await snapshot(cc())).toEqual({
      alice: { unlocked: plus(ccBefore.alice.unlocked, '-30'), locked: '0' },
      bob: { unlocked: plus(ccBefore.bob.unlocked, '30'), locked: '0' },
    });
    expect(await snapshot(tt2())).toEqual({
      alice: { unlocked: plus(usdBefore.alice.unlocked, '12.5'), locked: '0' },
      bob: { unlocked: plus(usdBefore.bob.unlocked, '-12.5'), locked: '0' },
    });
  });

  it("AllocationRequest_Reject (OTCTrade's evaluated interface choice, through the SDK): only a sender may reject, and the rejection ends the trade", async () => {
    const { otcTrade } = await openTrade({
      leg0: { sender: alice.partyId, receiver: bob.partyId, amount: '5', instrumentId: cc(), meta: { values: {} } },
    });
    // The venue is no sender: the trading app's requirement refuses it, and nothing changes.
    const [byVenue, venueDisclosed] = await sdk.token.allocation.request.reject(otcTrade.contractId, venue.partyId);
    const refused = await submitAs(venue, byVenue, venueDisclosed).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'DAML_FAILURE' });
    expect(JSON.stringify(refused)).toContain("The requirement 'Actor is a sender' was not met.");
    expect((await activeContracts(OTC_TRADE, venue)).map((c) => c.contractId)).toContain(otcTrade.contractId);

    // bob is a receiver only in this trade; alice, the sender, rejects it.
    const [byAlice, aliceDisclosed] = await sdk.token.allocation.request.reject(otcTrade.contractId, alice.partyId);
    await submitAs(alice, byAlice, aliceDisclosed);
    expect((await activeContracts(OTC_TRADE, venue)).map((c) => c.contractId)).not.toContain(otcTrade.contractId);
    expect((await sdk.token.allocation.request.pending(alice.partyId)).map((r) => r.contractId)).not.toContain(otcTrade.contractId);
  });
});
