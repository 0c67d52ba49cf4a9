/** Shapes of parsed JSON values, as request checks (the registry's, the ledger schemas') and answer comparisons see them. */

/** An object, not null, not an array (what zod's object parse accepts). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A plain object, as JSON.parse makes: Object.prototype or null as its prototype (what zod's record parse accepts). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (!isObject(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
