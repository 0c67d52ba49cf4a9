/**
 * The Daml-LF values TestTokenV2 works with: the token-standard V2 API records (HoldingV2,
 * TransferInstructionV2, AllocationV2, AllocationInstructionV2, TransferEventsV2) and the V1
 * records its adapters produce (Splice `token-standard/splice-api-token-<api>-v<n>/daml/`), as LF JSON in the JSON
 * API's transcode encoding (Canton `JsonCodec`):
 *  - parsers validate a payload or choice argument and normalise it to the canonical JSON (every
 *    field in declaration order, Decimal at scale 10, Time as transcode prints it, TextMap keys
 *    sorted, DA.Map entries sorted by key), throwing ArgumentError (→ COMMAND_PREPROCESSING_FAILED);
 *  - Daml's derived `Show` for values that appear in the reference token's failure messages and
 *    lock contexts (`'party'`, `Some x`, `Account {owner = …, provider = …, id = "…"}`);
 *  - Daml's derived `Ord` where the token sorts or keys maps by a value (DA.Map keys, dedupSort).
 */
import { formatInstant } from '../../../canton/clock.js';
import { ArgumentError } from '../../participant/templates.js';
import {
  expectContractId,
  expectParty,
  expectRecord,
  expectText,
  formatDecimal,
  formatTime,
  parseDecimal,
  parseRelTime,
  parseTime,
  type AnyValue,
  type ExtraArgs,
  type Metadata,
} from '../../../canton/lf-value.js';

// ---- record plumbing --------------------------------------------------------------------------

type Parser<T> = (v: unknown, path: string) => T;

/**
 * Reads a record: rejects keys the type does not have (transcode: "Unexpected fields" for unknown
 * keys with non-null values) and returns the raw object for field access.
 */
function rec(value: unknown, path: string, fields: readonly string[]): Record<string, unknown> {
  const r = expectRecord(value, path);
  const unexpected = Object.keys(r).filter((k) => !fields.includes(k) && r[k] !== null && r[k] !== undefined);
  if (unexpected.length > 0) throw new ArgumentError(`${path}: Unexpected fields: ${unexpected.join(', ')}`);
  return r;
}

/** A non-optional field. */
function req<T>(r: Record<string, unknown>, name: string, path: string, p: Parser<T>): T {
  const v = r[name];
  if (v === undefined || v === null) throw new ArgumentError(`${path}: Missing non-optional field: ${name}`);
  return p(v, `${path}.${name}`);
}

/** An `Optional` field (missing or null is None). */
function opt<T>(r: Record<string, unknown>, name: string, path: string, p: Parser<T>): T | null {
  const v = r[name];
  return v === undefined || v === null ? null : p(v, `${path}.${name}`);
}

export const pParty: Parser<string> = (v, f) => expectParty(v, f);
export const pText: Parser<string> = (v, f) => expectText(v, f);
export const pCid: Parser<string> = (v, f) => expectContractId(v, f);
export const pDecimal: Parser<string> = (v, f) => formatDecimal(parseDecimal(v, f));
export const pTime: Parser<string> = (v, f) => formatTime(parseTime(v, f));
export const pBool: Parser<boolean> = (v, f) => {
  if (typeof v !== 'boolean') throw new ArgumentError(`${f}: expected a Bool, got ${JSON.stringify(v)}`);
  return v;
};
/** Int64 in `Long.parseLong` syntax (an optional sign, decimal digits), as Canton's JSON codec reads it. */
export const pInt: Parser<string> = (v, f) => {
  if ((typeof v === 'string' && /^[+-]?\d+$/.test(v)) || (typeof v === 'number' && Number.isInteger(v))) return BigInt(v).toString();
  throw new ArgumentError(`${f}: expected an Int64, got ${JSON.stringify(v)}`);
};
export function pList<T>(p: Parser<T>): Parser<T[]> {
  return (v, f) => {
    if (!Array.isArray(v)) throw new ArgumentError(`${f}: expected a List, got ${JSON.stringify(v)}`);
    return v.map((x, i) => p(x, `${f}[${i}]`));
  };
}
/** `TextMap a`: a JSON object; keys are kept sorted like Daml's TextMap. */
export function pTextMap<T>(p: Parser<T>): Parser<Record<string, T>> {
  return (v, f) => {
    const r = expectRecord(v, f);
    const out: Record<string, T> = {};
    for (const k of Object.keys(r).sort(compareText)) out[k] = p(r[k], `${f}.${k}`);
    return out;
  };
}
/** `DA.Map k v`: an array of `[k, v]` pairs, kept sorted by key (Daml's Map is ordered). */
export function pMap<K, V>(pk: Parser<K>, pv: Parser<V>, compare: (a: K, b: K) => number): Parser<Array<[K, V]>> {
  return (v, f) => {
    if (!Array.isArray(v)) throw new ArgumentError(`${f}: expected a Map as an array of [key, value] pairs, got ${JSON.stringify(v)}`);
    const entries = v.map((e, i): [K, V] => {
      if (!Array.isArray(e) || e.length !== 2) throw new ArgumentError(`${f}[${i}]: expected a [key, value] pair`);
      return [pk(e[0], `${f}[${i}][0]`), pv(e[1], `${f}[${i}][1]`)];
    });
    entries.sort((a, b) => compare(a[0], b[0]));
    for (let i = 1; i < entries.length; i++) {
      if (compare(entries[i - 1]![0], entries[i]![0]) === 0) throw new ArgumentError(`${f}: duplicate key in Map`);
    }
    return entries;
  };
}

export const pMetadata: Parser<Metadata> = (v, f) => {
  const r = rec(v, f, ['values']);
  return { values: r.values === undefined || r.values === null ? {} : pTextMap(pText)(r.values, `${f}.values`) };
};

export const pExtraArgs: Parser<ExtraArgs> = (v, f) => {
  const r = rec(v, f, ['context', 'meta']);
  const ctx = rec(req(r, 'context', f, (x) => x), `${f}.context`, ['values']);
  const values = expectRecord(ctx.values ?? {}, `${f}.context.values`);
  const out: Record<string, AnyValue> = {};
  for (const k of Object.keys(values).sort(compareText)) {
    const av = expectRecord(values[k], `${f}.context.values.${k}`);
    if (typeof av.tag !== 'string') throw new ArgumentError(`${f}.context.values.${k}: expected an AnyValue variant {tag, value}`);
    out[k] = { tag: av.tag, value: av.value };
  }
  return { context: { values: out }, meta: req(r, 'meta', f, pMetadata) };
};

// ---- HoldingV2 --------------------------------------------------------------------------------

/** `HoldingV2.Account`: `owner = None` marks the admin's special accounts (mint, burn). */
export interface Account {
  owner: string | null;
  provider: string | null;
  id: string;
}
export const pAccount: Parser<Account> = (v, f) => {
  const r = rec(v, f, ['owner', 'provider', 'id']);
  return { owner: opt(r, 'owner', f, pParty), provider: opt(r, 'provider', f, pParty), id: req(r, 'id', f, pText) };
};

export interface InstrumentId {
  admin: string;
  id: string;
}
export const pInstrumentId: Parser<InstrumentId> = (v, f) => {
  const r = rec(v, f, ['admin', 'id']);
  return { admin: req(r, 'admin', f, pParty), id: req(r, 'id', f, pText) };
};

export interface RelTime {
  microseconds: string;
}
export interface Lock {
  holders: string[];
  expiresAt: string | null;
  expiresAfter: RelTime | null;
  context: string | null;
}
export const pLock: Parser<Lock> = (v, f) => {
  const r = rec(v, f, ['holders', 'expiresAt', 'expiresAfter', 'context']);
  return {
    holders: req(r, 'holders', f, pList(pParty)),
    expiresAt: opt(r, 'expiresAt', f, pTime),
    expiresAfter: opt(r, 'expiresAfter', f, (x, p) => ({ microseconds: parseRelTime(x, p).toString() })),
    context: opt(r, 'context', f, pText),
  };
};

export interface HoldingView {
  account: Account;
  instrumentId: InstrumentId;
  amount: string;
  lock: Lock | null;
  meta: Metadata;
}
export const pHoldingView: Parser<HoldingView> = (v, f) => {
  const r = rec(v, f, ['account', 'instrumentId', 'amount', 'lock', 'meta']);
  return {
    account: req(r, 'account', f, pAccount),
    instrumentId: req(r, 'instrumentId', f, pInstrumentId),
    amount: req(r, 'amount', f, pDecimal),
    lock: opt(r, 'lock', f, pLock),
    meta: req(r, 'meta', f, pMetadata),
  };
};

// ---- TransferInstructionV2 ----------------------------------------------------------------------

/**
 * `Transfer` of TransferInstructionV2 (sender and receiver are `Account`s) and of
 * TransferInstructionV1 (they are parties): otherwise the same record.
 */
interface TransferOf<S> {
  sender: S;
  receiver: S;
  amount: string;
  instrumentId: InstrumentId;
  requestedAt: string;
  executeBefore: string;
  inputHoldingCids: string[];
  meta: Metadata;
}
function pTransferOf<S>(pSide: Parser<S>): Parser<TransferOf<S>> {
  return (v, f) => {
    const r = rec(v, f, ['sender', 'receiver', 'amount', 'instrumentId', 'requestedAt', 'executeBefore', 'inputHoldingCids', 'meta']);
    return {
      sender: req(r, 'sender', f, pSide),
      receiver: req(r, 'receiver', f, pSide),
      amount: req(r, 'amount', f, pDecimal),
      instrumentId: req(r, 'instrumentId', f, pInstrumentId),
      requestedAt: req(r, 'requestedAt', f, pTime),
      executeBefore: req(r, 'executeBefore', f, pTime),
      inputHoldingCids: req(r, 'inputHoldingCids', f, pList(pCid)),
      meta: req(r, 'meta', f, pMetadata),
    };
  };
}
export type TransferV2 = TransferOf<Account>;
export const pTransferV2: Parser<TransferV2> = pTransferOf(pAccount);

/**
 * An action variant of an authorization state machine (`TIA_*`, `AIA_*`, `AA_*`): unit
 * constructors carry `{}`, the custom one `{id}`.
 */
export interface Action {
  tag: string;
  value: Record<string, unknown>;
}

/** Constructor declaration order of each action type: Daml's derived Ord compares by it first. */
export const TIA_TAGS = ['TIA_Accept', 'TIA_Reject', 'TIA_Withdraw', 'TIA_Custom'] as const;
export const AIA_TAGS = ['AIA_Withdraw', 'AIA_Accept', 'AIA_Custom'] as const;
export const AA_TAGS = ['AA_Settle', 'AA_Cancel', 'AA_Withdraw', 'AA_Custom'] as const;

export interface ActionType {
  tags: readonly string[];
  compare(a: Action, b: Action): number;
  parse: Parser<Action>;
  show(a: Action): string;
}
export function actionType(tags: readonly string[]): ActionType {
  const custom = tags[tags.length - 1]!;
  const idOf = (a: Action) => (a.tag === custom ? String(a.value.id ?? '') : '');
  return {
    tags,
    compare: (a, b) => tags.indexOf(a.tag) - tags.indexOf(b.tag) || compareText(idOf(a), idOf(b)),
    parse: (v, f) => {
      const r = rec(v, f, ['tag', 'value']);
      const tag = req(r, 'tag', f, pText);
      if (!tags.includes(tag)) throw new ArgumentError(`${f}: unknown constructor ${tag}, expected one of ${tags.join(', ')}`);
      if (tag === custom) {
        const val = rec(req(r, 'value', f, (x) => x), `${f}.value`, ['id']);
        return { tag, value: { id: req(val, 'id', `${f}.value`, pText) } };
      }
      return { tag, value: {} };
    },
    show: (a) => (a.tag === custom ? `${custom} {id = ${showText(idOf(a))}}` : a.tag),
  };
}
export const TIA = actionType(TIA_TAGS);
export const AIA = actionType(AIA_TAGS);
export const AA = actionType(AA_TAGS);
export const action = (tag: string, id?: string): Action => (id === undefined ? { tag, value: {} } : { tag, value: { id } });

/** `Map action [Party]` (who authorised what) and `Map action [[Party]]` (who may act next). */
export type ActionAuthorizers = Array<[Action, string[]]>;
export type AvailableActions = Array<[Action, string[][]]>;
export const pActionAuthorizers = (t: ActionType): Parser<ActionAuthorizers> => pMap(t.parse, pList(pParty), t.compare);
export const pAvailableActions = (t: ActionType): Parser<AvailableActions> => pMap(t.parse, pList(pList(pParty)), t.compare);

// ---- AllocationV2 / AllocationInstructionV2 / TransferEventsV2 ----------------------------------

export interface SettlementInfoV2 {
  executors: string[];
  id: string;
  cid: string | null;
  meta: Metadata;
}
export const pSettlementInfoV2: Parser<SettlementInfoV2> = (v, f) => {
  const r = rec(v, f, ['executors', 'id', 'cid', 'meta']);
  return {
    executors: req(r, 'executors', f, pList(pParty)),
    id: req(r, 'id', f, pText),
    cid: opt(r, 'cid', f, pCid),
    meta: req(r, 'meta', f, pMetadata),
  };
};

export interface TransferLegV2 {
  transferLegId: string;
  sender: Account;
  receiver: Account;
  amount: string;
  instrumentId: string;
  meta: Metadata;
}
export const pTransferLegV2: Parser<TransferLegV2> = (v, f) => {
  const r = rec(v, f, ['transferLegId', 'sender', 'receiver', 'amount', 'instrumentId', 'meta']);
  return {
    transferLegId: req(r, 'transferLegId', f, pText),
    sender: req(r, 'sender', f, pAccount),
    receiver: req(r, 'receiver', f, pAccount),
    amount: req(r, 'amount', f, pDecimal),
    instrumentId: req(r, 'instrumentId', f, pText),
    meta: req(r, 'meta', f, pMetadata),
  };
};

export type TransferSide = 'SenderSide' | 'ReceiverSide';
/** `TransferLegSide` (AllocationV2 and TransferEventsV2 declare identical copies). */
export interface TransferLegSide {
  transferLegId: string;
  side: TransferSide;
  otherside: Account;
  amount: string;
  instrumentId: string;
  meta: Metadata;
}
export const pTransferLegSide: Parser<TransferLegSide> = (v, f) => {
  const r = rec(v, f, ['transferLegId', 'side', 'otherside', 'amount', 'instrumentId', 'meta']);
  const side = req(r, 'side', f, pText);
  if (side !== 'SenderSide' && side !== 'ReceiverSide') throw new ArgumentError(`${f}.side: unknown enum constructor ${side}`);
  return {
    transferLegId: req(r, 'transferLegId', f, pText),
    side,
    otherside: req(r, 'otherside', f, pAccount),
    amount: req(r, 'amount', f, pDecimal),
    instrumentId: req(r, 'instrumentId', f, pText),
    meta: req(r, 'meta', f, pMetadata),
  };
};

export interface AllocationSpecificationV2 {
  admin: string;
  authorizer: Account;
  transferLegSides: TransferLegSide[];
  settlementDeadline: string | null;
  nextIterationFunding: Record<string, string> | null;
  committed: boolean;
  meta: Metadata;
}
export const pAllocationSpecificationV2: Parser<AllocationSpecificationV2> = (v, f) => {
  const r = rec(v, f, ['admin', 'authorizer', 'transferLegSides', 'settlementDeadline', 'nextIterationFunding', 'committed', 'meta']);
  return {
    admin: req(r, 'admin', f, pParty),
    authorizer: req(r, 'authorizer', f, pAccount),
    transferLegSides: req(r, 'transferLegSides', f, pList(pTransferLegSide)),
    settlementDeadline: opt(r, 'settlementDeadline', f, pTime),
    nextIterationFunding: opt(r, 'nextIterationFunding', f, pTextMap(pDecimal)),
    committed: req(r, 'committed', f, pBool),
    meta: req(r, 'meta', f, pMetadata),
  };
};

export interface FinalizedAllocation {
  allocationCid: string;
  extraTransferLegSides: TransferLegSide[];
  nextIterationFunding: Record<string, string> | null;
}
export const pFinalizedAllocation: Parser<FinalizedAllocation> = (v, f) => {
  const r = rec(v, f, ['allocationCid', 'extraTransferLegSides', 'nextIterationFunding']);
  return {
    allocationCid: req(r, 'allocationCid', f, pCid),
    extraTransferLegSides: req(r, 'extraTransferLegSides', f, pList(pTransferLegSide)),
    nextIterationFunding: opt(r, 'nextIterationFunding', f, pTextMap(pDecimal)),
  };
};

// ---- V1 records (adapters) ----------------------------------------------------------------------

export type TransferV1 = TransferOf<string>;
export const pTransferV1: Parser<TransferV1> = pTransferOf(pParty);

export interface SettlementInfoV1 {
  executor: string;
  settlementRef: { id: string; cid: string | null };
  requestedAt: string;
  allocateBefore: string;
  settleBefore: string;
  meta: Metadata;
}
export const pSettlementInfoV1: Parser<SettlementInfoV1> = (v, f) => {
  const r = rec(v, f, ['executor', 'settlementRef', 'requestedAt', 'allocateBefore', 'settleBefore', 'meta']);
  return {
    executor: req(r, 'executor', f, pParty),
    settlementRef: req(r, 'settlementRef', f, (x, p) => {
      const rr = rec(x, p, ['id', 'cid']);
      return { id: req(rr, 'id', p, pText), cid: opt(rr, 'cid', p, pCid) };
    }),
    requestedAt: req(r, 'requestedAt', f, pTime),
    allocateBefore: req(r, 'allocateBefore', f, pTime),
    settleBefore: req(r, 'settleBefore', f, pTime),
    meta: req(r, 'meta', f, pMetadata),
  };
};

export interface TransferLegV1 {
  sender: string;
  receiver: string;
  amount: string;
  instrumentId: InstrumentId;
  meta: Metadata;
}
export const pTransferLegV1: Parser<TransferLegV1> = (v, f) => {
  const r = rec(v, f, ['sender', 'receiver', 'amount', 'instrumentId', 'meta']);
  return {
    sender: req(r, 'sender', f, pParty),
    receiver: req(r, 'receiver', f, pParty),
    amount: req(r, 'amount', f, pDecimal),
    instrumentId: req(r, 'instrumentId', f, pInstrumentId),
    meta: req(r, 'meta', f, pMetadata),
  };
};

export interface AllocationSpecificationV1 {
  settlement: SettlementInfoV1;
  transferLegId: string;
  transferLeg: TransferLegV1;
}
export const pAllocationSpecificationV1: Parser<AllocationSpecificationV1> = (v, f) => {
  const r = rec(v, f, ['settlement', 'transferLegId', 'transferLeg']);
  return {
    settlement: req(r, 'settlement', f, pSettlementInfoV1),
    transferLegId: req(r, 'transferLegId', f, pText),
    transferLeg: req(r, 'transferLeg', f, pTransferLegV1),
  };
};

// ---- AccountConfig ------------------------------------------------------------------------------

export interface PartyConfig {
  canInitiate: boolean;
  mustApprove: boolean;
}
export const pPartyConfig: Parser<PartyConfig> = (v, f) => {
  const r = rec(v, f, ['canInitiate', 'mustApprove']);
  return { canInitiate: req(r, 'canInitiate', f, pBool), mustApprove: req(r, 'mustApprove', f, pBool) };
};

export interface AccountConfig {
  admin: string;
  account: Account;
  ownerConfig: PartyConfig;
  providerConfig: PartyConfig;
}
export const pAccountConfig: Parser<AccountConfig> = (v, f) => {
  const r = rec(v, f, ['admin', 'account', 'ownerConfig', 'providerConfig']);
  return {
    admin: req(r, 'admin', f, pParty),
    account: req(r, 'account', f, pAccount),
    ownerConfig: req(r, 'ownerConfig', f, pPartyConfig),
    providerConfig: req(r, 'providerConfig', f, pPartyConfig),
  };
};

// ---- choice-argument plumbing -------------------------------------------------------------------

/** Parses a choice argument record with the given field parsers (all declared fields). */
export function pArg<T extends Record<string, unknown>>(
  fields: { [K in keyof T]: [Parser<T[K]>, 'req' | 'opt'] },
  root = 'choiceArgument',
): (raw: unknown) => T {
  const names = Object.keys(fields);
  return (raw) => {
    const r = rec(raw ?? {}, root, names);
    const out: Record<string, unknown> = {};
    for (const n of names) {
      const [p, kind] = fields[n as keyof T];
      out[n] = kind === 'req' ? req(r, n, root, p) : opt(r, n, root, p);
    }
    return out as T;
  };
}
/** Parses a create argument (template payload) record. */
export const pPayload = <T extends Record<string, unknown>>(fields: { [K in keyof T]: [Parser<T[K]>, 'req' | 'opt'] }) =>
  pArg<T>(fields, 'createArguments');

// ---- Show (Daml's derived Show, for messages and lock contexts) ----------------------------------

export const showParty = (p: string): string => `'${p}'`;
export const showText = (t: string): string => JSON.stringify(t);
export function showOptional<T>(v: T | null, show: (x: T) => string, compound = false): string {
  if (v === null) return 'None';
  return compound ? `Some (${show(v)})` : `Some ${show(v)}`;
}
export const showAccount = (a: Account): string =>
  `Account {owner = ${showOptional(a.owner, showParty)}, provider = ${showOptional(a.provider, showParty)}, id = ${showText(a.id)}}`;
export const showInstrumentId = (i: InstrumentId): string => `InstrumentId {admin = ${showParty(i.admin)}, id = ${showText(i.id)}}`;
/** `show` of a Decimal: unscaled, at least one fractional digit ("10.0", "0.25"). */
export function showDecimal(d: string | bigint): string {
  const text = typeof d === 'bigint' ? formatDecimal(d) : d;
  const [int, frac = ''] = text.split('.');
  const trimmed = frac.replace(/0+$/, '');
  return `${int}.${trimmed === '' ? '0' : trimmed}`;
}
export const showTime = (t: string): string => formatInstant(parseTime(t));
export const showList = <T>(xs: readonly T[], show: (x: T) => string): string => `[${xs.map(show).join(',')}]`;

// ---- Ord and Eq ---------------------------------------------------------------------------------

export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
function compareOptional<T>(a: T | null, b: T | null, cmp: (x: T, y: T) => number): number {
  if (a === null) return b === null ? 0 : -1;
  if (b === null) return 1;
  return cmp(a, b);
}
/** Derived `Ord Account`: owner, then provider, then id (None < Some). */
export function compareAccount(a: Account, b: Account): number {
  return compareOptional(a.owner, b.owner, compareText) || compareOptional(a.provider, b.provider, compareText) || compareText(a.id, b.id);
}
export function compareList<T>(a: readonly T[], b: readonly T[], cmp: (x: T, y: T) => number): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = cmp(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}
export const sameAccount = (a: Account, b: Account): boolean => compareAccount(a, b) === 0;
export const accountKey = (a: Account): string => JSON.stringify([a.owner, a.provider, a.id]);
export const sameInstrument = (a: InstrumentId, b: InstrumentId): boolean => a.admin === b.admin && a.id === b.id;

/** `dedupSort` on parties. */
export const dedupSortParties = (ps: readonly string[]): string[] => [...new Set(ps)].sort(compareText);
/** `dedupSort` on groups of parties (list order, as Daml's derived Ord on lists). */
export function dedupSortGroups(gs: readonly string[][]): string[][] {
  const sorted = [...gs].sort((a, b) => compareList(a, b, compareText));
  return sorted.filter((g, i) => i === 0 || compareList(sorted[i - 1]!, g, compareText) !== 0);
}
/** Daml `==` on normalised LF JSON: structural equality with object keys in any order. */
export function lfEqual(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const r = v as Record<string, unknown>;
    return `{${Object.keys(r)
      .filter((k) => r[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(r[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

export const emptyMetadata = (): Metadata => ({ values: {} });
export const emptyExtraArgs = (): ExtraArgs => ({ context: { values: {} }, meta: { values: {} } });
export const dec = (d: string): bigint => parseDecimal(d);
export const decText = (d: bigint): string => formatDecimal(d);
