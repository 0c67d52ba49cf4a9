/**
 * A growable byte buffer: the output of the protobuf writer and of the hash encoder, written in
 * place (no small Buffer per field, which dominated their cost).
 */
export class ByteSink {
  private buf: Buffer;
  private len = 0;

  constructor(initial = 256) {
    this.buf = Buffer.allocUnsafe(initial);
  }

  get length(): number {
    return this.len;
  }

  private ensure(extra: number): void {
    if (this.len + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + extra) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.len++] = b;
  }

  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }

  int32BE(n: number): void {
    this.ensure(4);
    this.buf.writeInt32BE(n | 0, this.len);
    this.len += 4;
  }

  /** Overwrites 4 bytes at `at` (a length written before its content). */
  patchInt32BE(at: number, n: number): void {
    this.buf.writeInt32BE(n | 0, at);
  }

  int64BE(n: bigint): void {
    this.ensure(8);
    this.buf.writeBigInt64BE(BigInt.asIntN(64, n), this.len);
    this.len += 8;
  }

  int64LE(n: bigint): void {
    this.ensure(8);
    this.buf.writeBigInt64LE(BigInt.asIntN(64, n), this.len);
    this.len += 8;
  }

  /** UTF-8 text; returns its byte length. */
  utf8(s: string): number {
    const n = Buffer.byteLength(s, 'utf8');
    this.ensure(n);
    this.buf.write(s, this.len, n, 'utf8');
    this.len += n;
    return n;
  }

  /** Hex text as bytes; returns the byte count. */
  hex(s: string): number {
    const n = s.length >>> 1;
    this.ensure(n);
    this.buf.write(s, this.len, n, 'hex');
    this.len += n;
    return n;
  }

  varint(n: number): void {
    this.ensure(10);
    while (n >= 0x80) {
      this.buf[this.len++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.len++] = n;
  }

  bigVarint(n: bigint): void {
    this.ensure(10);
    let v = BigInt.asUintN(64, n);
    while (v >= 0x80n) {
      this.buf[this.len++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.len++] = Number(v);
  }

  /** The bytes written so far (a view: copy it if the sink is written to afterwards). */
  view(): Buffer {
    return this.buf.subarray(0, this.len);
  }
}
