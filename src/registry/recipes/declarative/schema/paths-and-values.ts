/**
 * Payload paths (their steps: fields, `*`, `{a,b}`, `(a.b|c)`, `~`, `[name.with.dots]`), qualified
 * template and interface ids, and value expressions (`$admin`, `$args.<path>`, `$ref.<name>.<path>`, ...):
 * their syntax, parsed here once for the schema, the load-time validation and the interpreter.
 */
import { z } from 'zod';

/** `#package-name:Module.Path:Entity` (Daml module and entity names are dotted identifiers). */
const QUALIFIED_NAME = /^#[A-Za-z0-9][A-Za-z0-9._-]*:[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/**
 * A path step: a field name, `*` (every element of a list or value of a map), `{a,b}` (the fields
 * a and b, in this order; each may be a sub-path, `{admin,account.provider}`), `(a.b|c)` (the first of these sub-paths that is present: not absent,
 * not null; e.g. the same data of a V2 record and of the V1 record that wraps one), `~` (the keys
 * of a map, as one list value in the payload's order, so that `~.0` is its first key) or `[text]`
 * (a field whose name has dots, e.g. a metadata key).
 */
const FIELDS = String.raw`(?:[A-Za-z0-9_-]+|~)(?:\.(?:[A-Za-z0-9_-]+|~))*`;

const SUBPATH = String.raw`[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*`;

const SEGMENT = String.raw`(?:\(${FIELDS}(?:\|${FIELDS})+\)|\[[^\]]+\]|\{${SUBPATH}(?:,${SUBPATH})+\}|[^.\s\[\]{}()|]+)`;

export const PATH = new RegExp(`^${SEGMENT}(?:\\.${SEGMENT})*$`);

const SEGMENTS = new RegExp(SEGMENT, 'g');

/** The steps of a path that PATH accepts. */
export function splitPath(p: string): string[] {
  return p.match(SEGMENTS) ?? [];
}

export const QualifiedIdSchema = z.string().superRefine((s, ctx) => {
  if (QUALIFIED_NAME.test(s)) return;
  const pkgIdForm = /^#?[0-9a-f]{64}:/.test(s);
  ctx.addIssue({
    code: 'custom',
    message: pkgIdForm
      ? `"${s}" uses a package id; use the package name ("#<package-name>:<Module>:<Entity>") so that package upgrades keep matching`
      : `"${s}" is not of the form "#<package-name>:<Module>:<Entity>" (e.g. "#acme-token:Acme.Rules:TransferRules")`,
  });
});

export const PathSchema = z.string().regex(PATH, 'a payload field path is dot-separated field names, e.g. "instrumentId.id" (steps may also be *, {a,b} or {a.b,c}, (a.b|c), ~ or [name.with.dots])');

/** A value expression; its root is checked here, its use (which roots are allowed where) in the second pass. */
export const ValueExprSchema = z.union(
  [
    z.string().superRefine((v, ctx) => {
      const e = parseValueExpr(v);
      if (typeof e === 'string') ctx.addIssue({ code: 'custom', message: e });
    }),
    z.boolean(),
    z.null(),
  ],
  {
    error: (iss) =>
      iss.code === 'invalid_union' && typeof iss.input === 'number'
        ? `${String(iss.input)}: write numbers as strings ("${String(iss.input)}"), as the JSON Ledger API encodes Int64 and Numeric`
        : 'a value expression is a string (literal, $admin, $now, $args.<path>, $contract.<path>, $contractId, $ref.<name>.<path>, $found.<name>), a boolean or null',
  },
);

export type ValueExpr =
  | { kind: 'literal'; value: string | boolean | null }
  | { kind: 'admin' }
  | { kind: 'now' }
  | { kind: 'contractId' }
  | { kind: 'item' }
  | { kind: 'itemContract'; path: string[] }
  | { kind: 'missing' }
  | { kind: 'args'; path: string[] }
  | { kind: 'contract'; path: string[] }
  | { kind: 'ref'; name: string; path: string[] }
  | { kind: 'found'; name: string }
  | { kind: 'let'; name: string; path: string[] };

const ROOTS = 'a literal, $admin, $now, $args.<path>, $contract.<path>, $contractId, $ref.<name>.<path>, $found.<name>, $item (in missingError and forEach refusals), $itemContract.<path> (in forEach refusals), $missing (in the error of a check with whenMissing), or "$$..." for a literal starting with "$"';

/** Parses a value expression; returns an error text (what is wrong and what is allowed) on failure. */
export function parseValueExpr(v: string | boolean | null): ValueExpr | string {
  if (typeof v !== 'string' || !v.startsWith('$')) return { kind: 'literal', value: v };
  if (v.startsWith('$$')) return { kind: 'literal', value: v.slice(1) };
  if (v === '$admin') return { kind: 'admin' };
  if (v === '$now') return { kind: 'now' };
  if (v === '$contractId') return { kind: 'contractId' };
  if (v === '$item') return { kind: 'item' };
  if (v === '$missing') return { kind: 'missing' };
  const ic = /^\$itemContract(?:\.(.*))?$/.exec(v);
  if (ic) {
    if (ic[1] !== undefined && !PATH.test(ic[1])) return `"${v}": not a field path after $itemContract`;
    return { kind: 'itemContract', path: ic[1] === undefined ? [] : splitPath(ic[1]) };
  }
  const m = /^\$(args|contract)(?:\.(.*))?$/.exec(v);
  if (m) {
    const path = m[2];
    if (path === undefined || !PATH.test(path)) return `"${v}": $${m[1]} needs a field path, e.g. "$${m[1]}.${m[1] === 'args' ? 'transfer.receiver' : 'transfer.instrumentId'}"`;
    return { kind: m[1] as 'args' | 'contract', path: splitPath(path) };
  }
  const l = /^\$let\.([A-Za-z_][A-Za-z0-9_-]*)(?:\.(.*))?$/.exec(v);
  if (l) {
    if (l[2] !== undefined && !PATH.test(l[2])) return `"${v}": not a field path after $let.${l[1]!}`;
    return { kind: 'let', name: l[1]!, path: l[2] === undefined ? [] : splitPath(l[2]) };
  }
  const r = /^\$(ref|found)\.([A-Za-z_][A-Za-z0-9_-]*)(?:\.(.*))?$/.exec(v);
  if (r) {
    const [, root, name, path] = r;
    if (root === 'found') return path === undefined ? { kind: 'found', name: name! } : `"${v}": $found.<name> takes no path`;
    if (path !== undefined && !PATH.test(path)) return `"${v}": not a field path after $ref.${name!}`;
    return { kind: 'ref', name: name!, path: path === undefined ? [] : splitPath(path) };
  }
  const root = /^\$[^.]*/.exec(v)![0];
  return `"${v}": unknown value expression root "${root}"; use ${ROOTS}`;
}
