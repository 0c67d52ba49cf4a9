/** Message templates, compiled once and rendered in a request's scope. */
import { asList } from './json-values.js';
import { templateParts, type TemplateTerm, termExpressions } from './schema/messages.js';
import type { ValueExpr } from './schema/paths-and-values.js';
import type { Scope } from './scope.js';
import { evaluate } from './value-expressions.js';

export type Template = ReadonlyArray<string | { term: TemplateTerm; text: string }>;

export function compileTemplate(text: string): Template {
  return templateParts(text).map((p) => {
    if (typeof p === 'string') return p;
    // validateDeclarativeRecipe rejects these; a hand-built config gets the same message.
    if ('error' in p) throw new Error(`declarative recipe: ${p.error}`);
    return p;
  });
}

export function render(t: Template, scope: Scope): string {
  return t.map((p) => (typeof p === 'string' ? p : text(term(p.term, scope)))).join('');
}

/** The value of a placeholder's term (a list stays a list until `join` makes it a text). */
function term(t: TemplateTerm, scope: Scope): unknown {
  if (t.kind === 'text') return t.value;
  if (t.kind === 'expr') return evaluate(t.expr, scope);
  const args = t.args.map((a) => term(a, scope));
  switch (t.fn) {
    case 'join':
      // an element that is itself a list (e.g. a group of parties of a computed `union`) shows as [a, b]
      return asList(args[0])
        .map((x) => (Array.isArray(x) ? `[${x.map(text).join(', ')}]` : text(x)))
        .join(String(args[1]));
    case 'sort':
      return asList(args[0]).map(text).sort();
    case 'matching': {
      const re = new RegExp(`^(?:${String(args[1])})$`);
      return asList(args[0]).filter((x): x is string => typeof x === 'string' && re.test(x));
    }
    case 'default':
      return args[0] === undefined || args[0] === null ? args[1] : args[0];
  }
}

export const text = (v: unknown): string => (typeof v === 'string' ? v : v === undefined ? '(absent)' : JSON.stringify(v));

/** The value expressions of a message's `{...}` placeholders. */
export function messageExpressions(t: Template): Array<{ expr: ValueExpr }> {
  return t.flatMap((p) => (typeof p === 'string' ? [] : termExpressions(p.term).map((x) => ({ expr: x.expr }))));
}
