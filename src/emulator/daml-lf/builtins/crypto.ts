/**
 * Cryptographic and hex builtins (daml-lf-2.rst, "Cryptography functions", "String functions";
 * Speedy for the builtins the spec does not list yet: SHA256_HEX, SECP256K1_WITH_ECDSA_BOOL,
 * SECP256K1_VALIDATE_KEY).
 *  - Hex strings are lowercase with an even number of digits; anything else given where hex is
 *    expected is an uncatchable "Invalid byte encoding format" failure.
 *  - SHA256_TEXT hashes the UTF-8 bytes of a text; SHA256_HEX and KECCAK256_TEXT the bytes a hex
 *    string encodes. Keccak-256 is the original Keccak padding (Ethereum's hash), not SHA3-256.
 *  - SECP256K1_WITH_ECDSA_BOOL sig msg key: ECDSA verification over secp256k1 of a DER signature
 *    against the message bytes used as the digest (Java's `NONEwithECDSA`); SECP256K1_BOOL first
 *    hashes the message with SHA-256. Keys are DER `SubjectPublicKeyInfo` (X.509) encodings.
 * Known limits: public keys must name the secp256k1 curve and use the uncompressed point form
 * (anything else is a "Malformed public key" failure); invalid UTF-8 in HEX_TO_TEXT becomes U+FFFD.
 */
import { createHash } from 'node:crypto';
import type { FunV } from '../../lf-value/runtime-value.js';
import { bool, expect, fun, text } from '../../lf-value/runtime-value.js';
import { malformedByteEncoding, malformedKey, malformedSignature } from './errors.js';

const HEX = /^(?:[0-9a-f]{2})*$/;

function decodeHex(hex: string, cause: string): Buffer {
  if (!HEX.test(hex)) malformedByteEncoding(hex, cause);
  return Buffer.from(hex, 'hex');
}

const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

export const sha256Text: FunV = fun(1, (args) => text(sha256Hex(Buffer.from(expect(args[0]!, 'text').value, 'utf8'))), 'SHA256_TEXT');

export const sha256HexFn: FunV = fun(1, (args) => {
  const hex = expect(args[0]!, 'text').value;
  return text(sha256Hex(decodeHex(hex, 'can not parse hex string')));
}, 'SHA256_HEX');

export const keccak256Text: FunV = fun(1, (args) => {
  const hex = expect(args[0]!, 'text').value;
  return text(Buffer.from(keccak256(decodeHex(hex, 'can not parse hex string'))).toString('hex'));
}, 'KECCAK256_TEXT');

export const textToHex: FunV = fun(1, (args) => text(Buffer.from(expect(args[0]!, 'text').value, 'utf8').toString('hex')), 'TEXT_TO_HEX');

export const hexToText: FunV = fun(1, (args) => {
  const hex = expect(args[0]!, 'text').value;
  return text(decodeHex(hex, 'can not parse hex string argument').toString('utf8'));
}, 'HEX_TO_TEXT');

export const secp256k1WithEcdsaBool: FunV = fun(3, (args) => {
  const sigHex = expect(args[0]!, 'text').value;
  const msgHex = expect(args[1]!, 'text').value;
  const keyHex = expect(args[2]!, 'text').value;
  return bool(verifyHex(sigHex, msgHex, keyHex));
}, 'SECP256K1_WITH_ECDSA_BOOL');

export const secp256k1Bool: FunV = fun(3, (args) => {
  const sigHex = expect(args[0]!, 'text').value;
  const msgHex = expect(args[1]!, 'text').value;
  const keyHex = expect(args[2]!, 'text').value;
  const digest = sha256Hex(decodeHex(msgHex, 'can not parse message hex string'));
  return bool(verifyHex(sigHex, digest, keyHex));
}, 'SECP256K1_BOOL');

export const secp256k1ValidateKey: FunV = fun(1, (args) => {
  const keyHex = expect(args[0]!, 'text').value;
  const key = decodeHex(keyHex, 'can not parse DER encoded public key hex string');
  const point = parsePublicKey(keyHex, key);
  return bool(onCurve(point));
}, 'SECP256K1_VALIDATE_KEY');

function verifyHex(sigHex: string, msgHex: string, keyHex: string): boolean {
  const sig = decodeHex(sigHex, 'can not parse signature hex string');
  const msg = decodeHex(msgHex, 'can not parse message hex string');
  const key = decodeHex(keyHex, 'can not parse DER encoded public key hex string');
  const point = parsePublicKey(keyHex, key);
  if (!onCurve(point)) malformedKey(keyHex, 'point not on curve');
  const rs = parseSignature(sig);
  if (rs === undefined) malformedSignature(sigHex, 'error decoding signature bytes.');
  return ecdsaVerify(msg, rs.r, rs.s, point);
}

// ---- DER -----------------------------------------------------------------------------------------

interface Tlv {
  tag: number;
  body: Buffer;
  next: number;
}

/** One DER tag-length-value at `pos` (definite, minimal lengths only), or undefined. */
function readTlv(buf: Buffer, pos: number): Tlv | undefined {
  if (pos + 2 > buf.length) return undefined;
  const tag = buf[pos]!;
  let len = buf[pos + 1]!;
  let start = pos + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || start + n > buf.length) return undefined;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[start + i]!;
    if (len < 0x80 || buf[start] === 0) return undefined;
    start += n;
  }
  if (start + len > buf.length) return undefined;
  return { tag, body: buf.subarray(start, start + len), next: start + len };
}

const OID_EC_PUBLIC_KEY = '2a8648ce3d0201';
const OID_SECP256K1 = '2b8104000a';

interface Point {
  x: bigint;
  y: bigint;
}

/** The point of a DER SubjectPublicKeyInfo for an uncompressed secp256k1 key. */
function parsePublicKey(keyHex: string, der: Buffer): Point {
  const bad = (cause: string): never => malformedKey(keyHex, cause);
  const spki = readTlv(der, 0);
  if (spki === undefined || spki.tag !== 0x30 || spki.next !== der.length) return bad('invalid key encoding');
  const alg = readTlv(spki.body, 0);
  if (alg === undefined || alg.tag !== 0x30) return bad('invalid key encoding');
  const bits = readTlv(spki.body, alg.next);
  if (bits === undefined || bits.tag !== 0x03 || bits.next !== spki.body.length) return bad('invalid key encoding');
  const oid = readTlv(alg.body, 0);
  const curve = oid === undefined ? undefined : readTlv(alg.body, oid.next);
  if (oid === undefined || oid.tag !== 0x06 || oid.body.toString('hex') !== OID_EC_PUBLIC_KEY) return bad('not an EC key');
  if (curve === undefined || curve.tag !== 0x06 || curve.body.toString('hex') !== OID_SECP256K1) return bad('not a secp256k1 key');
  const pt = bits.body;
  if (pt.length !== 66 || pt[0] !== 0 || pt[1] !== 0x04) return bad('Only uncompressed point format supported');
  return { x: BigInt('0x' + pt.subarray(2, 34).toString('hex')), y: BigInt('0x' + pt.subarray(34).toString('hex')) };
}

/** A DER `SEQUENCE { INTEGER r, INTEGER s }` with minimal encodings, or undefined. */
function parseSignature(der: Buffer): { r: bigint; s: bigint } | undefined {
  const seq = readTlv(der, 0);
  if (seq === undefined || seq.tag !== 0x30 || seq.next !== der.length) return undefined;
  const r = readTlv(seq.body, 0);
  const s = r === undefined ? undefined : readTlv(seq.body, r.next);
  if (r === undefined || s === undefined || s.next !== seq.body.length) return undefined;
  const int = (t: Tlv): bigint | undefined => {
    const b = t.body;
    if (t.tag !== 0x02 || b.length === 0) return undefined;
    if (b.length > 1 && ((b[0] === 0 && !(b[1]! & 0x80)) || (b[0] === 0xff && b[1]! & 0x80))) return undefined;
    if (b[0]! & 0x80) return undefined; // negative: never a valid r or s
    return BigInt('0x' + b.toString('hex'));
  };
  const rv = int(r);
  const sv = int(s);
  return rv === undefined || sv === undefined ? undefined : { r: rv, s: sv };
}

// ---- secp256k1 ECDSA ------------------------------------------------------------------------------

const P = 2n ** 256n - 2n ** 32n - 977n;
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const G: Point = {
  x: 0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798n,
  y: 0x483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8n,
};

const mod = (a: bigint, m: bigint): bigint => {
  const r = a % m;
  return r < 0n ? r + m : r;
};

function modInverse(a: bigint, m: bigint): bigint {
  let [oldR, r] = [mod(a, m), m];
  let [oldS, s] = [1n, 0n];
  while (r !== 0n) {
    const q = oldR / r;
    [oldR, r] = [r, oldR - q * r];
    [oldS, s] = [s, oldS - q * s];
  }
  return mod(oldS, m);
}

function onCurve(p: Point): boolean {
  return p.x >= 0n && p.x < P && p.y >= 0n && p.y < P && mod(p.y * p.y - p.x * p.x * p.x - 7n, P) === 0n;
}

/** A point in Jacobian coordinates (x = X/Z², y = Y/Z³); Z = 0 is the point at infinity. */
interface Jacobian {
  X: bigint;
  Y: bigint;
  Z: bigint;
}

const INFINITY: Jacobian = { X: 1n, Y: 1n, Z: 0n };

function double(p: Jacobian): Jacobian {
  if (p.Z === 0n || p.Y === 0n) return INFINITY;
  const yy = mod(p.Y * p.Y, P);
  const s = mod(4n * p.X * yy, P);
  const m = mod(3n * p.X * p.X, P); // the curve's a is 0
  const x = mod(m * m - 2n * s, P);
  return { X: x, Y: mod(m * (s - x) - 8n * yy * yy, P), Z: mod(2n * p.Y * p.Z, P) };
}

function add(p: Jacobian, q: Jacobian): Jacobian {
  if (p.Z === 0n) return q;
  if (q.Z === 0n) return p;
  const pz2 = mod(p.Z * p.Z, P);
  const qz2 = mod(q.Z * q.Z, P);
  const u1 = mod(p.X * qz2, P);
  const u2 = mod(q.X * pz2, P);
  const s1 = mod(p.Y * qz2 * q.Z, P);
  const s2 = mod(q.Y * pz2 * p.Z, P);
  if (u1 === u2) return s1 === s2 ? double(p) : INFINITY;
  const h = mod(u2 - u1, P);
  const r = mod(s2 - s1, P);
  const hh = mod(h * h, P);
  const hhh = mod(hh * h, P);
  const x = mod(r * r - hhh - 2n * u1 * hh, P);
  return { X: x, Y: mod(r * (u1 * hh - x) - s1 * hhh, P), Z: mod(h * p.Z * q.Z, P) };
}

function multiply(k: bigint, p: Point): Jacobian {
  let result = INFINITY;
  let addend: Jacobian = { X: p.x, Y: p.y, Z: 1n };
  for (let e = k; e > 0n; e >>= 1n) {
    if (e & 1n) result = add(result, addend);
    addend = double(addend);
  }
  return result;
}

function affineX(p: Jacobian): bigint | undefined {
  if (p.Z === 0n) return undefined;
  const zInv = modInverse(p.Z, P);
  return mod(p.X * zInv * zInv, P);
}

/** ECDSA verification with the message bytes as the digest (leftmost 256 bits when longer). */
function ecdsaVerify(msg: Buffer, r: bigint, s: bigint, q: Point): boolean {
  if (r <= 0n || r >= N || s <= 0n || s >= N) return false;
  let e = msg.length === 0 ? 0n : BigInt('0x' + msg.toString('hex'));
  if (msg.length * 8 > 256) e >>= BigInt(msg.length * 8 - 256);
  const w = modInverse(s, N);
  const x = affineX(add(multiply(mod(e * w, N), G), multiply(mod(r * w, N), q)));
  return x !== undefined && mod(x, N) === r;
}

// ---- Keccak-256 -----------------------------------------------------------------------------------

const MASK64 = (1n << 64n) - 1n;

/** Round constants and rotation offsets of Keccak-f[1600], derived as the Keccak reference defines them. */
const { ROUND_CONSTANTS, ROTATIONS } = (() => {
  let lfsr = 1;
  const rcBit = (): boolean => {
    const bit = (lfsr & 1) === 1;
    lfsr = lfsr & 0x80 ? ((lfsr << 1) ^ 0x71) & 0xff : (lfsr << 1) & 0xff;
    return bit;
  };
  const rcs: bigint[] = [];
  for (let round = 0; round < 24; round++) {
    let rc = 0n;
    for (let j = 0; j < 7; j++) if (rcBit()) rc |= 1n << BigInt((1 << j) - 1);
    rcs.push(rc);
  }
  const rot: number[] = new Array<number>(25).fill(0);
  let x = 1;
  let y = 0;
  for (let t = 0; t < 24; t++) {
    rot[x + 5 * y] = (((t + 1) * (t + 2)) / 2) % 64;
    [x, y] = [y, (2 * x + 3 * y) % 5];
  }
  return { ROUND_CONSTANTS: rcs, ROTATIONS: rot };
})();

const rotl = (v: bigint, n: number): bigint => (n === 0 ? v : ((v << BigInt(n)) | (v >> BigInt(64 - n))) & MASK64);

function keccakF(a: bigint[]): void {
  for (let round = 0; round < 24; round++) {
    const c: bigint[] = [];
    for (let x = 0; x < 5; x++) c.push(a[x]! ^ a[x + 5]! ^ a[x + 10]! ^ a[x + 15]! ^ a[x + 20]!);
    for (let x = 0; x < 5; x++) {
      const d = c[(x + 4) % 5]! ^ rotl(c[(x + 1) % 5]!, 1);
      for (let y = 0; y < 25; y += 5) a[x + y] = a[x + y]! ^ d;
    }
    const b: bigint[] = new Array<bigint>(25).fill(0n);
    for (let x = 0; x < 5; x++) {
      for (let y = 0; y < 5; y++) b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl(a[x + 5 * y]!, ROTATIONS[x + 5 * y]!);
    }
    for (let x = 0; x < 5; x++) {
      for (let y = 0; y < 25; y += 5) a[x + y] = b[x + y]! ^ (~b[((x + 1) % 5) + y]! & MASK64 & b[((x + 2) % 5) + y]!);
    }
    a[0] = a[0]! ^ ROUND_CONSTANTS[round]!;
  }
}

/** Keccak-256 (rate 136 bytes, padding 0x01…0x80). */
export function keccak256(data: Uint8Array): Uint8Array {
  const rate = 136;
  const padded = new Uint8Array((Math.floor(data.length / rate) + 1) * rate);
  padded.set(data);
  padded[data.length] = padded[data.length]! ^ 0x01;
  padded[padded.length - 1] = padded[padded.length - 1]! ^ 0x80;
  const state: bigint[] = new Array<bigint>(25).fill(0n);
  for (let off = 0; off < padded.length; off += rate) {
    for (let i = 0; i < rate / 8; i++) {
      let lane = 0n;
      for (let j = 7; j >= 0; j--) lane = (lane << 8n) | BigInt(padded[off + 8 * i + j]!);
      state[i] = state[i]! ^ lane;
    }
    keccakF(state);
  }
  const out = new Uint8Array(32);
  for (let i = 0; i < 4; i++) {
    let lane = state[i]!;
    for (let j = 0; j < 8; j++) {
      out[8 * i + j] = Number(lane & 0xffn);
      lane >>= 8n;
    }
  }
  return out;
}
