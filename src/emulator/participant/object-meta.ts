/**
 * Validation rules shared by the party and user stores: Daml-LF id strings, resource annotations,
 * update masks and list page tokens. Each follows the Canton 3.5 source named next to it
 * (digital-asset/canton); error texts are Canton's, so clients that match on them
 * behave the same against the emulator.
 */
import { errors, LedgerApiError } from '../../canton/errors.js';

// ---- Daml-LF id strings (`IdString.scala`) --------------------------------------------------

const PARTY_EXTRA = new Set([':', '-', '_', ' ']);
const USER_ID_REGEX_TEXT = "[a-zA-Z0-9@^$.!`\\-#+'~_|:\\(\\)]{1,128}";
const USER_ID_REGEX = new RegExp(`^${USER_ID_REGEX_TEXT}$`);
const LEDGER_STRING_EXTRA = new Set(['.', '_', ':', '-', '#', '/', ' ']);

function concatenableCheck(description: string, extra: Set<string>, maxLength: number, s: string): string | undefined {
  if (s.length === 0) return `${description} is empty`;
  if (s.length > maxLength) return `${description} is too long (max: ${maxLength})`;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    const ok = c <= 0x7f && (/[A-Za-z0-9]/.test(ch) || extra.has(ch));
    if (!ok) return `non expected character 0x${c.toString(16)} in ${description} "${s}"`;
  }
  return undefined;
}

/** `Ref.Party.fromString`: the error text, or undefined when `s` is a valid party string. */
export function partyStringError(s: string): string | undefined {
  return concatenableCheck('Daml-LF Party', PARTY_EXTRA, 255, s);
}
export function isValidPartyString(s: string): boolean {
  return partyStringError(s) === undefined;
}
/** `Ref.UserId.fromString` (a MatchingStringModule): the error text, or undefined. */
export function userIdError(s: string): string | undefined {
  return USER_ID_REGEX.test(s) ? undefined : `User ID "${s}" does not match regex "${USER_ID_REGEX_TEXT}"`;
}
export function isValidUserId(s: string): boolean {
  return USER_ID_REGEX.test(s);
}
/** `Ref.LedgerString.fromString` (identity provider ids are ledger strings). */
export function ledgerStringError(s: string): string | undefined {
  return concatenableCheck('Daml-LF Ledger String', LEDGER_STRING_EXTRA, 255, s);
}

/** `FieldValidator.requireParty(s)`: INVALID_ARGUMENT with the Ref message. */
export function requireParty(s: string): string {
  const err = partyStringError(s);
  if (err !== undefined) throw errors.invalidArgument(err);
  return s;
}
/** `FieldValidator.requireUserId(s, field)`: MISSING_FIELD when empty, INVALID_FIELD when malformed. */
export function requireUserId(s: string, field: string): string {
  if (s === '') throw errors.missingField(field);
  const err = userIdError(s);
  if (err !== undefined) throw errors.invalidField(field, err);
  return s;
}
/** `FieldValidator.optionalUserId`. */
export function optionalUserId(s: string, field: string): string | undefined {
  if (s === '') return undefined;
  const err = userIdError(s);
  if (err !== undefined) throw errors.invalidField(field, err);
  return s;
}
/** `FieldValidator.optionalIdentityProviderId`: "" is the default IDP. */
export function optionalIdentityProviderId(s: string, field: string): string {
  if (s === '') return '';
  const err = ledgerStringError(s);
  if (err !== undefined) throw errors.invalidField(field, err);
  return s;
}
/** `FieldValidator.requireEmptyString`. */
export function requireEmptyString(s: string, field: string): void {
  if (s !== '') throw errors.invalidArgument(`field ${field} must be not set`);
}
/** `FieldValidator.requireResourceVersion` applied to a non-empty string (Scala `toLong`). */
export function parseResourceVersion(raw: string, field: string): number | undefined {
  if (raw === '') return undefined;
  if (!/^[+-]?\d{1,19}$/.test(raw)) throw errors.invalidField(field, 'Invalid resource version number');
  const n = BigInt(raw);
  if (n > 9223372036854775807n || n < -9223372036854775808n) {
    throw errors.invalidField(field, 'Invalid resource version number');
  }
  return Number(n);
}

/**
 * Only the default identity provider ("") exists in the emulator; any other id fails as
 * `identityProviderExistsOrError` does (the `Id(...)` is Scala's case-class toString, verbatim).
 */
export function requireIdentityProviderExists(idp: string): void {
  if (idp !== '') throw errors.invalidArgument(`Provided identity_provider_id Id(${idp}) has not been found.`);
}

// ---- annotations (`ResourceAnnotationValidator`, `LocalAnnotationsUtils`) -------------------

export const MAX_ANNOTATIONS_BYTES = 256 * 1024;
const KEY_SEGMENT = /^([a-zA-Z0-9]+[a-zA-Z0-9.\-_]*)?[a-zA-Z0-9]+$/;
const NAME_PATTERN = '([a-zA-Z0-9]+[a-zA-Z0-9-]*)?[a-zA-Z0-9]+';
const DNS_SUBDOMAIN = new RegExp(`^(${NAME_PATTERN}[.])*${NAME_PATTERN}$`);

function shorten(s: string): string {
  return s.length > 53 ? `${s.slice(0, 50)}...` : s;
}

export function annotationsByteSize(annotations: Record<string, string>): number {
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) size += Buffer.byteLength(k, 'utf8') + Buffer.byteLength(v, 'utf8');
  return size;
}
export function isWithinMaxAnnotationsSize(annotations: Record<string, string>): boolean {
  return annotationsByteSize(annotations) <= MAX_ANNOTATIONS_BYTES;
}

/** Java's `String.split(char)`: trailing empty strings are removed. */
function javaSplit(s: string, sep: string): string[] {
  if (!s.includes(sep)) return [s];
  const parts = s.split(sep);
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

function keyError(key: string): string | undefined {
  const parts = javaSplit(key, '/');
  const checkName = (name: string): string | undefined => {
    if (name.length > 63) return `Key name segment '${shorten(name)}' exceeds maximum length of 63 characters`;
    if (!KEY_SEGMENT.test(name)) return `Key name segment '${shorten(name)}' has invalid syntax`;
    return undefined;
  };
  if (parts.length === 1) return checkName(parts[0]!);
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix.length > 253) return `Key prefix segment '${shorten(prefix)}' exceeds maximum length of 253 characters`;
    if (!DNS_SUBDOMAIN.test(prefix)) return `Key prefix segment '${shorten(prefix)}' has invalid syntax`;
    return checkName(parts[1]!);
  }
  return `Key '${shorten(key)}' contains more than one forward slash ('/') character`;
}

/**
 * `FieldValidator.verifyMetadataAnnotations`: size (non-empty values only), then keys, then
 * (unless allowed, i.e. on updates where "" means delete) empty values. INVALID_ARGUMENT.
 */
export function verifyAnnotations(annotations: Record<string, string>, allowEmptyValues: boolean, field: string): void {
  const nonEmpty = Object.fromEntries(Object.entries(annotations).filter(([, v]) => v !== ''));
  if (!isWithinMaxAnnotationsSize(nonEmpty)) {
    throw errors.invalidArgument(`annotations from field '${field}' are larger than the limit of 256kb`);
  }
  for (const key of Object.keys(annotations)) {
    const err = keyError(key);
    if (err !== undefined) throw errors.invalidArgument(err);
  }
  if (!allowEmptyValues) {
    for (const [key, value] of Object.entries(annotations)) {
      if (value === '') throw errors.invalidArgument(`The value of an annotation is empty for key: '${shorten(key)}'`);
    }
  }
}

/** `LocalAnnotationsUtils.calculateUpdatedAnnotations`: `existing ++ new`, then "" values dropped. */
export function mergeAnnotations(existing: Record<string, string>, update: Record<string, string>): Record<string, string> {
  const merged: Record<string, string> = { ...existing, ...update };
  for (const [k, v] of Object.entries(merged)) if (v === '') delete merged[k];
  return merged;
}

// ---- update masks (`UpdatePathsTrie`, `UpdateMapperBase`, `UpdatePathError`) ----------------

export interface MaskMatch {
  exact: boolean;
}

/**
 * A validated update mask. `match(path)` says whether the field at `path` is selected, exactly
 * (set it even to its default) or through a parent path (set it only to a non-default value).
 */
export class UpdateMask {
  private constructor(private readonly paths: ReadonlySet<string>) {}

  /**
   * Validates raw mask paths against the resource's full path list; returns the mask or the
   * `UpdatePathError` reason (the caller wraps it in its INVALID_*_UPDATE_REQUEST code).
   */
  static parse(rawPaths: readonly string[], fullPaths: readonly string[]): UpdateMask | string {
    if (rawPaths.length === 0) return 'The update mask contains no entries';
    const full = fullPaths.map((p) => p.split('.'));
    const seen = new Set<string>();
    for (const raw of rawPaths) {
      const path = javaSplit(raw, '.');
      // containsPrefix: the path must be a (possibly improper) prefix of some full path.
      const known = full.some((f) => path.length <= f.length && path.every((seg, i) => seg === f[i]));
      if (!known) return `The update path: '${shorten(raw)}' points to an unknown field.`;
      const key = path.join('.');
      if (seen.has(key)) return `The update path: '${shorten(key)}' is duplicated.`;
      seen.add(key);
    }
    return new UpdateMask(seen);
  }

  /** `UpdatePathsTrie.findMatch`: the longest mask path that equals or prefixes `path`. */
  match(path: string): MaskMatch | undefined {
    if (this.paths.has(path)) return { exact: true };
    const segs = path.split('.');
    for (let n = segs.length - 1; n >= 1; n--) {
      if (this.paths.has(segs.slice(0, n).join('.'))) return { exact: false };
    }
    return undefined;
  }

  /** `makePrimitiveFieldUpdate` / `makeAnnotationsUpdate`: the new value, or undefined for "no update". */
  resolve<T>(path: string, newValue: T, isDefault: (v: T) => boolean): T | undefined {
    const m = this.match(path);
    if (m === undefined) return undefined;
    if (m.exact) return newValue;
    return isDefault(newValue) ? undefined : newValue;
  }
}

// ---- page tokens -----------------------------------------------------------------------------

/**
 * Canton's list page tokens are the base64url (padded, `java.util.Base64.getUrlEncoder`) of a
 * one-field proto message `{ string lower_bound_excl = 1; }` (`ListUsersPageTokenPayload`,
 * `ListPartiesPageTokenPayload`). We produce byte-identical tokens.
 */
export function encodePageToken(lowerBoundExcl: string): string {
  const bytes = Buffer.from(lowerBoundExcl, 'utf8');
  const len: number[] = [];
  let n = bytes.length;
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n > 0) b |= 0x80;
    len.push(b);
  } while (n > 0);
  return Buffer.concat([Buffer.from([0x0a, ...len]), bytes]).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

/** Decodes a page token; undefined when it is not valid base64url or not a parsable proto. */
export function decodePageToken(token: string): string | undefined {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(token) || token.replace(/=+$/, '').length % 4 === 1) return undefined;
  const bytes = Buffer.from(token, 'base64url');
  let pos = 0;
  let value = '';
  const varint = (): number | undefined => {
    let result = 0;
    let shift = 0;
    while (pos < bytes.length) {
      const b = bytes[pos++]!;
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
      if (shift > 63) return undefined;
    }
    return undefined;
  };
  while (pos < bytes.length) {
    const tag = varint();
    if (tag === undefined || tag >>> 3 === 0) return undefined;
    const wire = tag & 7;
    if (wire === 0) {
      if (varint() === undefined) return undefined;
    } else if (wire === 1 || wire === 5) {
      pos += wire === 1 ? 8 : 4;
      if (pos > bytes.length) return undefined;
    } else if (wire === 2) {
      const len = varint();
      if (len === undefined || pos + len > bytes.length) return undefined;
      const chunk = bytes.subarray(pos, pos + len);
      pos += len;
      if (tag >>> 3 === 1) value = chunk.toString('utf8');
    } else {
      return undefined;
    }
  }
  return value;
}

export function invalidPageToken(): LedgerApiError {
  return errors.invalidArgument('Invalid page token');
}
