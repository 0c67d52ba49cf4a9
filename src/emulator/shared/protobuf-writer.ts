/**
 * A protobuf wire-format writer, the counterpart of `protobuf.ts` beside it: enough to serialise the
 * messages the emulated participant writes itself without generated code: interactive
 * submission (`interactive_submission_service.proto`, `value.proto`) and topology transactions
 * (`topology.proto`, `crypto.proto`). Fields are written in the order the caller writes them (callers follow
 * field-number order, as protobuf serialisers do); proto3 scalars at their default value are
 * skipped by the `*IfSet` helpers, oneof members and `optional` fields are always written.
 */
import { ByteSink } from './byte-sink.js';

export class ProtoWriter {
  private readonly out = new ByteSink();

  private tag(field: number, wire: number): void {
    this.out.varint(field * 8 + wire);
  }

  /** A length-delimited field (string, bytes, embedded message), written even when empty. */
  bytes(field: number, b: Uint8Array): this {
    this.tag(field, 2);
    this.out.varint(b.length);
    this.out.bytes(b);
    return this;
  }
  bytesIfSet(field: number, b: Uint8Array): this {
    return b.length === 0 ? this : this.bytes(field, b);
  }
  string(field: number, s: string): this {
    this.tag(field, 2);
    this.out.varint(Buffer.byteLength(s, 'utf8'));
    this.out.utf8(s);
    return this;
  }
  stringIfSet(field: number, s: string): this {
    return s === '' ? this : this.string(field, s);
  }
  repeatedStrings(field: number, xs: readonly string[]): this {
    for (const x of xs) this.string(field, x);
    return this;
  }
  message(field: number, m: ProtoWriter): this {
    return this.bytes(field, m.out.view());
  }
  /** int32/uint32/enum/bool/uint64 as a plain varint (negative int32 as 10 bytes, as protobuf does). */
  uint(field: number, n: number | bigint): this {
    this.tag(field, 0);
    if (typeof n === 'number' && n >= 0 && n <= Number.MAX_SAFE_INTEGER) this.out.varint(n);
    else this.out.bigVarint(BigInt(n));
    return this;
  }
  uintIfSet(field: number, n: number | bigint): this {
    return n === 0 || n === 0n ? this : this.uint(field, n);
  }
  bool(field: number, b: boolean): this {
    return this.uint(field, b ? 1 : 0);
  }
  boolIfSet(field: number, b: boolean): this {
    return b ? this.bool(field, b) : this;
  }
  /** A repeated enum / int32 field in the packed encoding (proto3's default for scalars); nothing when empty. */
  packed(field: number, values: readonly number[]): this {
    if (values.length === 0) return this;
    const inner = new ByteSink();
    for (const v of values) inner.varint(v);
    return this.bytes(field, inner.view());
  }
  /** sint64: zigzag varint. */
  sint64(field: number, n: bigint): this {
    this.tag(field, 0);
    this.out.bigVarint(n >= 0n ? n << 1n : ((-n) << 1n) - 1n);
    return this;
  }
  /** sfixed64: 8 bytes little endian. */
  sfixed64(field: number, n: bigint): this {
    this.tag(field, 1);
    this.out.int64LE(n);
    return this;
  }

  finish(): Buffer {
    return Buffer.from(this.out.view());
  }
}
