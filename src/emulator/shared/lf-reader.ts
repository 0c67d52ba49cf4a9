/**
 * A lean protobuf message view for the expression decoder. A package holds hundreds of thousands
 * of `Expr` messages; `protobuf.ts`'s `ProtoMessage` (a map of field objects and buffer
 * slices per message) made decoding allocation-bound. Here a message is its buffer plus one flat
 * array of `[field number, wire type, a, b]` quadruples: for a varint `a` is its low 32 bits as a
 * signed int32 (exact for the int32, enum and bool fields read through this view); for a
 * length-delimited or fixed-width field `a`..`b` is its byte range. Messages with 64-bit scalars
 * (literals) and types go to the standard reader through `asProto()`.
 */
import { ProtoError, ProtoMessage } from './protobuf.js';

const TRUNCATED = 'While parsing a protocol message, the input ended unexpectedly in the middle of a field.';

export class Msg {
  private constructor(
    /** The buffer the field ranges index into. */
    readonly buf: Buffer,
    /** `[field number, wire type, a, b]` per field occurrence, in wire order. */
    readonly f: number[],
    private readonly start: number,
    private readonly end: number,
  ) {}

  static decode(buf: Buffer): Msg {
    return Msg.range(buf, 0, buf.length);
  }

  static range(buf: Buffer, start: number, end: number): Msg {
    const f: number[] = [];
    let pos = start;
    while (pos < end) {
      // The key: field numbers and wire types fit in 32 bits for every field LF uses.
      let key = 0;
      let shift = 0;
      let b: number;
      do {
        if (pos >= end) throw new ProtoError(TRUNCATED);
        b = buf[pos++]!;
        if (shift < 32) key |= (b & 0x7f) << shift;
        shift += 7;
      } while (b & 0x80);
      const fieldNo = key >>> 3;
      const wire = key & 7;
      if (fieldNo === 0) throw new ProtoError('Protocol message contained an invalid tag (zero).');
      switch (wire) {
        case 0: {
          let lo = 0;
          shift = 0;
          do {
            if (pos >= end || shift >= 70) throw new ProtoError(TRUNCATED);
            b = buf[pos++]!;
            if (shift < 32) lo |= (b & 0x7f) << shift;
            shift += 7;
          } while (b & 0x80);
          f.push(fieldNo, 0, lo | 0, 0);
          break;
        }
        case 2: {
          let len = 0;
          shift = 0;
          do {
            if (pos >= end || shift >= 35) throw new ProtoError(TRUNCATED);
            b = buf[pos++]!;
            len += (b & 0x7f) * 2 ** shift;
            shift += 7;
          } while (b & 0x80);
          if (len > end - pos) throw new ProtoError(TRUNCATED);
          f.push(fieldNo, 2, pos, pos + len);
          pos += len;
          break;
        }
        case 1:
        case 5: {
          const len = wire === 1 ? 8 : 4;
          if (pos + len > end) throw new ProtoError(TRUNCATED);
          f.push(fieldNo, wire, pos, pos + len);
          pos += len;
          break;
        }
        default:
          throw new ProtoError('Protocol message tag had invalid wire type.');
      }
    }
    return new Msg(buf, f, start, end);
  }

  /** Index in `f` of the last occurrence of `field` (protobuf: the last one wins), or -1. */
  last(field: number): number {
    const f = this.f;
    for (let i = f.length - 4; i >= 0; i -= 4) if (f[i] === field) return i;
    return -1;
  }

  has(field: number): boolean {
    return this.last(field) >= 0;
  }

  /** The first field number present other than `skip` (a oneof's case), or 0 when none. */
  caseOf(skip = 0): number {
    const f = this.f;
    for (let i = 0; i < f.length; i += 4) if (f[i] !== skip) return f[i]!;
    return 0;
  }

  /** int32 / enum field (default 0). */
  int32(field: number): number {
    const i = this.last(field);
    if (i < 0) return 0;
    if (this.f[i + 1] !== 0) throw new ProtoError(`Field ${field} has wire type ${this.f[i + 1]}, expected 0.`);
    return this.f[i + 2]!;
  }

  bool(field: number): boolean {
    return this.int32(field) !== 0;
  }

  /** Embedded message field; undefined when absent. */
  msg(field: number): Msg | undefined {
    const i = this.last(field);
    if (i < 0) return undefined;
    if (this.f[i + 1] !== 2) throw new ProtoError(`Field ${field} has wire type ${this.f[i + 1]}, expected 2.`);
    return Msg.range(this.buf, this.f[i + 2]!, this.f[i + 3]!);
  }

  msgs(field: number): Msg[] {
    const out: Msg[] = [];
    const f = this.f;
    for (let i = 0; i < f.length; i += 4) {
      if (f[i] !== field) continue;
      if (f[i + 1] !== 2) throw new ProtoError(`Field ${field} has wire type ${f[i + 1]}, expected 2.`);
      out.push(Msg.range(this.buf, f[i + 2]!, f[i + 3]!));
    }
    return out;
  }

  string(field: number): string {
    const i = this.last(field);
    if (i < 0) return '';
    if (this.f[i + 1] !== 2) throw new ProtoError(`Field ${field} has wire type ${this.f[i + 1]}, expected 2.`);
    return this.buf.toString('utf8', this.f[i + 2]!, this.f[i + 3]!);
  }

  /** This whole message through the standard reader. */
  asProto(): ProtoMessage {
    return ProtoMessage.decode(this.buf.subarray(this.start, this.end));
  }
}
