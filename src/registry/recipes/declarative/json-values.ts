/** Daml-JSON values as the interpreter compares them: equality, order, lists, and how a value shows in a message. */
import { parseInstant } from '../../../canton/clock.js';

export const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);

const DECIMAL = /^-?\d+(\.\d+)?$/;

/** Orders two payload values: decimal texts as numbers, timestamps as times, other texts as text; undefined when they do not compare. */
export function compare(a: unknown, b: unknown): number | undefined {
  if (typeof a !== 'string' || typeof b !== 'string') return typeof a === 'number' && typeof b === 'number' ? a - b : undefined;
  if (DECIMAL.test(a) && DECIMAL.test(b)) {
    const scale = (x: string) => {
      const [int, frac = ''] = x.replace('-', '').split('.');
      return { neg: x.startsWith('-'), int: int!, frac };
    };
    const [x, y] = [scale(a), scale(b)];
    const digits = Math.max(x.frac.length, y.frac.length);
    const n = (v: { neg: boolean; int: string; frac: string }) => BigInt(v.int + v.frac.padEnd(digits, '0')) * (v.neg ? -1n : 1n);
    const d = n(x) - n(y);
    return d < 0n ? -1 : d > 0n ? 1 : 0;
  }
  const [ia, ib] = [parseInstant(a), parseInstant(b)];
  if (ia !== undefined && ib !== undefined) return ia < ib ? -1 : ia > ib ? 1 : 0;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function show(v: unknown): string {
  return v === undefined ? '(absent)' : JSON.stringify(v);
}

/** Equality of Daml-JSON values: an absent optional field equals `null` (None). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const x = a === undefined ? null : a;
  const y = b === undefined ? null : b;
  if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object') return x === y;
  if (Array.isArray(x) !== Array.isArray(y)) return false;
  if (Array.isArray(x)) return x.length === (y as unknown[]).length && x.every((v, i) => jsonEqual(v, (y as unknown[])[i]));
  const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
  for (const k of keys) if (!jsonEqual((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k])) return false;
  return true;
}
