/**
 * Sequencer traffic control of the emulated synchronizer, as Canton meters it (Canton docs
 * "Traffic management"; `EventCostCalculator`, `TrafficConsumed`, `TrafficControlParameters`):
 * every confirmation request a member submits costs bytes; a free base rate (at most
 * `maxBaseTrafficAmount` bytes, refilled linearly over `maxBaseTrafficAccumulationDuration`)
 * pays first, the rest is extra traffic, consumed from what the member bought (on Canton
 * Network: MemberTraffic contracts, which the SVs turn into the member's extra traffic limit).
 * The cost is what the participant reports as `paidTrafficCost` on the transaction and its
 * completion.
 *
 * Cost of one event (`EventCostCalculator`, integer arithmetic): for each envelope,
 * `size + size * recipients * readVsWriteScalingFactor / 10000` (the factor in parts per
 * 10,000), summed, plus `baseEventCost`.
 *
 * APPROXIMATIONS (the emulator has no sequencer, views or encryption):
 *  - a confirmation request is one envelope, to the one participant hosting the informees;
 *  - its size is the bytes of the contract instances the views carry (the serialized instances of
 *    the transaction's input contracts, disclosed or fetched, and of the contracts it creates,
 *    i.e. their created-event blobs) plus the UTF-8 JSON of each exercise's argument, plus a fixed
 *    REQUEST_OVERHEAD_BYTES for the request's root hash and informee messages;
 *  - traffic is metered but never enforced: a member without traffic is not rejected
 *    (Canton rejects its submission with SEQUENCER_NOT_ENOUGH_TRAFFIC...).
 */
import type { ContractRecord } from './types.js';
import type { TxNode } from './updates.js';

export interface TrafficControlParameters {
  /** Bytes of free base-rate traffic a member may accumulate (Splice: `burstAmount`). */
  maxBaseTrafficAmount: bigint;
  /** Time to refill the base rate from empty, in microseconds (Splice: `burstWindow`). */
  maxBaseTrafficAccumulationDurationMicros: bigint;
  /** Cost of delivering to a recipient relative to writing, in parts per 10,000. */
  readVsWriteScalingFactor: bigint;
  /** Fixed cost of every event (Canton's default 0). */
  baseEventCost: bigint;
}

/** What the sequencer's traffic control state reports for a member (`TrafficState`). */
export interface MemberTrafficState {
  member: string;
  /** Extra traffic consumed in total (bytes). */
  extraTrafficConsumed: bigint;
  /** Base-rate traffic left at the state's timestamp. */
  baseTrafficRemainder: bigint;
  /** Cost of the member's last event. */
  lastConsumedCost: bigint;
  timestampMicros: bigint;
}

/** Fixed bytes of a request besides its views (root hash message, informee message). */
export const REQUEST_OVERHEAD_BYTES = 512n;

export interface State {
  extraTrafficConsumed: bigint;
  baseTrafficRemainder: bigint;
  lastConsumedCost: bigint;
  timestampMicros: bigint;
}

export class SequencerTraffic {
  private parameters: TrafficControlParameters | undefined;
  private readonly states = new Map<string, State>();

  /** Every member's traffic state (durable state's snapshot). */
  savedStates(): Array<[string, State]> {
    return [...this.states].map(([m, s]) => [m, { ...s }]);
  }
  /** Replaces the members' traffic states with saved ones. */
  restoreStates(states: ReadonlyArray<[string, State]>): void {
    this.states.clear();
    for (const [m, s] of states) this.states.set(m, { ...s });
  }

  /** Enables traffic control (as a synchronizer's dynamic parameters do); undefined disables it. */
  setParameters(p: TrafficControlParameters | undefined): void {
    this.parameters = p && { ...p };
  }

  get enabled(): boolean {
    return this.parameters !== undefined;
  }

  /** `EventCostCalculator` for one envelope of `size` bytes to `recipients` recipients. */
  eventCost(size: bigint, recipients: bigint): bigint {
    const p = this.parameters;
    if (!p) return 0n;
    return size + (size * recipients * p.readVsWriteScalingFactor) / 10_000n + p.baseEventCost;
  }

  /** The size of a confirmation request for a transaction (see APPROXIMATIONS). */
  requestSize(nodes: readonly TxNode[], inputs: Iterable<ContractRecord>, created: Iterable<ContractRecord>): bigint {
    let size = REQUEST_OVERHEAD_BYTES;
    for (const c of inputs) size += blobBytes(c);
    for (const c of created) size += blobBytes(c);
    for (const n of nodes) if (n.kind === 'exercise') size += BigInt(Buffer.byteLength(JSON.stringify(n.choiceArgument) ?? '', 'utf8'));
    return size;
  }

  /**
   * Charges `member` for an event of `cost` bytes sequenced at `atMicros`: the base rate first,
   * the rest as extra traffic. Returns the cost, or undefined when traffic control is off.
   */
  consume(member: string, cost: bigint, atMicros: bigint): bigint | undefined {
    if (!this.parameters) return undefined;
    const s = this.refreshed(member, atMicros);
    if (cost <= s.baseTrafficRemainder) {
      s.baseTrafficRemainder -= cost;
    } else {
      s.extraTrafficConsumed += cost - s.baseTrafficRemainder;
      s.baseTrafficRemainder = 0n;
    }
    s.lastConsumedCost = cost;
    this.states.set(member, s);
    return cost;
  }

  /** The member's state at `atMicros` (base rate refilled up to then). */
  state(member: string, atMicros: bigint): MemberTrafficState {
    return { member, ...this.refreshed(member, atMicros) };
  }

  /** `TrafficConsumed.updateTimestamp`: the base rate refills linearly, capped at its maximum. */
  private refreshed(member: string, atMicros: bigint): State {
    const p = this.parameters;
    const max = p?.maxBaseTrafficAmount ?? 0n;
    const prev = this.states.get(member);
    if (!prev) return { extraTrafficConsumed: 0n, baseTrafficRemainder: max, lastConsumedCost: 0n, timestampMicros: atMicros };
    const s = { ...prev };
    if (p && atMicros > s.timestampMicros && p.maxBaseTrafficAccumulationDurationMicros > 0n) {
      const refill = ((atMicros - s.timestampMicros) * max) / p.maxBaseTrafficAccumulationDurationMicros;
      s.baseTrafficRemainder = s.baseTrafficRemainder + refill > max ? max : s.baseTrafficRemainder + refill;
      s.timestampMicros = atMicros;
    }
    // a lowered maximum (new synchronizer parameters) caps what was accumulated
    if (s.baseTrafficRemainder > max) s.baseTrafficRemainder = max;
    return s;
  }
}

/** Bytes of a contract's blob, from the length of its base64 text (no decoding on every commit). */
const blobBytes = (c: ContractRecord): bigint => {
  const b64 = c.blob;
  const padding = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  return BigInt((b64.length / 4) * 3 - padding);
};
