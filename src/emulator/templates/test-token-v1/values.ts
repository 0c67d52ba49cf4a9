/**
 * The Daml-LF types TestTokenV1 works with (token-standard V1 API records, research/test-token-model.md
 * §2, §3.1-§3.3), as their LF JSON (transcode encoding, §7), with:
 *  - parsers that validate a payload or choice argument and normalise it to the canonical JSON
 *    (every field, in declaration order; Decimal at scale 10; Time as transcode prints it),
 *    throwing ArgumentError (→ COMMAND_PREPROCESSING_FAILED) on malformed input;
 *  - Daml's `show` for the values that appear in the reference token's error messages, so that
 *    failures read like the real ones (Party `'p'`, Decimal unscaled "10.0", Time ISO_INSTANT,
 *    records `R {f = v}`; daml-lf `SBToText`/`Numeric.toUnscaledString`, derived Show).
 */
import { formatInstant } from '../../shared/clock.js';
import {
  expectContractId,
  expectList,
  expectParty,
  expectRecord,
  expectText,
  formatDecimal,
  formatTime,
  optional,
  parseDecimal,
  parseExtraArgs,
  parseMetadata,
  parseRelTime,
  parseTime,
  type ExtraArgs,
  type Metadata,
} from '../lf.js';
import { ArgumentError } from '../../ledger/templates.js';

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

/** A required record field: Canton's transcode rejects a record without it. */
function field(r: Record<string, unknown>, name: string, path: string): unknown {
  const v = r[name];
  if (v === undefined) throw new ArgumentError(`Missing non-optional field: ${path ? `${path}.` : ''}${name}`);
  return v;
}
const join = (path: string, name: string) => (path ? `${path}.${name}` : name);

export function decimalText(value: unknown, path: string): string {
  return formatDecimal(parseDecimal(value, path));
}
export function timeText(value: unknown, path: string): string {
  return formatTime(parseTime(value, path));
}

export function parseInstrumentId(value: unknown, path: string): InstrumentId {
  const r = expectRecord(value, path);
  return {
    admin: expectParty(field(r, 'admin', path), join(path, 'admin')),
    id: expectText(field(r, 'id', path), join(path, 'id')),
  };
}

export function parseLock(value: unknown, path: string): Lock {
  const r = expectRecord(value, path);
  return {
    holders: expectList(field(r, 'holders', path), join(path, 'holders'), expectParty),
    expiresAt: optional(r.expiresAt, join(path, 'expiresAt'), timeText),
    expiresAfter: optional(r.expiresAfter, join(path, 'expiresAfter'), (v, f) => ({ microseconds: parseRelTime(v, f).toString() })),
    context: optional(r.context, join(path, 'context'), expectText),
  };
}

export function parseHoldingView(value: unknown, path: string): HoldingView {
  const r = expectRecord(value, path);
  return {
    owner: expectParty(field(r, 'owner', path), join(path, 'owner')),
    instrumentId: parseInstrumentId(field(r, 'instrumentId', path), join(path, 'instrumentId')),
    amount: decimalText(field(r, 'amount', path), join(path, 'amount')),
    lock: optional(r.lock, join(path, 'lock'), parseLock),
    meta: parseMetadata(field(r, 'meta', path), join(path, 'meta')),
  };
}

export function parseTransfer(value: unknown, path: string): Transfer {
  const r = expectRecord(value, path);
  return {
    sender: expectParty(field(r, 'sender', path), join(path, 'sender')),
    receiver: expectParty(field(r, 'receiver', path), join(path, 'receiver')),
    amount: decimalText(field(r, 'amount', path), join(path, 'amount')),
    instrumentId: parseInstrumentId(field(r, 'instrumentId', path), join(path, 'instrumentId')),
    requestedAt: timeText(field(r, 'requestedAt', path), join(path, 'requestedAt')),
    executeBefore: timeText(field(r, 'executeBefore', path), join(path, 'executeBefore')),
    inputHoldingCids: expectList(field(r, 'inputHoldingCids', path), join(path, 'inputHoldingCids'), expectContractId),
    meta: parseMetadata(field(r, 'meta', path), join(path, 'meta')),
  };
}

export function parseSettlementInfo(value: unknown, path: string): SettlementInfo {
  const r = expectRecord(value, path);
  const refPath = join(path, 'settlementRef');
  const ref = expectRecord(field(r, 'settlementRef', path), refPath);
  return {
    executor: expectParty(field(r, 'executor', path), join(path, 'executor')),
    settlementRef: {
      id: expectText(field(ref, 'id', refPath), join(refPath, 'id')),
      cid: optional(ref.cid, join(refPath, 'cid'), expectContractId),
    },
    requestedAt: timeText(field(r, 'requestedAt', path), join(path, 'requestedAt')),
    allocateBefore: timeText(field(r, 'allocateBefore', path), join(path, 'allocateBefore')),
    settleBefore: timeText(field(r, 'settleBefore', path), join(path, 'settleBefore')),
    meta: parseMetadata(field(r, 'meta', path), join(path, 'meta')),
  };
}

export function parseTransferLeg(value: unknown, path: string): TransferLeg {
  const r = expectRecord(value, path);
  return {
    sender: expectParty(field(r, 'sender', path), join(path, 'sender')),
    receiver: expectParty(field(r, 'receiver', path), join(path, 'receiver')),
    amount: decimalText(field(r, 'amount', path), join(path, 'amount')),
    instrumentId: parseInstrumentId(field(r, 'instrumentId', path), join(path, 'instrumentId')),
    meta: parseMetadata(field(r, 'meta', path), join(path, 'meta')),
  };
}

export function parseAllocationSpecification(value: unknown, path: string): AllocationSpecification {
  const r = expectRecord(value, path);
  return {
    settlement: parseSettlementInfo(field(r, 'settlement', path), join(path, 'settlement')),
    transferLegId: expectText(field(r, 'transferLegId', path), join(path, 'transferLegId')),
    transferLeg: parseTransferLeg(field(r, 'transferLeg', path), join(path, 'transferLeg')),
  };
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
