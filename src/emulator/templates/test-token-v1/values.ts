/**
 * The Daml-LF types TestTokenV1 works with (token-standard V1 API records, Splice
 * `token-standard/splice-api-token-*-v1/daml/`), as their LF JSON (transcode `JsonCodec`), with:
 *  - parsers that validate a payload or choice argument and normalise it to the canonical JSON
 *    (every field, in declaration order; Decimal at scale 10; Time as transcode prints it),
 *    throwing ArgumentError (→ COMMAND_PREPROCESSING_FAILED) on malformed input;
 *  - Daml's `show` for the values that appear in the reference token's error messages, so that
 *    failures read like the real ones (Party `'p'`, Decimal unscaled "10.0", Time ISO_INSTANT,
 *    records `R {f = v}`; daml-lf `SBToText`/`Numeric.toUnscaledString`, derived Show).
 */
import { formatInstant } from '../../../canton/clock.js';
import { expectRecord, formatDecimal, formatTime, parseDecimal, parseExtraArgs, parseMetadata, parseRelTime, parseTime, type ExtraArgs, type Metadata } from '../../../canton/lf-value.js';
import { fieldPath } from '../../lf-value/json-codec.js';
import { normalize, type RecordRules } from '../../lf-value/native-json-codec.js';
import { list, opt, rec, type NativeValueType } from '../../lf-value/native-type.js';
import { TokenStandardTypes, tokenStandardV1Types } from '../token-standard.js';
import { ArgumentError } from '../../participant/templates.js';

// ---- types (LF JSON shapes) ----------------------------------------------------------------

/** `HoldingV1.InstrumentId`. */
export interface InstrumentId {
  admin: string;
  id: string;
}

/** `HoldingV1.Lock`. */
export interface Lock {
  holders: string[];
  expiresAt: string | null;
  expiresAfter: { microseconds: string } | null;
  context: string | null;
}

/** `HoldingV1.HoldingView`. */
export interface HoldingView {
  owner: string;
  instrumentId: InstrumentId;
  amount: string;
  lock: Lock | null;
  meta: Metadata;
}

/** `TransferInstructionV1.Transfer`. */
export interface Transfer {
  sender: string;
  receiver: string;
  amount: string;
  instrumentId: InstrumentId;
  requestedAt: string;
  executeBefore: string;
  inputHoldingCids: string[];
  meta: Metadata;
}

/** `AllocationV1.Reference`. */
export interface Reference {
  id: string;
  cid: string | null;
}

/** `AllocationV1.SettlementInfo`. */
export interface SettlementInfo {
  executor: string;
  settlementRef: Reference;
  requestedAt: string;
  allocateBefore: string;
  settleBefore: string;
  meta: Metadata;
}

/** `AllocationV1.TransferLeg`. */
export interface TransferLeg {
  sender: string;
  receiver: string;
  amount: string;
  instrumentId: InstrumentId;
  meta: Metadata;
}

/** `AllocationV1.AllocationSpecification`. */
export interface AllocationSpecification {
  settlement: SettlementInfo;
  transferLegId: string;
  transferLeg: TransferLeg;
}

// ---- parsers ------------------------------------------------------------------------------

/**
 * How TestTokenV1 reads records: a missing field is `Missing non-optional field: a.b`, a null field
 * goes to the field's type (which words its own error). Fields the type does not declare are not
 * looked at here: the engine rejects them in a command's arguments, for every native template, as
 * transcode does (lf-value/native-type.ts `unexpectedFieldsIn`).
 */
const V1_RECORDS: RecordRules = {
  rejectUnknown: false,
  nullIsMissing: false,
  missing: (path, name) => `Missing non-optional field: ${fieldPath(path, name)}`,
};

/** A required record field: Canton's transcode rejects a record without it. */
function field(r: Record<string, unknown>, name: string, path: string): unknown {
  const v = r[name];
  if (v === undefined) throw new ArgumentError(V1_RECORDS.missing(path, name));
  return v;
}

export function decimalText(value: unknown, path: string): string {
  return formatDecimal(parseDecimal(value, path));
}
export function timeText(value: unknown, path: string): string {
  return formatTime(parseTime(value, path));
}

function parserOf<T>(t: NativeValueType): (value: unknown, path: string) => T {
  return (value, path) => normalize(t, value, path, V1_RECORDS) as T;
}

// `Metadata` and `RelTime` keep canton/lf-value.ts's readings (metadata keys in the client's order, `values` may be left out).
const MetadataT: NativeValueType = { custom: parseMetadata };
const RelTimeT: NativeValueType = { custom: (v, f) => ({ microseconds: parseRelTime(v, f).toString() }) };
const { InstrumentId: InstrumentIdT, TransferV1: TransferT, SettlementInfoV1: SettlementInfoT, TransferLegV1: TransferLegT } = tokenStandardV1Types(MetadataT);
const LockT = rec(['holders', list('party')], ['expiresAt', opt('time')], ['expiresAfter', opt(RelTimeT)], ['context', opt('text')]);
const HoldingViewT = rec(['owner', 'party'], ['instrumentId', InstrumentIdT], ['amount', 'decimal'], ['lock', opt(LockT)], ['meta', MetadataT]);
// `settlement` goes through parseSettlementInfo, which checks its reference first.
const AllocationSpecificationT = rec(['settlement', { custom: parseSettlementInfo }], ['transferLegId', 'text'], ['transferLeg', TransferLegT]);

export const parseInstrumentId = parserOf<InstrumentId>(InstrumentIdT);
export const parseLock = parserOf<Lock>(LockT);
export const parseHoldingView = parserOf<HoldingView>(HoldingViewT);
export const parseTransfer = parserOf<Transfer>(TransferT);
export const parseTransferLeg = parserOf<TransferLeg>(TransferLegT);
export const parseAllocationSpecification = parserOf<AllocationSpecification>(AllocationSpecificationT);

/**
 * The LF types of TestTokenV1's payloads and choice arguments, for encoding them (prepared
 * transactions). Reading keeps the parsers above; here the token-standard records are described
 * as the DARs declare them (token-standard.ts: `Metadata`, `RelTime`, `AnyValue` and all).
 */
export const Tt1Types = (() => {
  const { ExtraArgs, TransferV1, AllocationSpecificationV1, HoldingViewV1: HoldingView, choiceArgs } = TokenStandardTypes;
  return {
    Token: rec(['holding', HoldingView]),
    TokenTransferOffer: rec(['transfer', TransferV1]),
    TokenAllocation: rec(['allocation', AllocationSpecificationV1]),
    TokenRules: rec(['admin', 'party']),
    ExtraArgsOnly: rec(['extraArgs', ExtraArgs]),
    PublicFetch: choiceArgs.TransferFactoryV1.TransferFactory_PublicFetch,
    Transfer: choiceArgs.TransferFactoryV1.TransferFactory_Transfer,
    Allocate: choiceArgs.AllocationFactoryV1.AllocationFactory_Allocate,
    Update: choiceArgs.TransferInstructionV1.TransferInstruction_Update,
  } as const;
})();

export function parseSettlementInfo(value: unknown, path: string): SettlementInfo {
  // The settlement reference is checked (present, a record) before the other fields, as before.
  expectRecord(field(expectRecord(value, path), 'settlementRef', path), fieldPath(path, 'settlementRef'));
  return normalize(SettlementInfoT, value, path, V1_RECORDS) as SettlementInfo;
}

/** A choice argument record: must be a JSON object. */
export function argRecord(value: unknown): Record<string, unknown> {
  return expectRecord(value, 'choiceArgument');
}
export function argField(r: Record<string, unknown>, name: string): unknown {
  return field(r, name, '');
}
export function argExtraArgs(r: Record<string, unknown>): ExtraArgs {
  return parseExtraArgs(field(r, 'extraArgs', ''), 'extraArgs');
}

// ---- Daml `show` --------------------------------------------------------------------------

/** `show` of a Party: the party text in single quotes. */
export const showParty = (p: string): string => `'${p}'`;
/** `show` of Text: double-quoted with Haskell-style escapes (JSON's are close enough for ASCII). */
export const showText = (t: string): string => JSON.stringify(t);
/** `show` of a Decimal: `Numeric.toUnscaledString` (trailing zeros stripped, at least ".0"). */
export function showDecimal(scaled: bigint): string {
  const s = formatDecimal(scaled).replace(/0+$/, '');
  return s.endsWith('.') ? `${s}0` : s;
}
/** `show` of a Time: `Timestamp.toString` (DateTimeFormatter.ISO_INSTANT). */
export const showTime = (micros: bigint): string => formatInstant(micros);
export const showTimeText = (t: string): string => showTime(parseTime(t));

/** `showsPrec 11` of a constructor application: parenthesised unless atomic. */
function showArg(s: string, atomic: boolean): string {
  return atomic ? s : `(${s})`;
}
export function showOptional<T>(v: T | null, show: (x: T) => string, atomic: boolean): string {
  return v === null ? 'None' : `Some ${showArg(show(v), atomic)}`;
}
export const showList = <T>(xs: T[], show: (x: T) => string): string => `[${xs.map(show).join(',')}]`;

export function showInstrumentId(i: InstrumentId): string {
  return `InstrumentId {admin = ${showParty(i.admin)}, id = ${showText(i.id)}}`;
}
export function showLock(l: Lock): string {
  const expiresAfter = showOptional(l.expiresAfter, (r) => `RelTime {microseconds = ${r.microseconds}}`, false);
  return (
    `Lock {holders = ${showList(l.holders, showParty)}, expiresAt = ${showOptional(l.expiresAt, showTimeText, true)}, ` +
    `expiresAfter = ${expiresAfter}, context = ${showOptional(l.context, showText, true)}}`
  );
}

/**
 * The message of `require' (desc1, v1) (descFailure, _) (desc2, v2)` from
 * `Splice.TokenStandard.Utils` (`T.unlines`, so every line ends with a newline).
 */
export function requirePrimeMessage(desc1: string, shown1: string, descFailure: string, desc2: string, shown2: string): string {
  return `'${desc1}' ${descFailure} '${desc2}'.\n${desc1}: ${shown1}\n${desc2}: ${shown2}\n`;
}
/** The message of `requireMatchExpected (desc, actual) expected`. */
export function requireMatchExpectedMessage(desc: string, shownActual: string, shownExpected: string): string {
  return requirePrimeMessage(desc, shownActual, 'is not equal to', 'expected value', shownExpected);
}
/** The message of `require msg cond` (`assertMsg`). */
export const requireMessage = (msg: string): string => `The requirement '${msg}' was not met.`;

// ---- comparisons --------------------------------------------------------------------------

export const sameInstrument = (a: InstrumentId, b: InstrumentId): boolean => a.admin === b.admin && a.id === b.id;

export const emptyMeta = (): Metadata => ({ values: {} });
