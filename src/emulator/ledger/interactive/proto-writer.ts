/**
 * A protobuf wire-format writer, the counterpart of `dar/protobuf.ts`: enough to serialise the
 * interactive submission messages (`interactive_submission_service.proto`, `value.proto`)
 * without generated code. Fields are written in the order the caller writes them (callers follow
 * field-number order, as protobuf serialisers do); proto3 scalars at their default value are
 * skipped by the `*IfSet` helpers, oneof members and `optional` fields are always written.
 */

export class ProtoWriter {
  private readonly chunks: Buffer[] = [];
  private size = 0;

  private push(b: Buffer): void {
    this.chunks.push(b);
    this.size += b.length;
  }

  private varint(n: bigint): void {
    const out: number[] = [];
    let v = BigInt.asUintN(64, n);
    while (v >= 0x80n) {
      out.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    out.push(Number(v));
    this.push(Buffer.from(out));
  }

  private smallVarint(n: number): void {
    if (n < 0x80) {
      this.push(Buffer.from([n]));
      return;
    }
    this.varint(BigInt(n));
  }

  private tag(field: number, wire: number): void {
    this.smallVarint(field * 8 + wire);
  }

  /** A length-delimited field (string, bytes, embedded message), written even when empty. */
  bytes(field: number, b: Uint8Array): this {
    this.tag(field, 2);
    this.smallVarint(b.length);
    this.push(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
    return this;
  }
  string(field: number, s: string): this {
    return this.bytes(field, Buffer.from(s, 'utf8'));
  }
  stringIfSet(field: number, s: string): this {
    return s === '' ? this : this.string(field, s);
  }
  repeatedStrings(field: number, xs: readonly string[]): this {
    for (const x of xs) this.string(field, x);
    return this;
  }
  message(field: number, m: ProtoWriter): this {
    return this.bytes(field, m.finish());
  }
  /** int32/uint32/enum/bool/uint64 as a plain varint (negative int32 as 10 bytes, as protobuf does). */
  uint(field: number, n: number | bigint): this {
    this.tag(field, 0);
    this.varint(BigInt(n));
    return this;
  }
  uintIfSet(field: number, n: number | bigint): this {
    return BigInt(n) === 0n ? this : this.uint(field, n);
  }
  bool(field: number, b: boolean): this {
    return this.uint(field, b ? 1 : 0);
  }
  boolIfSet(field: number, b: boolean): this {
    return b ? this.bool(field, b) : this;
  }
  /** sint64: zigzag varint. */
  sint64(field: number, n: bigint): this {
    this.tag(field, 0);
    this.varint(n >= 0n ? n << 1n : ((-n) << 1n) - 1n);
    return this;
  }
  /** sfixed64: 8 bytes little endian. */
  sfixed64(field: number, n: bigint): this {
    this.tag(field, 1);
    const b = Buffer.alloc(8);
    b.writeBigInt64LE(n);
    this.push(b);
    return this;
  }

  finish(): Buffer {
    return Buffer.concat(this.chunks, this.size);
  }
}
