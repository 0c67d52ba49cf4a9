/**
 * Differential testing of the two template engines: the same wallet-like steps run on two
 * emulated stacks started in process (`startStack`), one with the hand-written templates
 * (TEMPLATE_ENGINE=native) and one running the real DARs through the Daml-LF evaluator
 * (TEMPLATE_ENGINE=daml, DARS_DIR=../shared/dars). Each step's answer (created payloads, exercise
 * results, events, interface views, errors) is normalized on each side and compared.
 *
 * Normalization replaces what legitimately differs between two ledgers by placeholders numbered
 * in order of first appearance, per side: contract ids, update ids, command/submission ids,
 * offsets, record/effective/created times, created-event blobs (their bytes are an encoding
 * detail), trace and correlation ids. Two identical runs therefore give identical normalized
 * answers, and a contract id that one side creates where the other does not shows up as a
 * different placeholder.
 *
 * Steps are written once against a `Side`: a closure receives the side and resolves logical
 * references (`#cid3`) back to that side's real ids, so the flows drive both stacks in lockstep.
 * A flow stops at its first difference (what follows would only diverge further).
 */
import { writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import { ManualClock } from '../../../../src/canton/clock.js';
import { formatTime } from '../../../../src/canton/lf-value.js';
import { startStack, type RunningStack } from '../../../../src/stack.js';
import type { DemoWorld } from '../../../../src/emulator/world/seed.js';
import type { EmulatorConfigInput } from '../../../../src/config/schema.js';
import { isObject } from '../../../../src/canton/json-shape.js';

export type Engine = 'native' | 'daml';

/** The DARs the daml side uploads (relative to the project root, where vitest runs). */
export const DARS_DIR = '../shared/dars';

/** The world both stacks start with (parties, two test-token instruments, Canton Coin). */
export const DIFF_WORLD: DemoWorld = {
  parties: [
    { hint: 'token-admin', role: 'instrument admin' },
    { hint: 'executor', role: 'settlement executor' },
    { hint: 'DSO', role: 'Canton Coin DSO' },
    { hint: 'validator', role: 'validator operator' },
  ],
  instruments: [
    { token: 'splice-test-token-v1', admin: 'token-admin', id: 'TT1', name: 'Test Token One', symbol: 'TT1', decimals: 10, holdings: [] },
    { token: 'splice-test-token-v2', admin: 'token-admin', id: 'TT2', name: 'Test Token Two', symbol: 'TT2', decimals: 10, holdings: [] },
  ],
  amulet: { dso: 'DSO', validator: 'validator', holdings: [], wallets: [], featuredApps: [] },
};

export const START = '2026-05-01T10:00:00Z';

// ---- seeded PRNG -------------------------------------------------------------------------------

/** mulberry32: small, seedable, good enough to pick flows. */
export class Prng {
  private s: number;
  constructor(readonly seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  /** A Decimal amount with up to `decimals` fraction digits, in [lo, hi]. */
  amount(lo: number, hi: number, decimals = 2): string {
    const units = this.int(lo * 10 ** decimals, hi * 10 ** decimals);
    if (decimals === 0) return String(units);
    const s = String(units).padStart(decimals + 1, '0');
    return `${s.slice(0, -decimals)}.${s.slice(-decimals)}`;
  }
}

/** The seed of this run: DIFF_SEED when given (to replay a failure), else time-based; printed. */
export function runSeed(label: string): number {
  const seed = process.env.DIFF_SEED ? Number(process.env.DIFF_SEED) : Date.now() % 2 ** 31;
  console.log(`[differential ${label}] seed ${seed} (replay with DIFF_SEED=${seed})`);
  return seed;
}

/** How many random flows a test runs: DIFF_FLOWS, else `dflt`. */
export function flowCount(dflt: number): number {
  return process.env.DIFF_FLOWS ? Number(process.env.DIFF_FLOWS) : dflt;
}

// ---- normalization -------------------------------------------------------------------------------

const CID = /\b00[0-9a-f]{136}\b/g;
const HASH_KEYS = new Set(['updateId', 'commandId', 'submissionId', 'workflowId', 'traceId', 'correlationId', 'synchronizerId']);
const OFFSET_KEYS = new Set(['offset', 'completionOffset', 'activeAtOffset', 'createdAtOffset']);
const TIME_KEYS = new Set(['recordTime', 'effectiveAt', 'createdAt', 'lastRenewedAt']);
const DROP_KEYS = new Set(['createdEventBlob', 'traceContext', 'paidTrafficCost', 'tid']);

/** Per-side placeholder maps: real value ↔ `#<kind><n>`, n by order of first appearance. */
export class Normalizer {
  private readonly toLogical = new Map<string, string>();
  private readonly toReal = new Map<string, string>();
  private readonly counters = new Map<string, number>();

  private name(kind: string, real: string): string {
    const k = `${kind}|${real}`;
    let l = this.toLogical.get(k);
    if (l === undefined) {
      const n = (this.counters.get(kind) ?? 0) + 1;
      this.counters.set(kind, n);
      l = `#${kind}${n}`;
      this.toLogical.set(k, l);
      this.toReal.set(l, real);
    }
    return l;
  }

  /** The real value of a placeholder this side has seen. */
  real(logical: string): string {
    const r = this.toReal.get(logical);
    if (r === undefined) throw new Error(`no ${logical} on this side`);
    return r;
  }

  /** Replaces every placeholder in a JSON value (deeply) by this side's real values. */
  resolve<T>(v: T): T {
    return JSON.parse(JSON.stringify(v).replace(/#cid\d+/g, (m) => this.real(m))) as T;
  }

  text(s: string): string {
    return s.replace(CID, (c) => this.name('cid', c));
  }

  value(v: unknown, key = ''): unknown {
    if (v === null || v === undefined) return v;
    if (DROP_KEYS.has(key)) return v === '' ? '' : '<dropped>';
    if (typeof v === 'string') {
      if (HASH_KEYS.has(key)) return v === '' ? '' : this.name(key, v);
      if (TIME_KEYS.has(key)) return this.name('time', v);
      if (OFFSET_KEYS.has(key)) return this.name('offset', v);
      return this.text(v);
    }
    if (typeof v === 'number') return OFFSET_KEYS.has(key) ? this.name('offset', String(v)) : v;
    if (Array.isArray(v)) return v.map((x) => this.value(x));
    if (typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = this.value(x, k);
      return out;
    }
    return v;
  }
}

// ---- one side ------------------------------------------------------------------------------------

export interface Answer {
  status: number;
  body: unknown;
}

/** A disclosed contract as the JSON API takes it. */
export interface DisclosedJson {
  templateId: string;
  contractId: string;
  createdEventBlob: string;
  synchronizerId: string;
}

export class Side {
  /** Placeholders of the current flow (each flow starts afresh, so one divergence stays in its flow). */
  norm = new Normalizer();
  private commandNo = 0;
  constructor(
    readonly engine: Engine,
    readonly stack: RunningStack,
    readonly clock: ManualClock,
  ) {}

  party(hint: string): string {
    const p = this.stack.seeded?.parties.find((x) => x.hint === hint)?.party;
    if (!p) throw new Error(`no party ${hint}`);
    return p;
  }

  async call(base: string, path: string, body?: unknown): Promise<Answer> {
    const init: RequestInit = body === undefined ? {} : { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
    const r = await fetch(base + path, init);
    const text = await r.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      // text/plain answers (a malformed body) stay text
    }
    return { status: r.status, body: parsed };
  }

  ledger(path: string, body?: unknown): Promise<Answer> {
    return this.call(this.stack.ledgerUrl, path, body);
  }

  /** The admin's registry (test tokens) or the Amulet registry at the scan host. */
  async registry(which: 'admin' | 'amulet', path: string, body: unknown): Promise<Answer> {
    const base = which === 'admin' ? this.stack.registryUrl : this.stack.scanUrl;
    const registry = which === 'admin' ? this.stack.registry : this.stack.amuletRegistry;
    if (!base || !registry) throw new Error(`no ${which} registry on the ${this.engine} stack`);
    // The registry follows the ledger by polling; both sides must answer from the same state.
    await registry.index.catchUp();
    return this.call(base, path, body);
  }

  async allocateParty(hint: string): Promise<string> {
    const r = await this.ledger('/v2/parties', { partyIdHint: hint, identityProviderId: '' });
    if (r.status !== 200) throw new Error(`party allocation failed on ${this.engine}: ${JSON.stringify(r.body)}`);
    return (r.body as { partyDetails: { party: string } }).partyDetails.party;
  }

  /** submit-and-wait-for-transaction, LEDGER_EFFECTS, verbose, filtered for the submitters. */
  submit(actAs: string[], commands: unknown[], disclosedContracts: DisclosedJson[] = []): Promise<Answer> {
    return this.ledger('/v2/commands/submit-and-wait-for-transaction', {
      commands: { commands, commandId: `diff-${++this.commandNo}`, actAs, userId: 'differential', disclosedContracts },
      transactionFormat: {
        eventFormat: { filtersByParty: Object.fromEntries(actAs.map((p) => [p, { cumulative: [] }])), verbose: true },
        transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
      },
    });
  }

  async ledgerEnd(): Promise<number> {
    const r = await this.ledger('/v2/state/ledger-end');
    return (r.body as { offset: number }).offset;
  }

  /** Active contracts of `party` through one filter, in ledger order. */
  async acs(party: string, identifierFilter: unknown): Promise<Answer> {
    return this.ledger('/v2/state/active-contracts', {
      eventFormat: { filtersByParty: { [party]: { cumulative: [{ identifierFilter }] } }, verbose: true },
      activeAtOffset: await this.ledgerEnd(),
    });
  }

  /** Transactions visible to `party` in (begin, ledger end], LEDGER_EFFECTS. */
  async updates(party: string, beginExclusive: number): Promise<Answer> {
    return this.ledger('/v2/updates', {
      beginExclusive,
      endInclusive: await this.ledgerEnd(),
      updateFormat: {
        includeTransactions: {
          eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: true },
          transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        },
      },
    });
  }

  /** `now + ms` as a Daml Time. */
  at(ms: number): string {
    return formatTime(this.clock.nowMicros() + BigInt(ms) * 1000n);
  }
}

/** Config of one side's stack (TEMPLATE_ENGINE and DARS_DIR). */
function stackConfig(engine: Engine): EmulatorConfigInput {
  const base: EmulatorConfigInput = { port: 0, logLevel: 'silent', seed: 'differential', world: DIFF_WORLD };
  return engine === 'daml' ? { ...base, templateEngine: 'daml', darsDir: DARS_DIR } : { ...base, templateEngine: 'native' };
}

/** The engine of the second stack: daml, unless DIFF_B=native (to check the harness itself). */
export function secondEngine(): Engine {
  return process.env.DIFF_B === 'native' ? 'native' : 'daml';
}

export async function startSide(engine: Engine): Promise<Side> {
  const clock = new ManualClock(START);
  const stack = await startStack({ config: stackConfig(engine), clock, registryPort: 0, scanPort: 0, validatorPort: 0 });
  return new Side(engine, stack, clock);
}

// ---- running steps on both sides -------------------------------------------------------------------

export interface Difference {
  flow: string;
  step: string;
  native: unknown;
  other: unknown;
}

export class FlowDiverged extends Error {
  constructor(readonly difference: Difference) {
    super(`${difference.flow}: step "${difference.step}" differs`);
  }
}

/** Both sides, driven in lockstep; differences are collected per flow. */
export class Pair {
  readonly differences: Difference[] = [];
  flowName = '';
  steps = 0;

  constructor(
    readonly a: Side,
    readonly b: Side,
    /** Rewrites both normalized answers before comparing: known, documented gaps only. */
    private readonly knownGaps: (normalized: unknown) => unknown = (x) => x,
  ) {}

  static async start(knownGaps?: (normalized: unknown) => unknown): Promise<Pair> {
    const [a, b] = await Promise.all([startSide('native'), startSide(secondEngine())]);
    return new Pair(a, b, knownGaps);
  }

  async close(): Promise<void> {
    await Promise.all([this.a.stack.close(), this.b.stack.close()]);
  }

  /** Moves both manual clocks. */
  advance(ms: number): void {
    this.a.clock.advance(ms);
    this.b.clock.advance(ms);
  }

  /**
   * Runs `f` on both sides (native first), normalizes each answer with its side's maps and
   * compares them; returns the normalized answer. A difference ends the flow.
   */
  async step(name: string, f: (s: Side) => Promise<unknown>): Promise<unknown> {
    this.steps++;
    const ra = await f(this.a);
    const rb = await f(this.b);
    const na = this.knownGaps(this.a.norm.value(ra));
    const nb = this.knownGaps(this.b.norm.value(rb));
    if (process.env.DIFF_VERBOSE) console.log(`${this.flowName} / ${name}: ${JSON.stringify(na).slice(0, 300)}`);
    if (JSON.stringify(na) !== JSON.stringify(nb)) {
      const d: Difference = { flow: this.flowName, step: name, native: na, other: nb };
      this.differences.push(d);
      throw new FlowDiverged(d);
    }
    return na;
  }

  /** Runs one flow; a divergence is recorded and ends only this flow. */
  async flow(name: string, body: () => Promise<void>): Promise<void> {
    this.flowName = name;
    this.a.norm = new Normalizer();
    this.b.norm = new Normalizer();
    try {
      await body();
    } catch (e) {
      if (!(e instanceof FlowDiverged)) throw e;
    }
  }

  /** Fails the test with the differences found (where each first differs, and both answers). */
  expectNoDifferences(): void {
    const shown = this.differences.map((d) => {
      const at = firstDifference(d.native, d.other, '$');
      return `--- ${d.flow} / ${d.step}\n  at ${at.path}: native ${JSON.stringify(at.a)} vs ${this.b.engine} ${JSON.stringify(at.b)}\n  native: ${JSON.stringify(d.native)}\n  ${this.b.engine}: ${JSON.stringify(d.other)}`;
    });
    if (shown.length > 0) console.log(shown.join('\n'));
    // DIFF_OUT=<file>: the differences in full, as JSON, for reading.
    if (process.env.DIFF_OUT) writeFileSync(process.env.DIFF_OUT, JSON.stringify(this.differences, null, 1));
    expect(this.differences.length, `${this.differences.length} differences over ${this.steps} steps\n${shown.join('\n')}`).toBe(0);
  }
}

/** The first place (JSON path) where two values differ. */
export function firstDifference(a: unknown, b: unknown, path: string): { path: string; a: unknown; b: unknown } {
  if (JSON.stringify(a) === JSON.stringify(b)) return { path, a, b };
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (JSON.stringify(a[i]) !== JSON.stringify(b[i])) return firstDifference(a[i], b[i], `${path}[${i}]`);
    }
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    for (const k of new Set([...Object.keys(ra), ...Object.keys(rb)])) {
      if (JSON.stringify(ra[k]) !== JSON.stringify(rb[k])) return firstDifference(ra[k], rb[k], `${path}.${k}`);
    }
  }
  return { path, a, b };
}

// ---- answers, reduced to what the two engines must agree on --------------------------------------------

/** A JSON API error body without what is per request (trace, correlation). */
export function errorOf(a: Answer): unknown {
  if (a.body === null || typeof a.body !== 'object') return { status: a.status, body: a.body };
  const { traceId: _t, correlationId: _c, ...rest } = a.body as Record<string, unknown>;
  return { status: a.status, ...rest };
}

/** A submission's answer: its transaction (events, in order) or its error. */
export function txOf(a: Answer): unknown {
  if (a.status !== 200) return errorOf(a);
  return { status: 200, events: (a.body as { transaction: { events: unknown[] } }).transaction.events };
}

// ---- reading JSON values of unknown shape -----------------------------------------------------------

/** The value at `path` (object keys) in a JSON value; `undefined` where the path does not exist. */
export function valueAt(v: unknown, ...path: string[]): unknown {
  let x = v;
  for (const k of path) {
    if (!isObject(x)) return undefined;
    x = x[k];
  }
  return x;
}

/** The array at `path` in a JSON value; `undefined` when there is none (or something else is there). */
export function arrayAt(v: unknown, ...path: string[]): unknown[] | undefined {
  const x = valueAt(v, ...path);
  return Array.isArray(x) ? x : undefined;
}

/** The root exercise result of a successful submission (normalized form). */
export function rootResult(normalizedTx: unknown): unknown {
  if (normalizedTx === null || normalizedTx === undefined) throw new Error(`no transaction: ${String(normalizedTx)}`);
  const root = arrayAt(normalizedTx, 'events')?.find((e) => valueAt(e, 'ExercisedEvent', 'nodeId') === 0);
  return valueAt(root, 'ExercisedEvent', 'exerciseResult');
}

/** Created contract ids (placeholders) of a normalized transaction, by template entity name. */
export function createdOf(normalizedTx: unknown, entity: string): string[] {
  if (normalizedTx === null || normalizedTx === undefined) throw new Error(`no transaction: ${String(normalizedTx)}`);
  return (arrayAt(normalizedTx, 'events') ?? []).flatMap((e) => {
    const c = valueAt(e, 'CreatedEvent');
    if (!isObject(c) || !String(c.templateId).endsWith(`:${entity}`)) return [];
    return [String(c.contractId)];
  });
}
