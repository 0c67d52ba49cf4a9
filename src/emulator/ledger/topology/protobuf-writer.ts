/**
 * A minimal protobuf wire-format writer for the few Canton messages the emulator serializes
 * itself (topology transactions). Fields are written in the order the caller adds them, which
 * must be field-number order to match what protobuf-java (ScalaPB) emits; proto3 defaults (0,
 * false, empty string/bytes, empty repeated) are left out, as those encoders do.
 */
export class ProtoWriter {
  private readonly parts: Buffer[] = [];

  private tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  private varint(n: number): void {
    const out: number[] = [];
    let v = n;
    while (v >= 0x80) {
      out.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    out.push(v);
    this.parts.push(Buffer.from(out));
  }

  /** uint32 / int32 (non-negative) / enum field. */
  uint(field: number, value: number): this {
    if (!Number.isInteger(value) || value < 0) throw new Error(`field ${field}: ${value} is not a non-negative integer`);
    if (value === 0) return this;
    this.tag(field, 0);
    this.varint(value);
    return this;
  }

  bool(field: number, value: boolean): this {
    return value ? this.uint(field, 1) : this;
  }

  bytes(field: number, value: Uint8Array): this {
    if (value.length === 0) return this;
    this.tag(field, 2);
    this.varint(value.length);
    this.parts.push(Buffer.from(value));
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, Buffer.from(value, 'utf8'));
  }

  /** An embedded message; written even when empty (presence matters for message fields). */
  message(field: number, value: ProtoWriter | Uint8Array): this {
    const b = value instanceof ProtoWriter ? value.finish() : Buffer.from(value);
    this.tag(field, 2);
    this.varint(b.length);
    this.parts.push(b);
    return this;
  }

  /** A repeated enum / int32 field in the packed encoding (proto3's default for scalars). */
  packed(field: number, values: readonly number[]): this {
    if (values.length === 0) return this;
    const inner = new ProtoWriter();
    for (const v of values) inner.varint(v);
    return this.bytes(field, inner.finish());
  }

  finish(): Buffer {
    return Buffer.concat(this.parts);
  }
}
