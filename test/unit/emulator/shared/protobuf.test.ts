import { describe, expect, it } from 'vitest';
import { ProtoError, ProtoMessage } from '../../../../src/emulator/shared/protobuf.js';
import { ProtoWriter } from '../../../support/dar-builder.js';

describe('ProtoMessage', () => {
  it('reads scalars, strings, nested messages and skips unknown fields', () => {
    const buf = new ProtoWriter()
      .varint(1, 150)
      .varint(2, -5) // int32 negatives are 10-byte varints
      .varint(3, true)
      .sint64(4, -37)
      .string(5, 'héllo')
      .message(6, (m) => m.varint(1, 7))
      .varint(99, 12345) // unknown
      .bytes(100, Buffer.from([1, 2, 3])) // unknown
      .finish();
    const m = ProtoMessage.decode(buf);
    expect(m.int32(1)).toBe(150);
    expect(m.int32(2)).toBe(-5);
    expect(m.bool(3)).toBe(true);
    expect(m.sint64(4)).toBe(-37);
    expect(m.string(5)).toBe('héllo');
    expect(m.message(6)!.int32(1)).toBe(7);
    expect(m.int32(7)).toBe(0); // absent -> default
    expect(m.string(8)).toBe('');
    expect(m.message(9)).toBeUndefined();
  });

  it('reads repeated int32 packed and unpacked, and repeated messages in order', () => {
    const buf = new ProtoWriter()
      .packedInt32(1, [1, 300, 2])
      .varint(1, 4)
      .string(2, 'a')
      .string(2, 'b')
      .finish();
    const m = ProtoMessage.decode(buf);
    expect(m.repeatedInt32(1)).toEqual([1, 300, 2, 4]);
    expect(m.repeatedStrings(2)).toEqual(['a', 'b']);
  });

  it('takes the last value of a repeated singular field', () => {
    const m = ProtoMessage.decode(new ProtoWriter().varint(1, 1).varint(1, 2).finish());
    expect(m.int32(1)).toBe(2);
  });

  it('rejects truncated input and invalid tags', () => {
    const buf = new ProtoWriter().string(1, 'hello world').finish();
    expect(() => ProtoMessage.decode(buf.subarray(0, 5))).toThrow(ProtoError);
    expect(() => ProtoMessage.decode(Buffer.from([0x00, 0x01]))).toThrow(/invalid tag \(zero\)/);
    expect(() => ProtoMessage.decode(Buffer.from([0x0b]))).toThrow(/invalid wire type/);
    expect(() => ProtoMessage.decode(Buffer.from([0x08, 0xff]))).toThrow(ProtoError);
  });

  it('rejects a field read with the wrong wire type', () => {
    const m = ProtoMessage.decode(new ProtoWriter().varint(1, 3).finish());
    expect(() => m.bytes(1)).toThrow(ProtoError);
  });
});
