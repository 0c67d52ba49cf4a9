/**
 * Randomized token-standard V1 flows, driven as a wallet drives them: factories and choice
 * contexts (with their disclosed contracts) come from the instrument's registry, commands go to
 * the ledger's submit-and-wait. One flow mints to fresh parties, then runs a few random
 * operations: transfer offers resolved by accept / reject / withdraw / a wrong actor / expiry
 * under the manual clock, self transfers, allocations resolved by execute / cancel / withdraw /
 * expiry, double spends and over-spends. After each operation the holdings of both parties (the
 * HoldingV1 interface views) are compared; at the end, the sender's update stream.
 */
import type { Answer, DisclosedJson, Pair, Prng, Side } from './harness.js';
import { errorOf, rootResult, txOf, valueAt } from './harness.js';
import { activeContracts } from '../../../support/ledger-wire.js';
import { isObject } from '../../../../src/canton/json-shape.js';

export const IFACE = {
  HoldingV1: '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding',
  TransferFactoryV1: '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory',
  TransferInstructionV1: '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction',
  AllocationFactoryV1: '#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory',
  AllocationV1: '#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation',
} as const;

const EMPTY_META = { values: {} };

/** What the flows need to know of one token implementation. */
export interface TokenUnderTest {
  label: string;
  /** Which registry serves its factories and contexts. */
  registry: 'admin' | 'amulet';
  /** The instrument admin's party on a side. */
  admin(s: Side): string;
  instrumentId: string;
  /** Mints `amount` to `owner` (one holding); answers the submission. */
  mint(s: Side, owner: string, amount: string): Promise<Answer>;
  /** Whether allocations are offered (V1 AllocationFactory). */
  allocations: boolean;
  /**
   * A documented deviation of the native implementation the flows must not exercise: the native
   * TestTokenV1 and TestTokenV2 refuse to accept an offer past `executeBefore` (their LIMITATIONS,
   * asked for by the tokens' brief: the interface says registries SHOULD NOT execute late), where
   * the reference Daml accepts it.
   */
  nativeAcceptChecksExecuteBefore?: boolean;
}

interface HoldingRow {
  contractId: string;
  view: { owner: string; amount: string; lock: unknown };
}

/** The normalized answer of a factory or choice step, as far as the flows read it. */
interface CallStep {
  /** The submission's answer (`txOf`); absent when the registry refused the request. */
  tx?: { status: number };
}

interface ChoiceContextJson {
  choiceContextData: unknown;
  disclosedContracts: DisclosedJson[];
}

/** A party of the flow: its hint (same on both sides) and its id on each side. */
class Parties {
  private readonly ids = new Map<string, Map<Side, string>>();
  async allocate(pair: Pair, hint: string): Promise<void> {
    const m = new Map<Side, string>();
    for (const s of [pair.a, pair.b]) m.set(s, await s.allocateParty(hint));
    this.ids.set(hint, m);
  }
  of(s: Side, hint: string): string {
    const id = this.ids.get(hint)?.get(s);
    if (!id) throw new Error(`party ${hint} not allocated`);
    return id;
  }
}

/** The party's V1 holdings it owns (interface views), in ledger order. */
async function holdingsOf(s: Side, party: string): Promise<unknown> {
  const r = await s.acs(party, { InterfaceFilter: { value: { interfaceId: IFACE.HoldingV1, includeInterfaceView: true, includeCreatedEventBlob: false } } });
  if (r.status !== 200) return errorOf(r);
  return activeContracts(r.body)
    .map((x) => x.createdEvent)
    .map((e) => ({ contractId: e.contractId, templateId: e.templateId, createArgument: e.createArgument, view: e.interfaceViews[0]?.viewValue ?? null }))
    .filter((h) => isObject(h.view) && h.view.owner === party);
}

export class TokenFlows {
  private readonly parties = new Parties();
  private n = 0;

  constructor(
    private readonly pair: Pair,
    private readonly rnd: Prng,
    private readonly token: TokenUnderTest,
  ) {}

  private p(s: Side, hint: string): string {
    return hint === '@executor' ? s.party('executor') : this.parties.of(s, hint);
  }

  private async holdings(owner: string): Promise<HoldingRow[]> {
    // normalized, the rows keep their shape (ids become placeholders)
    return (await this.pair.step(`holdings of ${owner}`, (s) => holdingsOf(s, this.p(s, owner)))) as HoldingRow[];
  }

  private async unlocked(owner: string): Promise<HoldingRow[]> {
    return (await this.holdings(owner)).filter((h) => h.view.lock === null);
  }

  /** Factory request to the registry, then the factory choice with the context; one step. */
  private async factoryCall(
    name: string,
    actAs: string[],
    path: string,
    iface: string,
    choice: string,
    arg: (s: Side) => Record<string, unknown>,
  ): Promise<CallStep> {
    const answer = await this.pair.step(name, async (s) => {
      const a = arg(s);
      const f = await s.registry(this.token.registry, path, { choiceArguments: a, excludeDebugFields: true });
      if (f.status !== 200) return { factory: errorOf(f) };
      const fb = f.body as { factoryId: string; choiceContext: ChoiceContextJson; transferKind?: string };
      const full = { ...a, extraArgs: { context: fb.choiceContext.choiceContextData, meta: EMPTY_META } };
      const tx = await s.submit(
        actAs.map((h) => this.p(s, h)),
        [{ ExerciseCommand: { templateId: iface, contractId: fb.factoryId, choice, choiceArgument: full } }],
        fb.choiceContext.disclosedContracts,
      );
      return { factory: { factoryId: fb.factoryId, transferKind: fb.transferKind ?? null, context: fb.choiceContext }, tx: txOf(tx) };
    });
    // `txOf` answers `{status, ...}`; normalization keeps `status` as it is
    return answer as CallStep;
  }

  /** Context request for a choice on an instruction/allocation, then the choice; one step. */
  private async contextCall(name: string, actAs: string[], path: string, iface: string, cid: string, choice: string): Promise<void> {
    await this.pair.step(name, async (s) => {
      const real = s.norm.real(cid);
      const c = await s.registry(this.token.registry, path.replace('{cid}', real), { meta: {}, excludeDebugFields: true });
      const ctx: ChoiceContextJson = c.status === 200 ? (c.body as ChoiceContextJson) : { choiceContextData: { values: {} }, disclosedContracts: [] };
      const tx = await s.submit(
        actAs.map((h) => this.p(s, h)),
        [{ ExerciseCommand: { templateId: iface, contractId: real, choice, choiceArgument: { extraArgs: { context: ctx.choiceContextData, meta: EMPTY_META } } } }],
        ctx.disclosedContracts,
      );
      return { context: c.status === 200 ? c.body : errorOf(c), tx: txOf(tx) };
    });
  }

  private transferArg(s: Side, sender: string, receiver: string, amount: string, inputs: string[], executeBeforeMs: number) {
    return {
      expectedAdmin: this.token.admin(s),
      transfer: {
        sender: this.p(s, sender),
        receiver: this.p(s, receiver),
        amount,
        instrumentId: { admin: this.token.admin(s), id: this.token.instrumentId },
        requestedAt: s.at(-60_000),
        executeBefore: s.at(executeBeforeMs),
        inputHoldingCids: inputs.map((c) => s.norm.real(c)),
        meta: EMPTY_META,
      },
    };
  }

  private allocateArg(s: Side, sender: string, receiver: string, amount: string, inputs: string[], settleBeforeMs: number, ref: string) {
    return {
      expectedAdmin: this.token.admin(s),
      allocation: {
        settlement: {
          executor: s.party('executor'),
          settlementRef: { id: ref, cid: null },
          requestedAt: s.at(-60_000),
          allocateBefore: s.at(Math.min(settleBeforeMs, 1_800_000)),
          settleBefore: s.at(settleBeforeMs),
          meta: EMPTY_META,
        },
        transferLegId: 'leg-0',
        transferLeg: { sender: this.p(s, sender), receiver: this.p(s, receiver), amount, instrumentId: { admin: this.token.admin(s), id: this.token.instrumentId }, meta: EMPTY_META },
      },
      requestedAt: s.at(-60_000),
      inputHoldingCids: inputs.map((c) => s.norm.real(c)),
    };
  }

  private pickInputs(hs: HoldingRow[]): string[] {
    const picked = hs.filter(() => this.rnd.chance(0.7));
    return (picked.length > 0 ? picked : hs.slice(0, 1)).map((h) => h.contractId);
  }

  private total(hs: HoldingRow[], cids: string[]): number {
    return hs.filter((h) => cids.includes(h.contractId)).reduce((a, h) => a + Number(h.view.amount), 0);
  }

  /** An amount to move out of `available`: usually within it, sometimes more (an error to compare). */
  private amountWithin(available: number): string {
    if (available <= 0 || this.rnd.chance(0.1)) return this.rnd.amount(1, 1000);
    const v = Math.max(0.01, Math.floor(available * this.rnd.next() * 100) / 100);
    return v.toFixed(2);
  }

  /** One random flow. */
  async run(): Promise<void> {
    const k = ++this.n;
    const tag = `${this.token.label}-${k}`;
    const [alice, bob, mallory] = [`alice-${tag}`, `bob-${tag}`, `mallory-${tag}`];
    await this.pair.flow(tag, async () => {
      for (const h of [alice, bob, mallory]) await this.parties.allocate(this.pair, h);
      // Offsets differ between the stacks once a flow has diverged: each side starts from its own.
      const begin = new Map<Side, number>();
      for (const s of [this.pair.a, this.pair.b]) begin.set(s, await s.ledgerEnd());
      for (let i = this.rnd.int(1, 3); i > 0; i--) {
        const amount = this.rnd.amount(1, 200);
        await this.pair.step(`mint ${amount} to ${alice}`, async (s) => txOf(await this.token.mint(s, this.p(s, alice), amount)));
      }
      const spent: string[] = [];
      for (let op = this.rnd.int(2, 4); op > 0; op--) {
        const ops = ['offer', 'offer', 'self', 'double-spend', ...(this.token.allocations ? ['allocate', 'allocate'] : [])];
        await this.operation(this.rnd.pick(ops), alice, bob, mallory, spent);
        await this.holdings(alice);
        await this.holdings(bob);
      }
      await this.pair.step(`updates of ${alice}`, async (s) => {
        const r = await s.updates(this.p(s, alice), begin.get(s)!);
        if (r.status !== 200) return errorOf(r);
        if (!Array.isArray(r.body)) throw new Error(`updates: not a list: ${JSON.stringify(r.body)}`);
        const list: unknown[] = r.body;
        return list.map((u) => {
          const update = valueAt(u, 'update');
          if (!isObject(update)) throw new Error(`updates: an element without an update: ${JSON.stringify(u)}`);
          return valueAt(update, 'Transaction', 'value', 'events') ?? update;
        });
      });
    });
  }

  private async operation(op: string, alice: string, bob: string, mallory: string, spent: string[]): Promise<void> {
    const hs = await this.unlocked(alice);
    const inputs = this.pickInputs(hs);
    const amount = this.amountWithin(this.total(hs, inputs));
    const tf = (name: string, receiver: string, ins: string[], ms: number) =>
      this.factoryCall(name, [alice], '/registry/transfer-instruction/v1/transfer-factory', IFACE.TransferFactoryV1, 'TransferFactory_Transfer', (s) =>
        this.transferArg(s, alice, receiver, amount, ins, ms),
      );
    if (op === 'self') {
      const r = await tf(`self transfer ${amount}`, alice, inputs, 3_600_000);
      if (r.tx?.status === 200) spent.push(...inputs);
      return;
    }
    if (op === 'double-spend') {
      const reused = spent.length > 0 ? [this.rnd.pick(spent)] : [...inputs, ...inputs];
      await tf(`double spend ${reused.join(',')}`, bob, reused, 3_600_000);
      return;
    }
    if (op === 'offer') {
      const short = this.rnd.chance(0.3);
      const r = await tf(`offer ${amount} to ${bob}`, bob, inputs, short ? 120_000 : 3_600_000);
      if (r.tx?.status !== 200) return;
      spent.push(...inputs);
      const instr = valueAt(rootResult(r.tx), 'output', 'value', 'transferInstructionCid');
      if (typeof instr !== 'string' || !instr) return;
      const how = this.rnd.pick(['accept', 'accept', 'reject', 'withdraw', 'wrong-actor', 'expire', 'pending']);
      const path = (action: string) => `/registry/transfer-instruction/v1/{cid}/choice-contexts/${action}`;
      const act = (name: string, who: string, action: string, choice: string) => this.contextCall(name, [who], path(action), IFACE.TransferInstructionV1, instr, choice);
      if (how === 'accept') await act('accept', bob, 'accept', 'TransferInstruction_Accept');
      else if (how === 'reject') await act('reject', bob, 'reject', 'TransferInstruction_Reject');
      else if (how === 'withdraw') await act('withdraw', alice, 'withdraw', 'TransferInstruction_Withdraw');
      else if (how === 'wrong-actor') {
        await act('accept by a third party', mallory, 'accept', 'TransferInstruction_Accept');
        await act('withdraw by the receiver', bob, 'withdraw', 'TransferInstruction_Withdraw');
        await act('accept', bob, 'accept', 'TransferInstruction_Accept');
        await act('accept again', bob, 'accept', 'TransferInstruction_Accept');
      } else if (how === 'expire') {
        this.pair.advance(short ? 180_000 : 3_700_000);
        if (!this.token.nativeAcceptChecksExecuteBefore) await act('accept after executeBefore', bob, 'accept', 'TransferInstruction_Accept');
        await act('withdraw after executeBefore', alice, 'withdraw', 'TransferInstruction_Withdraw');
      }
      return;
    }
    if (op === 'allocate') {
      const ref = `settle-${this.rnd.int(1, 1_000_000)}`;
      const r = await this.factoryCall(`allocate ${amount} to ${bob}`, [alice], '/registry/allocation-instruction/v1/allocation-factory', IFACE.AllocationFactoryV1, 'AllocationFactory_Allocate', (s) =>
        this.allocateArg(s, alice, bob, amount, inputs, 7_200_000, ref),
      );
      if (r.tx?.status !== 200) return;
      spent.push(...inputs);
      const alloc = valueAt(rootResult(r.tx), 'output', 'value', 'allocationCid');
      if (typeof alloc !== 'string' || !alloc) return;
      const path = (action: string) => `/registry/allocations/v1/{cid}/choice-contexts/${action}`;
      const act = (name: string, who: string[], action: string, choice: string) => this.contextCall(name, who, path(action), IFACE.AllocationV1, alloc, choice);
      const how = this.rnd.pick(['execute', 'execute', 'cancel', 'withdraw', 'wrong-actor', 'expire', 'pending']);
      if (how === 'execute') await act('execute', ['@executor', alice, bob], 'execute-transfer', 'Allocation_ExecuteTransfer');
      else if (how === 'cancel') await act('cancel', ['@executor', alice, bob], 'cancel', 'Allocation_Cancel');
      else if (how === 'withdraw') await act('withdraw', [alice], 'withdraw', 'Allocation_Withdraw');
      else if (how === 'wrong-actor') {
        await act('execute by the executor alone', ['@executor'], 'execute-transfer', 'Allocation_ExecuteTransfer');
        await act('withdraw by the receiver', [bob], 'withdraw', 'Allocation_Withdraw');
        await act('execute', ['@executor', alice, bob], 'execute-transfer', 'Allocation_ExecuteTransfer');
        await act('execute again', ['@executor', alice, bob], 'execute-transfer', 'Allocation_ExecuteTransfer');
      } else if (how === 'expire') {
        this.pair.advance(7_300_000);
        await act('execute after settleBefore', ['@executor', alice, bob], 'execute-transfer', 'Allocation_ExecuteTransfer');
        await act('withdraw after settleBefore', [alice], 'withdraw', 'Allocation_Withdraw');
      }
    }
  }
}
