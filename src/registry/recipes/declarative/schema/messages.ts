/**
 * Message templates: the `{...}` placeholders of an `error` or `missingError`, each a value
 * expression or a function of them (join, sort, matching, default), parsed.
 */
import { parseValueExpr, type ValueExpr } from './paths-and-values.js';

/**
 * A term of a message placeholder: a value expression, a quoted text (JSON string syntax), or a
 * function over terms (TEMPLATE_FUNCTIONS), so that a message can show a computed list.
 */
export type TemplateTerm = { kind: 'expr'; expr: ValueExpr; text: string } | { kind: 'text'; value: string } | { kind: 'call'; fn: TemplateFunction; args: TemplateTerm[] };

export const TEMPLATE_FUNCTIONS = {
  join: 'join(list, "sep"): the elements as text, separated by sep',
  sort: 'sort(list): the elements in ascending order (as texts, by code unit)',
  matching: 'matching(list, "regex"): the elements that are texts matched whole by the regex (JavaScript syntax, no braces), in order',
  default: 'default(value, "text"): the value, or the text when it is absent or null',
} as const;

export type TemplateFunction = keyof typeof TEMPLATE_FUNCTIONS;

const ARITY: Record<TemplateFunction, { args: number; textAt?: number }> = { join: { args: 2, textAt: 1 }, sort: { args: 1 }, matching: { args: 2, textAt: 1 }, default: { args: 2 } };

/** Parses one placeholder (without its braces); the term, or an error text. */
export function parseTemplateTerm(src: string): TemplateTerm | string {
  let i = 0;
  const ws = () => {
    while (src[i] === ' ') i++;
  };
  const term = (): TemplateTerm | string => {
    ws();
    if (src[i] === '"') {
      const m = /^"(?:[^"\\]|\\.)*"/.exec(src.slice(i));
      if (!m) return `unterminated text in "{${src}}"`;
      i += m[0].length;
      return { kind: 'text', value: JSON.parse(m[0]) as string };
    }
    if (src[i] === '$') {
      // a value expression runs to the next "," or ")" outside its own (a|b) steps
      let depth = 0;
      const start = i;
      for (; i < src.length; i++) {
        const ch = src[i];
        if (ch === '(') depth++;
        else if (ch === ')' && depth === 0) break;
        else if (ch === ')') depth--;
        else if (ch === ',' && depth === 0) break;
      }
      const text = src.slice(start, i).trim();
      const e = parseValueExpr(text);
      return typeof e === 'string' ? e : { kind: 'expr', expr: e, text };
    }
    const f = /^([A-Za-z]+)\(/.exec(src.slice(i));
    if (!f) return `"{${src}}": a placeholder is a value expression ($...), a quoted text or a function: ${Object.values(TEMPLATE_FUNCTIONS).join('; ')}`;
    const name = f[1]!;
    if (!(name in TEMPLATE_FUNCTIONS)) return `"{${src}}": unknown function "${name}"; functions: ${Object.keys(TEMPLATE_FUNCTIONS).join(', ')}`;
    const fn = name as TemplateFunction;
    i += f[0].length;
    const args: TemplateTerm[] = [];
    for (;;) {
      const a = term();
      if (typeof a === 'string') return a;
      args.push(a);
      ws();
      if (src[i] === ',') {
        i++;
        continue;
      }
      if (src[i] === ')') {
        i++;
        break;
      }
      return `"{${src}}": expected "," or ")" after argument ${args.length} of ${fn}`;
    }
    const { args: n, textAt } = ARITY[fn];
    if (args.length !== n) return `"{${src}}": ${TEMPLATE_FUNCTIONS[fn]} (${n} argument${n > 1 ? 's' : ''}, not ${args.length})`;
    if (textAt !== undefined && args[textAt]!.kind !== 'text') return `"{${src}}": argument ${textAt + 1} of ${fn} is a quoted text (${TEMPLATE_FUNCTIONS[fn]})`;
    if (fn === 'matching') {
      try {
        new RegExp((args[1] as { value: string }).value);
      } catch (err) {
        return `"{${src}}": not a regular expression: ${(err as Error).message}`;
      }
    }
    return { kind: 'call', fn, args };
  };
  const t = term();
  if (typeof t === 'string') return t;
  ws();
  return i === src.length ? t : `"{${src}}": unexpected "${src.slice(i)}"`;
}

/** The value expressions inside a placeholder's term. */
export function termExpressions(t: TemplateTerm): Array<{ expr: ValueExpr; text: string }> {
  return t.kind === 'expr' ? [t] : t.kind === 'call' ? t.args.flatMap(termExpressions) : [];
}

/** The `{...}` placeholders of a message template (a value expression or a function call), each parsed (or its error). */
export function templateParts(text: string): Array<string | { term: TemplateTerm; text: string } | { error: string }> {
  const out: Array<string | { term: TemplateTerm; text: string } | { error: string }> = [];
  let last = 0;
  for (const m of text.matchAll(/\{(\$[^{}]*|[A-Za-z]+\([^{}]*)\}/g)) {
    out.push(text.slice(last, m.index));
    const t = parseTemplateTerm(m[1]!);
    out.push(typeof t === 'string' ? { error: t } : { term: t, text: m[1]! });
    last = m.index + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}
