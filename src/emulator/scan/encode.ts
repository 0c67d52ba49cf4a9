/**
 * Scan's wire encodings (Splice common-external.yaml, scan.yaml; `Contract.scala`, `ScanHttpEncodings.scala`): the JSON shapes
 * Splice's scan prints for contracts and events, and the exact text forms of its timestamps.
 *
 * Payloads: the emulated ledger stores Daml values in the JSON API's transcode form, which for the
 * values our templates hold is the same as scan's `compact_json` (ApiCodecCompressed: numerics and
 * Int64 as strings, RelTime objects, `{_1,_2}` tuples), so payloads pass through unchanged.
 *
 * Timestamps have four different text forms on scan's wire, each from a different Java printer:
 *  - `Contract.created_at`, `effective_at`: `Instant.toString` (fraction in groups of 3/6 digits);
 *  - `record_time` of update history items: `appendInstant(6)`, always 6 fraction digits
 *    (`ScanHttpEncodings.formatRecordTime`);
 *  - fields typed `format: date-time` (ACS `record_time`, `created_at` of events): circe's
 *    `ISO_OFFSET_DATE_TIME`, seconds always printed, trailing zeros of the fraction stripped;
 *  - request timestamps echoed in error messages: `OffsetDateTime.toString`, which omits zero
 *    seconds and keeps the offset the client sent.
 */
import { formatDamlTimestamp, formatInstant } from '../../canton/clock.js';
import type { ContractRecord } from '../participant/types.js';
import { formatId } from '../participant/types.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** `Instant.toString` (Contract.created_at, effective_at, CantonTimestamp in messages). */
export const instantString = formatInstant;
/** circe's ISO_OFFSET_DATE_TIME at UTC (every `format: date-time` field scan prints). */
export const dateTimeString = formatDamlTimestamp;

/** `ScanHttpEncodings.formatRecordTime`: ISO instant with exactly 6 fraction digits. */
export function recordTimeString(micros: bigint): string {
  const secs = floorDiv(micros, 1_000_000n);
  const frac = micros - secs * 1_000_000n;
  const base = new Date(Number(secs) * 1000).toISOString().slice(0, 19);
  return `${base}.${String(frac).padStart(6, '0')}Z`;
}

export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

/** A request timestamp: its instant (micros, sub-micro digits truncated) and Java's echo of it. */
export interface RequestTime {
  micros: bigint;
  /** `OffsetDateTime.toString` of the parsed value, as scan's error messages print it. */
  text: string;
}

const OFFSET_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2}(?::\d{2})?)$/;

/**
 * Parses an `OffsetDateTime` as circe does (ISO_OFFSET_DATE_TIME: seconds and fraction optional,
 * `Z` or a `±hh:mm[:ss]` offset); undefined when it is not one.
 */
export function parseRequestTime(text: string): RequestTime | undefined {
  const m = OFFSET_DATE_TIME.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s = '00', frac = '', off] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const localMs = Date.UTC(year, month - 1, day, hour, minute, second);
  if (new Date(localMs).getUTCDate() !== day) return undefined; // e.g. 2026-02-30
  let offsetSecs = 0;
  let offsetText = 'Z';
  if (off !== 'Z') {
    const sign = off!.startsWith('-') ? -1 : 1;
    const [oh, om, os = '00'] = off!.slice(1).split(':');
    if (Number(oh) > 18 || Number(om) > 59 || Number(os) > 59) return undefined;
    offsetSecs = sign * (Number(oh) * 3600 + Number(om) * 60 + Number(os));
    if (offsetSecs !== 0) offsetText = `${sign < 0 ? '-' : '+'}${oh}:${om}${os !== '00' ? `:${os}` : ''}`;
  }
  const nanos = Number(frac.padEnd(9, '0'));
  const micros = BigInt(localMs - offsetSecs * 1000) * 1000n + BigInt(Math.floor(nanos / 1000));
  let time = `${h}:${mi}`;
  if (second !== 0 || nanos !== 0) {
    time += `:${s}`;
    if (nanos !== 0) {
      const digits = String(nanos).padStart(9, '0');
      time += `.${nanos % 1_000_000 === 0 ? digits.slice(0, 3) : nanos % 1000 === 0 ? digits.slice(0, 6) : digits}`;
    }
  }
  return { micros, text: `${y}-${mo}-${d}T${time}${offsetText}` };
}

/**
 * Checks a party id like `PartyId.tryFromProtoPrimitive` (Canton `UniqueIdentifier`:
 * `identifier::namespace`, the namespace a hex fingerprint); returns the IllegalArgumentException
 * message that scan answers with 400, or undefined when the party id is well-formed.
 */
export function partyIdError(party: string): string | undefined {
  const i = party.indexOf('::');
  if (i < 0) return `Invalid unique identifier \`${party}\` with missing namespace.`;
  const identifier = party.slice(0, i);
  const namespace = party.slice(i + 2);
  if (identifier === '' || identifier.length > 185 || !/^[A-Za-z0-9_\- :.]+$/.test(identifier) || !/^[0-9a-fA-F]{1,68}$/.test(namespace)) {
    return `Invalid unique identifier \`${party}\`.`;
  }
  return undefined;
}

/** `Contract` of common-external.yaml (`Contract.toHttp`): package-id template id, blob, Instant.toString. */
export function contractJson(c: ContractRecord): JsonObject {
  return {
    template_id: formatId(c.templateId),
    contract_id: c.contractId,
    payload: c.payload as Json,
    created_event_blob: c.blob,
    created_at: instantString(c.createdAtMicros),
  };
}

/** `ContractWithState`: the contract and the synchronizer it is assigned to (one synchronizer here). */
export function contractWithStateJson(c: ContractRecord): JsonObject {
  return { contract: contractJson(c), domain_id: c.synchronizerId };
}

/** `ActiveContract` (ACS v1/v2, `javaToHttpActiveContract`): parties sorted. */
export function activeContractJson(c: ContractRecord): JsonObject {
  return {
    created_in_update_id: c.createdUpdateId,
    contract_id: c.contractId,
    template_id: formatId(c.templateId),
    package_name: c.templateId.packageName,
    create_arguments: c.payload as Json,
    created_at: dateTimeString(c.createdAtMicros),
    signatories: [...c.signatories].sort(),
    observers: [...c.observers].sort(),
  };
}

/** `CreatedEvent` (update trees, and ACS v0 with its `#`-prefixed legacy event id). */
export function createdEventJson(eventId: string, c: ContractRecord): JsonObject {
  return {
    event_type: 'created_event',
    event_id: eventId,
    contract_id: c.contractId,
    template_id: formatId(c.templateId),
    package_name: c.templateId.packageName,
    create_arguments: c.payload as Json,
    created_at: dateTimeString(c.createdAtMicros),
    signatories: [...c.signatories].sort(),
    observers: [...c.observers].sort(),
  };
}
