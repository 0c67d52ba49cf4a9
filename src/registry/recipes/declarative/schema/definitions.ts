import { z } from 'zod';
import { zodProblems } from '../../../../canton/config-error.js';
import { strict } from './strict-object.js';

/**
 * Named definitions: a predicate, a value (a value expression or a computed value) or a message,
 * written once at recipe level and used wherever one of that kind goes, as
 * `{"$def": "<name>", "with": {"<param>": <argument>}}`. They are expanded when the recipe is
 * loaded (before anything else is checked), so an expanded use is checked, and reported, where it
 * is used; a definition's body names its parameters `$<param>` (optionally followed by a path,
 * appended to the argument's), and may use other definitions.
 */
export type DefinitionKind = 'predicate' | 'value' | 'message';

const DEFINITION_KINDS: readonly DefinitionKind[] = ['predicate', 'value', 'message'];

const DEFINITION_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** Value expression roots: a parameter may not take one of these names. */
const RESERVED_PARAMS = new Set(['admin', 'now', 'args', 'contract', 'contractId', 'ref', 'found', 'item', 'itemContract', 'missing', 'let', 'def']);

const WHERE_DEFINITIONS_GO =
  'a definition is used as a predicate (when, if, not, all, any, a computed if), a value (a predicate operand, a let value, list, union, record, then, else) or a message (error, missingError)';

const DefinitionSchema = strict({
  description: z.string().optional().describe('What the definition stands for, for the people who maintain the recipe.'),
  params: z
    .array(z.string().regex(DEFINITION_NAME, 'a parameter name is letters, digits, _ and -, starting with a letter or _').refine((p) => !RESERVED_PARAMS.has(p), 'a parameter may not be named after a value expression root ($admin, $args, $ref, ...)'))
    .optional()
    .describe('The names of its parameters: every use gives each an argument in `with`, and the body reads it as `$<param>` (`$account.owner`: the argument, a value expression such as `$args.transfer.sender`, with `.owner` appended). An argument may be any JSON the place of the parameter takes (a value expression, a computed value, a predicate).'),
  predicate: z.unknown().optional().describe('A predicate (the forms of `transferKind.self[].when`): the definition is used where a predicate goes.'),
  value: z.unknown().optional().describe('A value expression or a computed value (the forms of a refusal\'s `let`): the definition is used where a value goes (a predicate operand, a `let` value, an element of `list` or `union`).'),
  message: z.string().min(1).optional().describe('A message (with `{...}` placeholders, as `refuse[].error`): the definition is used as an `error` or `missingError`; `$<param>` is replaced by its argument anywhere in the text.'),
})
  .refine((d) => DEFINITION_KINDS.filter((k) => d[k] !== undefined).length === 1, 'a definition has exactly one of "predicate", "value" and "message"')
  .describe('One definition: its body (exactly one of `predicate`, `value`, `message`) and its parameters.');

export const DefinitionsSchema = z
  .record(z.string().regex(DEFINITION_NAME, 'a definition name is letters, digits, _ and -, starting with a letter or _'), DefinitionSchema)
  .optional()
  .describe(
    'Named predicates, values and messages, written once and used anywhere one of their kind goes as `{"$def": "<name>", "with": {"<param>": <argument>, ...}}` (e.g. one predicate for the V1 and the V2 factory, each passing its own account path). Expanded when the recipe is loaded: a use of an unknown definition, of a definition of another kind, a missing or unknown argument, and definitions that use themselves (directly or through others) are configuration errors.',
  );

type Json = unknown;

const isRecord = (v: Json): v is Record<string, Json> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Where in a recipe a node sits: what a `$def` there must stand for (`values`: a map of values, a rule's `let` or a `record`). */
type Position = DefinitionKind | 'other' | 'values';

/** The position of the children of a node at `pos`, by key (an array's elements keep the key's). */
function childPosition(pos: Position, key: string): Position {
  if (pos === 'predicate') {
    // not, all, any combine predicates; every other operator (eq, in, exists, ...) takes values
    return key === 'not' || key === 'all' || key === 'any' ? 'predicate' : 'value';
  }
  if (pos === 'value') {
    if (key === 'if') return 'predicate';
    if (key === 'list' || key === 'union' || key === 'then' || key === 'else') return 'value';
    if (key === 'record') return 'values';
    return 'other';
  }
  if (pos === 'values') return 'value';
  if (key === 'when' || key === 'if') return 'predicate';
  if (key === 'error' || key === 'missingError') return 'message';
  if (key === 'let') return 'values';
  return 'other';
}

/** `$param` and `$param.<path>` in a body; in a message, anywhere in the text. */
function substitute(body: Json, args: Record<string, Json>, kind: DefinitionKind, problems: string[], at: string): Json {
  const names = Object.keys(args);
  if (typeof body === 'string') {
    if (kind === 'message') {
      if (names.length === 0) return body;
      return body.replace(new RegExp(`\\$(${names.map((n) => n.replace(/[-]/g, '\\-')).join('|')})(?![A-Za-z0-9_-])`, 'g'), (_m, n: string) => {
        const a = args[n];
        if (a !== null && typeof a === 'object') {
          problems.push(`${at}.with.${n}: the message reads $${n} in its text, so its argument is a value expression or a literal, not ${JSON.stringify(a)}`);
          return '';
        }
        return String(a);
      });
    }
    const m = /^\$([A-Za-z_][A-Za-z0-9_-]*)(\..*)?$/.exec(body);
    if (!m || !(m[1]! in args)) return body;
    const arg = args[m[1]!];
    if (m[2] === undefined) return arg;
    if (typeof arg === 'string' && arg.startsWith('$') && !arg.startsWith('$$')) return arg + m[2];
    problems.push(`${at}.with.${m[1]!}: the definition reads "${body}", a path into its argument, so the argument is a value expression such as "$args.transfer.sender", not ${JSON.stringify(arg)}`);
    return body;
  }
  if (Array.isArray(body)) return body.map((x) => substitute(x, args, kind, problems, at));
  if (isRecord(body)) return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, substitute(v, args, kind, problems, at)]));
  return body;
}

/** The names of the definitions a body uses. */
function usesOf(v: Json, out = new Set<string>()): Set<string> {
  if (Array.isArray(v)) for (const x of v) usesOf(x, out);
  else if (isRecord(v)) {
    if (typeof v.$def === 'string') out.add(v.$def);
    for (const x of Object.values(v)) usesOf(x, out);
  }
  return out;
}

/** The definitions of a recipe document that neither the recipe nor a definition it uses uses. */
export function unusedDefinitions(json: Json): string[] {
  if (!isRecord(json) || !isRecord(json.definitions)) return [];
  const defs = json.definitions;
  const used = usesOf(Object.fromEntries(Object.entries(json).filter(([k]) => k !== 'definitions')));
  for (let grew = true; grew; ) {
    grew = false;
    for (const n of [...used]) for (const m of usesOf(defs[n])) if (!used.has(m)) (used.add(m), (grew = true));
  }
  return Object.keys(defs).filter((n) => !used.has(n));
}

/**
 * Expands the `$def` uses of a recipe document (recipe level `definitions`); each problem is one
 * `<path>: <what>`. The document is returned unchanged when it has no definitions and no uses.
 */
export function expandDefinitions(json: Json): { json: Json; problems: string[] } {
  const problems: string[] = [];
  if (!isRecord(json)) return { json, problems };
  const defs = new Map<string, { kind: DefinitionKind; params: string[]; body: Json }>();
  const raw = json.definitions;
  if (raw !== undefined) {
    const r = DefinitionsSchema.safeParse(raw);
    if (!r.success) return { json, problems: zodProblems(r.error).map((p) => `definitions${p.startsWith('(root)') ? p.slice('(root)'.length) : p.startsWith('[') ? p : `.${p}`}`) };
  }
  if (isRecord(raw)) {
    for (const [name, d] of Object.entries(raw)) {
      if (!isRecord(d)) continue; // the schema reports it
      const kinds = DEFINITION_KINDS.filter((k) => d[k] !== undefined);
      if (kinds.length !== 1) continue;
      const params = Array.isArray(d.params) ? d.params.filter((p): p is string => typeof p === 'string') : [];
      defs.set(name, { kind: kinds[0]!, params, body: d[kinds[0]!] });
    }
  }
  // A definition may not use itself, directly or through others: report each cycle once.
  const inCycle = new Set<string>();
  const reported = new Set<string>();
  for (const start of defs.keys()) {
    const walk = (name: string, trail: string[]): void => {
      for (const next of usesOf(defs.get(name)?.body)) {
        if (!defs.has(next)) continue;
        if (next === start) {
          const cycle = [...trail, start];
          for (const n of trail) inCycle.add(n);
          const key = [...trail].sort().join(',');
          if (!reported.has(key)) {
            reported.add(key);
            problems.push(`definitions.${start}: the definition uses itself (${cycle.join(' → ')}); a definition may use others, not itself`);
          }
          continue;
        }
        if (!trail.includes(next)) walk(next, [...trail, next]);
      }
    };
    walk(start, [start]);
  }
  let used = false;
  const expand = (node: Json, pos: Position, at: string, depth: number): Json => {
    if (Array.isArray(node)) return node.map((x, i) => expand(x, pos, `${at}[${i}]`, depth));
    if (!isRecord(node)) return node;
    if (!('$def' in node)) {
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, expand(v, childPosition(pos, k), at === '' ? k : `${at}.${k}`, depth)]));
    }
    used = true;
    const here = at === '' ? '(root)' : at;
    const name = node.$def;
    const extra = Object.keys(node).filter((k) => k !== '$def' && k !== 'with');
    if (extra.length > 0) {
      problems.push(`${here}: a use of a definition has "$def" and "with" only, not ${extra.map((k) => `"${k}"`).join(', ')}`);
      return node;
    }
    if (typeof name !== 'string') {
      problems.push(`${here}.$def: the name of a definition (a string)`);
      return node;
    }
    const def = defs.get(name);
    if (!def) {
      problems.push(`${here}: unknown definition "${name}"${defs.size > 0 ? ` (definitions: ${[...defs.keys()].join(', ')})` : ' (the recipe has no "definitions")'}`);
      return node;
    }
    if (pos === 'other' || pos === 'values') {
      problems.push(`${here}: the ${def.kind} definition "${name}" cannot be used here; ${WHERE_DEFINITIONS_GO}`);
      return node;
    }
    if (def.kind !== pos) {
      problems.push(`${here}: "${name}" is a ${def.kind} definition, but a ${pos} goes here`);
      return node;
    }
    if (inCycle.has(name) || depth > 64) return node; // reported under definitions
    const given = node.with === undefined ? {} : node.with;
    if (!isRecord(given)) {
      problems.push(`${here}.with: the arguments of "${name}" are an object {"<param>": <argument>}`);
      return node;
    }
    const before = problems.length;
    for (const k of Object.keys(given)) if (!def.params.includes(k)) problems.push(`${here}.with.${k}: "${name}" has no parameter "${k}"${def.params.length > 0 ? ` (parameters: ${def.params.join(', ')})` : ' (it takes no arguments)'}`);
    for (const p of def.params) if (!(p in given)) problems.push(`${here}.with: missing the argument of parameter "${p}" of "${name}"`);
    if (problems.length > before) return node;
    // arguments are expanded where they are used (a parameter stands where its argument goes)
    const body = substitute(def.body, given, def.kind, problems, here);
    return expand(body, pos, at, depth + 1);
  };
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(json)) out[k] = k === 'definitions' ? v : expand(v, childPosition('other', k), k, 0);
  return { json: used || problems.length > 0 ? out : json, problems };
}

/** Expands definitions before the structure is checked; a problem stops the parse (each reported once, at its use). */
export function expandForSchema(v: unknown, ctx: z.RefinementCtx): unknown {
  const { json, problems } = expandDefinitions(v);
  if (problems.length === 0) return json;
  for (const p of problems) {
    const i = p.indexOf(': ');
    const at = p.slice(0, i);
    ctx.addIssue({ code: 'custom', message: p.slice(i + 2), path: at === '(root)' ? [] : pathOf(at) });
  }
  return z.NEVER;
}

/** `refuse[3].when.all[0]` as a zod path. */
function pathOf(at: string): PropertyKey[] {
  return [...at.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]!));
}
