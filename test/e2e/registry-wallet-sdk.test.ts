/**
 * End to end: the OFFICIAL wallet SDK
 * (@canton-network/wallet-sdk@1.4.0) against the emulated stack started by `startStack`: the
 * ledger node (JSON Ledger API v2) and the demo admin's registry, each on its own loopback port,
 * seeded with the demo world (src/emulator/world/seed.ts: token-admin, alice, bob, executor; TT1 =
 * splice-test-token-v1, TT2-USD/TT2-EUR = splice-test-token-v2).
 *
 * Every step uses the SDK's full path exactly as a wallet does (`SDK.create`
 * of @canton-network/wallet-sdk): `SDK.create({ ledgerClientUrl, auth, token: { registries: [registryUrl] },
 * asset: { registries: [registryUrl] } })`, one SDK per user (each demo party has a user of the
 * same name). The SDK fetches factories and choice contexts from the registry, builds the
 * `ExerciseCommand` + `disclosedContracts` from them, and we submit that unchanged with the SDK's
 * own `ledger.internal.submit` (POST /v2/commands/submit-and-wait). The wallet parties cannot see
 * the factories (TokenRules has no observers), so a transfer only works because the registry
 * disclosed the right contracts: the wallet uses only what the registry returned.
 * The registry-only `TokenStandardService` path was not needed for any step.
 *
 * The SDK speaks only the V1 registry API (`TokenStandardClient` of @canton-network/core-token-standard), so TT2-USD
 * (TestTokenV2) goes through its V1 adapters: the V1 factories, the TransferInstruction V1 and
 * Allocation V1 interfaces, and the registry's `testTokenV2/*` context keys.
 *
 * Auth is off on the emulator (its default); the SDK's self-signed tokens are ignored, which also
 * lets one submission act as executor + sender + receiver (Allocation_ExecuteTransfer's V1
 * controllers) without granting a user three parties.
 *
 * Balances are read through the SDK's holdings read (`token.utxos.list`, the ACS filtered by the
 * HoldingV1 interface). The steps of each token share state and run in order.
 */
import { isJsCantonError } from '@canton-network/core-ledger-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type RunningStack } from '../../src/stack.js';
import { balanceOf, createWalletSdk, plus, type Balance, type WalletSdk } from './support/wallet-sdk.js';

const TRANSFER_FACTORY = '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory';
const TRANSFER_INSTRUCTION = '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction';
const ALLOCATION_FACTORY = '#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory';
const ALLOCATION = '#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation';
/** The memo key the SDK writes into `transfer.meta` (TokenStandardService.MEMO_KEY). */
const REASON = 'splice.lfdecentralizedtrust.org/reason';

/** The two reference tokens; TT2-USD stands for TestTokenV2 (TT2-EUR behaves the same). */
const TOKENS = [
  { id: 'TT1', rules: '#splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:TokenRules', contextKeys: [] as string[] },
  {
    id: 'TT2-USD',
    rules: '#splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2:TokenRules',
    contextKeys: ['testTokenV2/accountConfigs', 'testTokenV2/tokenRules'],
  },
];

/** The exercise of a command the SDK built (its token calls always build one). */
function exerciseOf(command: { ExerciseCommand: ExerciseCommand } | { CreateCommand: unknown }): ExerciseCommand {
  if (!('ExerciseCommand' in command)) throw new Error(`expected an ExerciseCommand, got ${JSON.stringify(command)}`);
  return command.ExerciseCommand;
}
interface ExerciseCommand {
  templateId: string;
  contractId: string;
  choice: string;
  choiceArgument: unknown;
}

interface Disclosed {
  templateId?: string;
  contractId?: string;
  createdEventBlob: string;
  synchronizerId?: string;
}

/**
 * `token.allocation.execute/withdraw` resolve to `[command, disclosedContracts]` like every other
 * token call, but SDK 1.4.0 types them as an array of the union of both (an un-annotated return);
 * narrow at run time.
 */
function asPrepared(result: readonly unknown[]): [{ ExerciseCommand: ExerciseCommand }, Disclosed[]] {
  const [command, disclosed] = result;
  if (result.length !== 2 || !Array.isArray(disclosed) || typeof command !== 'object' || command === null || !('ExerciseCommand' in command)) {
    throw new Error(`expected [command, disclosedContracts], got ${JSON.stringify(result)}`);
  }
  return [command as { ExerciseCommand: ExerciseCommand }, disclosed as Disclosed[]];
}

/** `pkg:Module:Entity` of a `#name:Module:Entity` reference, to compare with the package-id form the ledger emits. */
const suffix = (ref: string) => ref.slice(ref.indexOf(':'));

describe('wallet SDK 1.4.0 against the emulated registry and ledger (startStack, demo world)', () => {
  let stack: RunningStack;
  let registryUrl: string;
  let admin: string;
  let alice: string;
  let bob: string;
  let executor: string;
  /** One wallet per user. */
  let aliceSdk: WalletSdk;
  let bobSdk: WalletSdk;
  let executorSdk: WalletSdk;

  beforeAll(async () => {
    stack = await startStack({ config: { port: 0, logLevel: 'silent' }, registryPort: 0 });
    registryUrl = stack.registryUrl!;
    const party = (hint: string) => stack.seeded!.parties.find((p) => p.hint === hint)!.party;
    admin = party('token-admin');
    alice = party('alice');
    bob = party('bob');
    executor = party('executor');
    // SDK.create per user: GET /v2/version, /v2/authenticated-user (fails with auth off → the
    // token's sub), /v2/state/connected-synchronizers, and (asset namespace) GET /registry/metadata/v1/{instruments,info}.
    const wallet = (userId: string) => createWalletSdk(stack.ledgerUrl, registryUrl, userId);
    [aliceSdk, bobSdk, executorSdk] = await Promise.all([wallet('alice'), wallet('bob'), wallet('executor')]);
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('lists the instruments TT1, TT2-USD and TT2-EUR with the registry admin (asset namespace)', async () => {
    const assets = aliceSdk.asset.list;
    expect(assets.map((a) => a.id)).toEqual(['TT1', 'TT2-EUR', 'TT2-USD']);
    expect(assets.map((a) => [a.id, a.displayName, a.symbol])).toEqual([
      ['TT1', 'Test Token One', 'TT1'],
      ['TT2-EUR', 'Test Token Two (EUR)', 'TEUR'],
      ['TT2-USD', 'Test Token Two (USD)', 'TUSD'],
    ]);
    // The SDK takes the admin of every instrument from GET /registry/metadata/v1/info.
    for (const a of assets) {
      expect(a.admin).toBe(admin);
      expect(a.registryUrl.href).toBe(new URL(registryUrl).href);
    }
    expect((await aliceSdk.asset.find('TT2-USD', new URL(registryUrl))).symbol).toBe('TUSD');
  });

  describe.each(TOKENS)('$id', (token) => {
    const instrument = () => ({ admin, id: token.id });
    const balance = (sdk: WalletSdk, party: string): Promise<Balance> => balanceOf(sdk, party, instrument());
    const asset = () => aliceSdk.asset.find(token.id, new URL(registryUrl));

    /** `transfer.create` as alice: the registry's factory and context, checked, then submitted as alice. */
    async function transferFromAlice(recipient: string, amount: string, memo: string) {
      const [command, disclosed] = await aliceSdk.token.transfer.create({
        sender: alice,
        recipient,
        amount,
        instrumentId: token.id,
        registryUrl: new URL(registryUrl),
        memo,
      });
      const exercise = exerciseOf(command);
      expect(exercise).toMatchObject({ templateId: TRANSFER_FACTORY, choice: 'TransferFactory_Transfer' });
      // The factory is the registry's `factoryId`: the admin's TokenRules, which the registry
      // discloses first; the SDK passes the disclosures through unchanged.
      expect(disclosed[0]!.contractId).toBe(exercise.contractId);
      expect(disclosed[0]!.templateId?.endsWith(suffix(token.rules))).toBe(true);
      for (const d of disclosed) {
        expect(d.synchronizerId).toBe(stack.engine.synchronizerId);
        expect(d.createdEventBlob).toMatch(/^[A-Za-z0-9+/]+=*$/);
      }
      const arg = exercise.choiceArgument as {
        expectedAdmin: string;
        transfer: { inputHoldingCids: string[]; meta: { values: Record<string, string> } };
        extraArgs: { context: { values: Record<string, unknown> } };
      };
      expect(arg.expectedAdmin).toBe(admin);
      expect(arg.transfer.meta.values[REASON]).toBe(memo);
      // The registry's choice context went into extraArgs.context.
      expect(Object.keys(arg.extraArgs.context.values).sort()).toEqual(token.contextKeys);
      const submitted = await aliceSdk.ledger.internal.submit({ commands: [command], actAs: [alice], disclosedContracts: disclosed });
      expect(submitted.completionOffset).toBeGreaterThan(0);
      return { inputHoldingCids: arg.transfer.inputHoldingCids, factoryId: exercise.contractId };
    }

    /** The transfer instructions of `instrument` that `party` sees (SDK: TransferInstruction interface ACS). */
    async function pendingTransfers(sdk: WalletSdk, party: string) {
      return (await sdk.token.transfer.pending(party)).filter((p) => p.interfaceViewValue.transfer.instrumentId.id === token.id);
    }

    it('self transfer: the registry gives factory + context, alice submits, her holdings move', async () => {
      const before = await balance(aliceSdk, alice);
      const { inputHoldingCids, factoryId } = await transferFromAlice(alice, '10', 'self');

      // Alice cannot see the factory herself: the transfer worked only through the registry's disclosure.
      const visible = await aliceSdk.ledger.acs.read({ parties: [alice], filterByParty: true, templateIds: [token.rules] });
      expect(visible.map((c) => c.contractId)).not.toContain(factoryId);
      // Without the registry's disclosed contracts the same kind of command fails.
      const [again] = await aliceSdk.token.transfer.create({ sender: alice, recipient: alice, amount: '1', instrumentId: token.id, registryUrl: new URL(registryUrl) });
      const undisclosed = await aliceSdk.ledger.internal.submit({ commands: [again], actAs: [alice] }).catch((e: unknown) => e);
      expect(undisclosed).toMatchObject({ code: 'CONTRACT_NOT_FOUND' });

      const utxos = await aliceSdk.token.utxos.list({ partyId: alice, includeLocked: true });
      const mine = utxos.filter((u) => u.interfaceViewValue.instrumentId.id === token.id);
      // The inputs were consumed and replaced by new holdings (10 to herself, plus the change).
      expect(inputHoldingCids.length).toBeGreaterThan(0);
      for (const cid of inputHoldingCids) expect(mine.map((u) => u.contractId)).not.toContain(cid);
      expect(mine.map((u) => u.interfaceViewValue.amount)).toContain('10.0000000000');
      expect(await balance(aliceSdk, alice)).toEqual(before);
    });

    it('offer: alice -> bob creates a transfer instruction bob sees; bob accepts with the registry accept context', async () => {
      const aliceBefore = await balance(aliceSdk, alice);
      const bobBefore = await balance(bobSdk, bob);
      await transferFromAlice(bob, '15', 'offer to bob');

      // The funds are locked on alice's side until bob decides.
      expect(await balance(aliceSdk, alice)).toEqual({ unlocked: plus(aliceBefore.unlocked, '-15'), locked: plus(aliceBefore.locked, '15') });

      const pending = await pendingTransfers(bobSdk, bob);
      expect(pending).toHaveLength(1);
      const instruction = pending[0]!;
      expect(instruction.interfaceViewValue).toMatchObject({
        transfer: { sender: alice, receiver: bob, amount: '15.0000000000', instrumentId: instrument(), meta: { values: { [REASON]: 'offer to bob' } } },
        status: { tag: 'TransferPendingReceiverAcceptance' },
      });

      // accept: POST /registry/transfer-instruction/v1/{cid}/choice-contexts/accept, then the exercise on the interface.
      const [command, disclosed] = await bobSdk.token.transfer.accept({ transferInstructionCid: instruction.contractId, registryUrl: new URL(registryUrl) });
      expect(exerciseOf(command)).toMatchObject({ templateId: TRANSFER_INSTRUCTION, contractId: instruction.contractId, choice: 'TransferInstruction_Accept' });
      await bobSdk.ledger.internal.submit({ commands: [command], actAs: [bob], disclosedContracts: disclosed });

      expect(await balance(bobSdk, bob)).toEqual({ unlocked: plus(bobBefore.unlocked, '15'), locked: bobBefore.locked });
      expect(await balance(aliceSdk, alice)).toEqual({ unlocked: plus(aliceBefore.unlocked, '-15'), locked: aliceBefore.locked });
      expect(await pendingTransfers(bobSdk, bob)).toEqual([]);
    });

    it('withdraw: alice withdraws another offer with the registry withdraw context and gets her funds back', async () => {
      const aliceBefore = await balance(aliceSdk, alice);
      const bobBefore = await balance(bobSdk, bob);
      await transferFromAlice(bob, '7', 'to be withdrawn');

      // The sender sees her own instruction too (she is a stakeholder).
      const pending = await pendingTransfers(aliceSdk, alice);
      expect(pending).toHaveLength(1);
      expect(pending[0]!.interfaceViewValue.transfer).toMatchObject({ sender: alice, receiver: bob, amount: '7.0000000000' });

      const [command, disclosed] = await aliceSdk.token.transfer.withdraw({ transferInstructionCid: pending[0]!.contractId, registryUrl: new URL(registryUrl) });
      expect(exerciseOf(command)).toMatchObject({ templateId: TRANSFER_INSTRUCTION, choice: 'TransferInstruction_Withdraw' });
      await aliceSdk.ledger.internal.submit({ commands: [command], actAs: [alice], disclosedContracts: disclosed });

      expect(await balance(aliceSdk, alice)).toEqual(aliceBefore);
      expect(await balance(bobSdk, bob)).toEqual(bobBefore);
      expect(await pendingTransfers(bobSdk, bob)).toEqual([]);
    });

    /** A V1 allocation specification for a settlement run by the executor. */
    function allocationSpec(ref: string, amount: string) {
      const now = Date.now();
      return {
        settlement: {
          executor,
          settlementRef: { id: ref, cid: null },
          requestedAt: new Date(now - 60_000).toISOString(),
          allocateBefore: new Date(now + 3_600_000).toISOString(),
          settleBefore: new Date(now + 7_200_000).toISOString(),
          meta: { values: {} },
        },
        transferLegId: 'leg-0',
        transferLeg: { sender: alice, receiver: bob, amount, instrumentId: instrument(), meta: { values: {} } },
      };
    }

    /** `allocation.instruction.create` as alice (registry allocation factory), submitted as alice; returns the executor's view of the allocation. */
    async function allocate(ref: string, amount: string) {
      const [command, disclosed] = await aliceSdk.token.allocation.instruction.create({ allocationSpecification: allocationSpec(ref, amount), asset: await asset() });
      expect(exerciseOf(command)).toMatchObject({ templateId: ALLOCATION_FACTORY, choice: 'AllocationFactory_Allocate' });
      expect(disclosed[0]!.contractId).toBe(exerciseOf(command).contractId);
      await aliceSdk.ledger.internal.submit({ commands: [command], actAs: [alice], disclosedContracts: disclosed });
      // Both tokens complete the V1 allocation at once (no allocation instruction left behind).
      expect((await aliceSdk.token.allocation.instruction.pending(alice)).length).toBe(0);
      const allocations = (await executorSdk.token.allocation.pending(executor)).filter((a) => a.interfaceViewValue.allocation.settlement.settlementRef.id === ref);
      expect(allocations).toHaveLength(1);
      return allocations[0]!;
    }

    it('allocation, then execute-transfer with the registry context, submitted by executor + sender + receiver', async () => {
      const aliceBefore = await balance(aliceSdk, alice);
      const bobBefore = await balance(bobSdk, bob);
      const allocation = await allocate(`trade-${token.id}`, '25');
      expect(allocation.interfaceViewValue.allocation.transferLeg).toMatchObject({ sender: alice, receiver: bob, amount: '25.0000000000', instrumentId: instrument() });
      expect(await balance(aliceSdk, alice)).toEqual({ unlocked: plus(aliceBefore.unlocked, '-25'), locked: plus(aliceBefore.locked, '25') });

      // execute: POST /registry/allocations/v1/{cid}/choice-contexts/execute-transfer.
      const [command, disclosed] = asPrepared(await executorSdk.token.allocation.execute({ allocationCid: allocation.contractId, asset: await asset() }));
      expect(exerciseOf(command)).toMatchObject({ templateId: ALLOCATION, contractId: allocation.contractId, choice: 'Allocation_ExecuteTransfer' });
      const context = (exerciseOf(command).choiceArgument as { extraArgs: { context: { values: Record<string, unknown> } } }).extraArgs.context;
      expect(Object.keys(context.values).sort()).toEqual(token.contextKeys);

      // The V1 controllers are executor, sender and receiver: the executor alone is refused.
      const alone = await executorSdk.ledger.internal
        .submit({ commands: [command], actAs: [executor], disclosedContracts: disclosed })
        .catch((e: unknown) => e);
      expect(isJsCantonError(alone)).toBe(true);
      expect(alone).toMatchObject({ code: 'DAML_AUTHORIZATION_ERROR' });

      await executorSdk.ledger.internal.submit({ commands: [command], actAs: [executor, alice, bob], disclosedContracts: disclosed });
      expect(await balance(bobSdk, bob)).toEqual({ unlocked: plus(bobBefore.unlocked, '25'), locked: bobBefore.locked });
      expect(await balance(aliceSdk, alice)).toEqual({ unlocked: plus(aliceBefore.unlocked, '-25'), locked: aliceBefore.locked });
      expect(await executorSdk.token.allocation.pending(executor)).toEqual([]);
    });

    it('allocation withdrawn by the sender with the registry withdraw context', async () => {
      const aliceBefore = await balance(aliceSdk, alice);
      const allocation = await allocate(`withdrawn-${token.id}`, '5');
      expect(await balance(aliceSdk, alice)).toEqual({ unlocked: plus(aliceBefore.unlocked, '-5'), locked: plus(aliceBefore.locked, '5') });

      // withdraw: POST /registry/allocations/v1/{cid}/choice-contexts/withdraw.
      const [command, disclosed] = asPrepared(await aliceSdk.token.allocation.withdraw({ allocationCid: allocation.contractId, asset: await asset() }));
      expect(exerciseOf(command)).toMatchObject({ templateId: ALLOCATION, contractId: allocation.contractId, choice: 'Allocation_Withdraw' });
      await aliceSdk.ledger.internal.submit({ commands: [command], actAs: [alice], disclosedContracts: disclosed });

      expect(await balance(aliceSdk, alice)).toEqual(aliceBefore);
      expect(await executorSdk.token.allocation.pending(executor)).toEqual([]);
    });
  });
});
