/**
 * Daml-LF values for native templates: parsing and printing in the JSON API's transcode
 * encoding (digital-asset/canton transcode `codec/json/JsonCodec.scala`), and the arithmetic Daml code does on them.
 * The registry reads the same values (amounts, times, metadata and choice contexts of factory
 * requests), hence the kernel; the emulator's other forms of LF values and their codecs are in
 * src/emulator/lf-value (its json-codec.ts says which form is which).
 *
 * `Decimal` (Numeric 10) is kept as a bigint scaled by 10^10, so sums and comparisons are exact;
 * it prints as the canonical scale-padded string ("10.0000000000").
 */
import { formatNumeric, numericScaleProblem, numericTextOf, readNumericText, type NumericParts } from './numeric.js';
import { formatDamlTimestamp, parseInstant } from './clock.js';

/** A request value that does not decode as its Daml type (→ COMMAND_PREPROCESSING_FAILED when a template reads it). */
export class ArgumentError extends Error {}

/**
 * A Numeric whose text the Ledger API's value validation already rejects (numeric.ts, step 2),
 * before any template sees it: INVALID_ARGUMENT with `cantonCause`, Canton's own text.
 */
export class NumericSyntaxError extends ArgumentError {
  constructor(
    message: string,
    /** `Could not read Numeric string "<text>"`, as ValueValidator says it. */
    readonly cantonCause: string,
  ) {
    super(message);
  }
}

export const DECIMAL_SCALE = 10;
const SCALE = 10n ** 10n;

/**
 * What a Decimal's text says, read without building the number: its sign (0 for any zero), the
 * count of significant places after the point (0..10) and of digits before it (leading zeros
 * not counted).
 */
export interface DecimalFacts {
  sign: -1 | 0 | 1;
  places: number;
  integerDigits: number;
}

/**
 * Reads a Decimal given as a string or number (both accepted on input). Throws ArgumentError
 * exactly where parseDecimal does, with the same messages: a checker that only needs the sign and
 * the places (the registry's amount checks, on every factory request) then needs neither a
 * regular expression nor bigint arithmetic.
 */
export function decimalFacts(value: unknown, field = 'value'): DecimalFacts {
  const { int, frac, negative } = readDecimal(value, field);
  return { sign: int === '' && frac === '' ? 0 : negative ? -1 : 1, places: frac.length, integerDigits: int.length };
}

/** Parses a Decimal given as a string or number (both accepted on input); throws ArgumentError. */
export function parseDecimal(value: unknown, field = 'value'): bigint {
  const { int, frac, negative } = readDecimal(value, field);
  const scaled = BigInt(int || '0') * SCALE + BigInt(frac.padEnd(DECIMAL_SCALE, '0'));
  return negative ? -scaled : scaled;
}

/**
 * The one reading of a Decimal (Numeric 10) that arrives over the wire, as Canton reads it
 * (numeric.ts): a text the validation rejects throws NumericSyntaxError; one that does not fit
 * Numeric 10 throws ArgumentError.
 */
function readDecimal(value: unknown, field: string): NumericParts {
  const text = numericTextOf(value);
  if (text === undefined) throw new ArgumentError(`${field}: expected a Decimal, got ${JSON.stringify(value)}`);
  const parts = readNumericText(text);
  if (!parts) {
    const cause = `Could not read Numeric string ${JSON.stringify(text)}`;
    throw new NumericSyntaxError(`${field}: ${cause}`, cause);
  }
  const problem = numericScaleProblem(parts, DECIMAL_SCALE);
  if (problem === 'precision') throw new ArgumentError(`${field}: cannot represent ${text} as Numeric 10 without loss of precision`);
  if (problem === 'bounds') throw new ArgumentError(`${field}: ${text} is out of bounds for Numeric 10`);
  return parts;
}

/** A Decimal's canonical text ("10.0000000000"). */
export function formatDecimal(scaled: bigint): string {
  return formatNumeric(scaled, DECIMAL_SCALE);
}

/** Parses a Daml `Time` (ISO instant); returns epoch micros. */
export function parseTime(value: unknown, field = 'value'): bigint {
  if (typeof value !== 'string') throw new ArgumentError(`${field}: expected a Timestamp, got ${JSON.stringify(value)}`);
  const t = parseInstant(value);
  if (t === undefined) throw new ArgumentError(`${field}: could not read Timestamp string "${value}"`);
  return t;
}
export const formatTime = formatDamlTimestamp;

/** Parses a Daml `RelTime` (`{"microseconds":"…"}`). */
export function parseRelTime(value: unknown, field = 'value'): bigint {
  const m = (value as { microseconds?: unknown } | null)?.microseconds;
  if (typeof m === 'string' && /^-?\d+$/.test(m)) return BigInt(m);
  if (typeof m === 'number' && Number.isInteger(m)) return BigInt(m);
  throw new ArgumentError(`${field}: expected a RelTime {"microseconds": "…"}, got ${JSON.stringify(value)}`);
}

export function expectParty(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw new ArgumentError(`${field}: expected a Party, got ${JSON.stringify(value)}`);
  return value;
}
export function expectText(value: unknown, field: string): string {
  if (typeof value !== 'string') throw new ArgumentError(`${field}: expected Text, got ${JSON.stringify(value)}`);
  return value;
}
export function expectContractId(value: unknown, field: string): string {
  if (typeof value !== 'string' || !/^[0-9a-f]+$/.test(value)) throw new ArgumentError(`${field}: expected a ContractId, got ${JSON.stringify(value)}`);
  return value;
}
export function expectList<T>(value: unknown, field: string, item: (v: unknown, f: string) => T): T[] {
  if (!Array.isArray(value)) throw new ArgumentError(`${field}: expected a List, got ${JSON.stringify(value)}`);
  return value.map((v, i) => item(v, `${field}[${i}]`));
}
export function expectRecord(value: unknown, field: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ArgumentError(`${field}: expected a record, got ${JSON.stringify(value)}`);
  }
  return value as Record<string, unknown>;
}
/** An `Optional` field: missing or null is None. */
export function optional<T>(value: unknown, field: string, item: (v: unknown, f: string) => T): T | null {
  return value === undefined || value === null ? null : item(value, field);
}

/** `Splice.Api.Token.MetadataV1.Metadata`: `{ values: TextMap Text }`. */
export interface Metadata {
  values: Record<string, string>;
}
export const emptyMetadata = (): Metadata => ({ values: {} });

export function parseMetadata(value: unknown, field = 'meta'): Metadata {
  if (value === undefined || value === null) throw new ArgumentError(`${field}: Missing non-optional field: meta`);
  const values = expectRecord(expectRecord(value, field).values ?? {}, `${field}.values`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) out[k] = expectText(v, `${field}.values.${k}`);
  return { values: out };
}

/** `ChoiceContext`: `{ values: TextMap AnyValue }`; the values are passed through untouched. */
export interface ChoiceContext {
  values: Record<string, AnyValue>;
}
export type AnyValue = { tag: string; value: unknown };

export interface ExtraArgs {
  context: ChoiceContext;
  meta: Metadata;
}

export function parseExtraArgs(value: unknown, field = 'extraArgs'): ExtraArgs {
  const r = expectRecord(value, field);
  const ctx = expectRecord(r.context ?? { values: {} }, `${field}.context`);
  const values = expectRecord(ctx.values ?? {}, `${field}.context.values`);
  for (const [k, v] of Object.entries(values)) {
    const av = expectRecord(v, `${field}.context.values.${k}`);
    if (typeof av.tag !== 'string') throw new ArgumentError(`${field}.context.values.${k}: expected an AnyValue variant {tag, value}`);
  }
  return { context: { values: values as Record<string, AnyValue> }, meta: parseMetadata(r.meta ?? { values: {} }, `${field}.meta`) };
}

/** Reads a context entry `AV_ContractId` by key, if present. */
export function contextContractId(ctx: ChoiceContext, key: string): string | undefined {
  const v = ctx.values[key];
  return v && v.tag === 'AV_ContractId' && typeof v.value === 'string' ? v.value : undefined;
}

/** A Daml variant value. */
export function variant(tag: string, value: unknown = {}): { tag: string; value: unknown } {
  return { tag, value };
}
