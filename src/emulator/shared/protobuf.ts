/**
 * A protobuf wire-format reader, just enough to walk Daml-LF archives (`daml_lf.proto`, digital-asset/canton)
 * without generated code: a message is split into its fields, each field kept as a varint or a
 * byte slice (no copy), and callers interpret the fields they know. Unknown fields are skipped,
 * as proto3 parsers do.
 */

/** The input is not valid protobuf; messages follow protobuf-java's `InvalidProtocolBufferException`. */
export class ProtoError extends Error {}

const TRUNCATED =
  'While parsing a protocol message, the input ended unexpectedly in the middle of a field.  ' +
  'This could mean either that the input has been truncated or that an embedded message misreported its own length.';

export interface Varint {
  /** The value as a JS number (exact below 2^53). */
  value: number;
  /** The low 32 bits, unsigned: exact for int32/enum fields, negative ones included. */
  lo: number;
  /** The exact 64-bit value, set only for varints longer than 7 bytes (where `value` may be inexact). */
  big?: bigint;
}

export type ProtoField =
  | { wire: 0; varint: Varint }
  | { wire: 1; bytes: Buffer }
  | { wire: 2; bytes: Buffer }
  | { wire: 5; bytes: Buffer };

export class ProtoMessage {
  private constructor(private readonly fields: Map<number, ProtoField[]>) {}

  static decode(buf: Buffer): ProtoMessage {
    const fields = new Map<number, ProtoField[]>();
    let pos = 0;
    while (pos < buf.length) {
      const key = readVarint(buf, pos);
      pos = key.next;
      const fieldNo = Math.floor(key.v.value / 8);
      const wire = key.v.lo & 7;
      if (fieldNo === 0) throw new ProtoError('Protocol message contained an invalid tag (zero).');
      let f: ProtoField;
      switch (wire) {
        case 0: {
          const r = readVarint(buf, pos);
          pos = r.next;
          f = { wire: 0, varint: r.v };
          break;
        }
        case 1:
          if (pos + 8 > buf.length) throw new ProtoError(TRUNCATED);
          f = { wire: 1, bytes: buf.subarray(pos, pos + 8) };
          pos += 8;
          break;
        case 2: {
          const r = readVarint(buf, pos);
          pos = r.next;
          const len = r.v.value;
          if (len > buf.length - pos) throw new ProtoError(TRUNCATED);
          f = { wire: 2, bytes: buf.subarray(pos, pos + len) };
          pos += len;
          break;
        }
        case 5:
          if (pos + 4 > buf.length) throw new ProtoError(TRUNCATED);
          f = { wire: 5, bytes: buf.subarray(pos, pos + 4) };
          pos += 4;
          break;
        default:
          throw new ProtoError('Protocol message tag had invalid wire type.');
      }
      const list = fields.get(fieldNo);
      if (list) list.push(f);
      else fields.set(fieldNo, [f]);
    }
    return new ProtoMessage(fields);
  }

  /** The field numbers present, in first-seen order: how a `oneof` case is found without probing each member. */
  fieldNumbers(): IterableIterator<number> {
    return this.fields.keys();
  }

  has(field: number): boolean {
    return this.fields.has(field);
  }

  /** Last occurrence wins for singular fields, as in protobuf. */
  private last(field: number): ProtoField | undefined {
    const l = this.fields.get(field);
    return l ? l[l.length - 1] : undefined;
  }

  private expect(field: number, f: ProtoField, wire: number): void {
    if (f.wire !== wire) throw new ProtoError(`Field ${field} has wire type ${f.wire}, expected ${wire}.`);
  }

  /** int32 / enum field (default 0). */
  int32(field: number): number {
    const f = this.last(field);
    if (!f) return 0;
    this.expect(field, f, 0);
    return (f as { varint: Varint }).varint.lo | 0;
  }

  bool(field: number): boolean {
    const f = this.last(field);
    if (!f) return false;
    this.expect(field, f, 0);
    return (f as { varint: Varint }).varint.value !== 0;
  }

  /** sint64 (zigzag) field; exact for |n| < 2^52. */
  sint64(field: number): number {
    const f = this.last(field);
    if (!f) return 0;
    this.expect(field, f, 0);
    const v = (f as { varint: Varint }).varint.value;
    return v % 2 === 0 ? v / 2 : -(v + 1) / 2;
  }

  /** uint64 field as an exact bigint (default 0). */
  uint64(field: number): bigint {
    const f = this.last(field);
    if (!f) return 0n;
    this.expect(field, f, 0);
    const v = (f as { varint: Varint }).varint;
    return v.big ?? BigInt(v.value);
  }

  /** sint64 (zigzag) field as an exact bigint (default 0). */
  sint64Big(field: number): bigint {
    const u = this.uint64(field);
    return (u & 1n) === 0n ? u >> 1n : -((u + 1n) >> 1n);
  }

  /** sfixed64 field (default 0). */
  sfixed64(field: number): bigint {
    const f = this.last(field);
    if (!f) return 0n;
    this.expect(field, f, 1);
    return (f as { bytes: Buffer }).bytes.readBigInt64LE(0);
  }

  /** bytes / embedded message field; undefined when absent. */
  bytes(field: number): Buffer | undefined {
    const f = this.last(field);
    if (!f) return undefined;
    this.expect(field, f, 2);
    return (f as { bytes: Buffer }).bytes;
  }

  string(field: number): string {
    return this.bytes(field)?.toString('utf8') ?? '';
  }

  message(field: number): ProtoMessage | undefined {
    const b = this.bytes(field);
    return b === undefined ? undefined : ProtoMessage.decode(b);
  }

  repeatedBytes(field: number): Buffer[] {
    const l = this.fields.get(field) ?? [];
    return l.map((f) => {
      this.expect(field, f, 2);
      return (f as { bytes: Buffer }).bytes;
    });
  }

  repeatedStrings(field: number): string[] {
    return this.repeatedBytes(field).map((b) => b.toString('utf8'));
  }

  repeatedMessages(field: number): ProtoMessage[] {
    return this.repeatedBytes(field).map((b) => ProtoMessage.decode(b));
  }

  /** repeated int32, accepting both the packed (proto3 default) and the unpacked encoding. */
  repeatedInt32(field: number): number[] {
    const out: number[] = [];
    for (const f of this.fields.get(field) ?? []) {
      if (f.wire === 0) out.push(f.varint.lo | 0);
      else if (f.wire === 2) {
        let pos = 0;
        while (pos < f.bytes.length) {
          const r = readVarint(f.bytes, pos);
          out.push(r.v.lo | 0);
          pos = r.next;
        }
      } else throw new ProtoError(`Field ${field} has wire type ${f.wire}, expected 0 or 2.`);
    }
    return out;
  }
}

export function readVarint(buf: Buffer, start: number): { v: Varint; next: number } {
  let pos = start;
  let value = 0;
  let lo = 0;
  for (let shift = 0; shift < 70; shift += 7) {
    if (pos >= buf.length) throw new ProtoError(TRUNCATED);
    const b = buf[pos++]!;
    const bits = b & 0x7f;
    value += bits * 2 ** shift;
    if (shift < 32) lo = (lo | (bits << shift)) >>> 0;
    if ((b & 0x80) === 0) {
      if (pos - start <= 7) return { v: { value, lo }, next: pos };
      let big = 0n;
      for (let i = pos - 1; i >= start; i--) big = (big << 7n) | BigInt(buf[i]! & 0x7f);
      return { v: { value, lo, big: big & 0xffffffffffffffffn }, next: pos };
    }
  }
  throw new ProtoError('CodedInputStream encountered a malformed varint.');
}
