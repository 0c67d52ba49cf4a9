/**
 * The emulator's admin operations, without HTTP (routes in ./routes.ts): what a test suite in any
 * language uses to set up and reset its world between tests, as the Firebase Emulator Suite's
 * REST API does for Firebase. Snapshots and restores (./world-state.ts), the world's clock
 * (./clock.ts), minting and funding with the seeded registries' instruments, and holdings.
 *
 * KNOWN LIMITATIONS (README "Between tests" lists them too):
 *  - snapshots live in memory, for the life of the process; with STATE_DIR a restore is written to
 *    disk (a compaction); a clock advance is journaled there like any change (./clock.ts);
 *  - a restore does not take back DAR uploads, and ids keep counting (world-state.ts says why);
 *  - open websocket streams of the ledger end at a restore with SERVICE_NOT_RUNNING (the ledger
 *    they followed was replaced); an open-ended HTTP list poll in flight ends at its idle timeout;
 *  - the registries' contract indexes reload after a restore; until then they answer 503, and
 *    their caches may still answer a contract of the discarded timeline by id until its TTL;
 *  - mint and fund act on the first participant, so the owner must be hosted there; instruments
 *    are the seeded ones (test tokens by id, Canton Coin as `Amulet`), minted as their issuers'
 *    own test utilities do (TestTokenV1 `Token` create, TestTokenV2 `TokenRules_OfferMint`,
 *    Amulet `AmuletRules_DevNet_Tap`);
 *  - clock advances are in whole or fractional seconds, forward only; the Amulet round automation
 *    then advances rounds as far as their Daml preconditions allow at the new time (one step per
 *    pass after the newest round, templates/amulet/index.ts), not one round per elapsed tick.
 */
import { formatInstant } from '../../canton/clock.js';
import { ArgumentError, formatDecimal, parseDecimal } from '../../canton/lf-value.js';
import { LedgerApiError } from '../../canton/errors.js';
import type { LedgerEngine } from '../participant/engine.js';
import { nameKey, type ContractRecord } from '../participant/types.js';
import type { SeededWorld } from '../world/seed.js';
import { TS } from '../templates/token-standard.js';
import { mintTestTokenV1 } from '../templates/test-token-v1/index.js';
import { mintTestTokenV2 } from '../templates/test-token-v2/index.js';
import { tapAmulet } from '../templates/amulet/index.js';
import { captureWorld, restoreWorld, type WorldParts, type WorldSnapshot } from './world-state.js';

/** A request the admin API refuses: 400 (bad input) or 404 (unknown snapshot, party, instrument); nothing changed. */
export class AdminError extends Error {
  constructor(
    readonly status: 400 | 404,
    message: string,
  ) {
    super(message);
  }
}

export interface AdminServiceDeps {
  world: WorldParts;
  /** The demo world (its parties' names and its instruments); without it, nothing can be minted. */
  seeded?: SeededWorld;
  /**
   * Called after every restore, once the stores hold the snapshot: the stack ends open streams,
   * reloads its registries' indexes and, with STATE_DIR, writes the restored world to disk.
   */
  afterRestore?: () => Promise<void>;
  /** Told after each restore, reset and clock advance (the explorer's live feed says so to its pages). */
  onWorldChange?: (change: 'restored' | 'reset' | 'clock') => void;
}

export type InstrumentKind = 'splice-test-token-v1' | 'splice-test-token-v2' | 'amulet';

export interface AdminInstrument {
  id: string;
  admin: string;
  kind: InstrumentKind;
  /** Places the instrument's amounts may have. */
  decimals: number;
}

export interface Minted {
  contractId: string;
  updateId: string;
}

export interface HoldingLine {
  contractId: string;
  instrument: { admin: string; id: string };
  amount: string;
  locked: boolean;
  templateId: string;
}

export interface Holdings {
  party: string;
  /** Per instrument: the unlocked amount (what can be spent) and the locked one. */
  balances: Array<{ instrument: { admin: string; id: string }; amount: string; locked: string }>;
  holdings: HoldingLine[];
}

export interface Funded {
  party: string;
  instrument: { admin: string; id: string };
  /** The unlocked balance after funding. */
  balance: string;
  /** The holding minted to reach `atLeast`; null when the balance already reached it. */
  minted: Minted | null;
}

export class AdminService {
  private readonly snapshots = new Map<string, WorldSnapshot>();
  private readonly initial: WorldSnapshot;
  private nextSnapshot = 1;
  /** Restores run one at a time (each awaits the stack's hook). */
  private restoring: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: AdminServiceDeps) {
    // The world as the stack started it: what `reset` goes back to.
    this.initial = captureWorld(deps.world);
  }

  private get engine(): LedgerEngine {
    return this.deps.world.participants[0]!;
  }

  // ---- snapshots --------------------------------------------------------------------------------

  snapshot(): { id: string; ledgerEnds: number[] } {
    const s = captureWorld(this.deps.world);
    const id = `snapshot-${this.nextSnapshot++}`;
    this.snapshots.set(id, s);
    return { id, ledgerEnds: [...s.ledgerEnds] };
  }

  restore(id: string): Promise<{ id: string; ledgerEnds: number[] }> {
    const s = this.snapshots.get(id);
    if (!s) return Promise.reject(new AdminError(404, `no snapshot with id "${id}"`));
    return this.restoreTo(s, 'restored').then((ledgerEnds) => ({ id, ledgerEnds }));
  }

  /** Back to the world as the stack started (the seeded demo world; with STATE_DIR, as loaded). */
  reset(): Promise<{ ledgerEnds: number[] }> {
    return this.restoreTo(this.initial, 'reset').then((ledgerEnds) => ({ ledgerEnds }));
  }

  private restoreTo(s: WorldSnapshot, change: 'restored' | 'reset'): Promise<number[]> {
    const run = this.restoring.then(async () => {
      restoreWorld(this.deps.world, s);
      await this.deps.afterRestore?.();
      this.deps.onWorldChange?.(change);
      return this.deps.world.participants.map((e) => e.ledgerEnd());
    });
    this.restoring = run.catch(() => undefined);
    return run;
  }

  // ---- clock ------------------------------------------------------------------------------------

  clock(): { now: string; skewSeconds: number } {
    const c = this.deps.world.clock;
    return { now: formatInstant(c.nowMicros()), skewSeconds: Number(c.skewMicros) / 1e6 };
  }

  /** Moves the world's time forward, then runs each participant's automation (Amulet rounds, wallet expiries). */
  advanceClock(seconds: number): { now: string; skewSeconds: number } {
    if (!Number.isFinite(seconds) || seconds <= 0) throw new AdminError(400, `seconds must be a positive number, got ${String(seconds)}`);
    const micros = BigInt(Math.round(seconds * 1e6));
    if (micros <= 0n) throw new AdminError(400, `seconds must be at least one microsecond, got ${seconds}`);
    this.deps.world.clock.advance(micros);
    for (const e of this.deps.world.participants) e.runAutomations();
    this.deps.onWorldChange?.('clock');
    return this.clock();
  }

  // ---- parties and instruments ------------------------------------------------------------------

  /** A party id, or the name (hint) of a seeded party; 404 when the first participant does not know it. */
  resolveParty(nameOrId: string): string {
    const seeded = this.deps.seeded?.parties.find((p) => p.hint === nameOrId);
    if (seeded) return seeded.party;
    if (this.deps.world.participants.some((e) => e.parties.has(nameOrId))) return nameOrId;
    throw new AdminError(404, `unknown party "${nameOrId}" (give a party id or a seeded party's name: ${this.partyNames().join(', ')})`);
  }

  instruments(): AdminInstrument[] {
    const out: AdminInstrument[] = (this.deps.seeded?.instruments ?? []).map((i) => ({ id: i.id, admin: i.adminParty, kind: i.token, decimals: i.decimals }));
    const amulet = this.deps.seeded?.amulet;
    if (amulet) out.push({ id: 'Amulet', admin: amulet.dso, kind: 'amulet', decimals: 10 });
    return out;
  }

  resolveInstrument(id: string): AdminInstrument {
    const found = this.instruments().find((i) => i.id === id);
    if (!found) throw new AdminError(404, `unknown instrument "${id}" (the seeded registries serve: ${this.instruments().map((i) => i.id).join(', ') || 'none'})`);
    return found;
  }

  private partyNames(): string[] {
    return (this.deps.seeded?.parties ?? []).map((p) => p.hint);
  }

  // ---- minting ----------------------------------------------------------------------------------

  mint(req: { instrument: string; owner: string; amount: string }): Minted {
    const instrument = this.resolveInstrument(req.instrument);
    const owner = this.resolveParty(req.owner);
    const amount = positiveAmount(req.amount, 'amount', instrument.decimals);
    return this.mintScaled(instrument, owner, amount);
  }

  /** Tops `owner` up to at least `atLeast` of the instrument (unlocked), minting the difference. */
  fund(req: { owner: string; instrument: string; atLeast: string }): Funded {
    const instrument = this.resolveInstrument(req.instrument);
    const owner = this.resolveParty(req.owner);
    const target = amountOf(req.atLeast, 'atLeast', instrument.decimals);
    if (target < 0n) throw new AdminError(400, `atLeast must not be negative, got ${req.atLeast}`);
    const before = this.unlockedBalance(owner, instrument);
    const ref = { admin: instrument.admin, id: instrument.id };
    if (before >= target) return { party: owner, instrument: ref, balance: formatDecimal(before), minted: null };
    const minted = this.mintScaled(instrument, owner, target - before);
    return { party: owner, instrument: ref, balance: formatDecimal(this.unlockedBalance(owner, instrument)), minted };
  }

  private mintScaled(instrument: AdminInstrument, owner: string, scaled: bigint): Minted {
    const amount = formatDecimal(scaled);
    const engine = this.engine;
    let cid: string;
    try {
      switch (instrument.kind) {
        case 'splice-test-token-v1':
          cid = mintTestTokenV1(engine, { admin: instrument.admin, owner, instrumentId: instrument.id, amount });
          break;
        case 'splice-test-token-v2':
          cid = mintTestTokenV2(engine, { admin: instrument.admin, owner, instrumentId: instrument.id, amount });
          break;
        case 'amulet':
          cid = tapAmulet(engine, { dso: instrument.admin, receiver: owner, amount });
          break;
      }
    } catch (e) {
      // A refused submission commits nothing; the ledger's own words say why. A server-side
      // refusal (5xx: the ledger cannot persist now) is not the caller's mistake: it goes on to
      // the app's error handler, which answers it as the ledger's unavailability.
      if (e instanceof ArgumentError || (e instanceof LedgerApiError && e.httpStatus < 500)) throw new AdminError(400, `the ledger refused the mint: ${e.message}`);
      throw e;
    }
    const created = engine.contracts.get(cid);
    if (!created) throw new Error(`minted contract ${cid} is not in the store`);
    return { contractId: cid, updateId: created.createdUpdateId };
  }

  // ---- holdings ---------------------------------------------------------------------------------

  holdings(nameOrId: string): Holdings {
    const party = this.resolveParty(nameOrId);
    const lines = this.holdingLines(party);
    const balances = new Map<string, { instrument: { admin: string; id: string }; amount: bigint; locked: bigint }>();
    for (const h of lines) {
      const key = `${h.instrument.admin}\n${h.instrument.id}`;
      let b = balances.get(key);
      if (!b) balances.set(key, (b = { instrument: h.instrument, amount: 0n, locked: 0n }));
      if (h.locked) b.locked += parseDecimal(h.amount);
      else b.amount += parseDecimal(h.amount);
    }
    return {
      party,
      balances: [...balances.values()].map((b) => ({ instrument: b.instrument, amount: formatDecimal(b.amount), locked: formatDecimal(b.locked) })),
      holdings: lines,
    };
  }

  private unlockedBalance(owner: string, instrument: AdminInstrument): bigint {
    let sum = 0n;
    for (const h of this.holdingLines(owner)) {
      if (!h.locked && h.instrument.admin === instrument.admin && h.instrument.id === instrument.id) sum += parseDecimal(h.amount);
    }
    return sum;
  }

  /** The party's active holdings (HoldingV1 views owned by it) on a participant hosting it. */
  private holdingLines(party: string): HoldingLine[] {
    const participants = this.deps.world.participants;
    const engine = participants.find((e) => e.parties.isLocal(party)) ?? this.engine;
    // As a wallet sees them: after the background automation at the current time.
    engine.runAutomations();
    const end = engine.ledgerEnd();
    const holdingKey = nameKey(TS.HoldingV1.id);
    const out: HoldingLine[] = [];
    for (const c of engine.contracts.activeAt(end, end, new Set([party]))) {
      const view = holdingView(engine, c, holdingKey);
      if (!view || view.owner !== party) continue;
      out.push({
        contractId: c.contractId,
        instrument: { admin: view.instrumentId.admin, id: view.instrumentId.id },
        amount: formatDecimal(parseDecimal(view.amount)),
        locked: view.lock !== null && view.lock !== undefined,
        templateId: `${c.templateId.packageId}:${c.templateId.moduleName}:${c.templateId.entityName}`,
      });
    }
    return out;
  }
}

export interface HoldingViewV1 {
  owner: string;
  instrumentId: { admin: string; id: string };
  amount: string;
  lock: unknown;
}

/** The HoldingV1 view of a contract whose template implements it; undefined otherwise. */
export function holdingView(engine: LedgerEngine, c: ContractRecord, holdingKey: string): HoldingViewV1 | undefined {
  const impl = engine.templates.templateById(c.templateId)?.implements.find((i) => nameKey(i.interface.id) === holdingKey);
  if (!impl) return undefined;
  let view: unknown;
  try {
    view = impl.view(c.payload);
  } catch {
    // An evaluated view can fail (Canton reports it in viewStatus); such a contract is no holding here.
    return undefined;
  }
  return isHoldingView(view) ? view : undefined;
}

function isHoldingView(v: unknown): v is HoldingViewV1 {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  const i = r.instrumentId as Record<string, unknown> | null | undefined;
  return typeof r.owner === 'string' && typeof r.amount === 'string' && typeof i === 'object' && i !== null && typeof i.admin === 'string' && typeof i.id === 'string';
}

/** A decimal amount with at most `places` decimals, scaled to Daml's 10. */
function amountOf(text: string, field: string, places: number): bigint {
  let scaled: bigint;
  try {
    scaled = parseDecimal(text, field);
  } catch (e) {
    throw new AdminError(400, e instanceof Error ? e.message : String(e));
  }
  const unit = 10n ** BigInt(10 - places);
  if (scaled % unit !== 0n) throw new AdminError(400, `${field}: ${text} has more than the instrument's ${places} decimal places`);
  return scaled;
}

function positiveAmount(text: string, field: string, places: number): bigint {
  const scaled = amountOf(text, field, places);
  if (scaled <= 0n) throw new AdminError(400, `${field} must be positive, got ${text}`);
  return scaled;
}
