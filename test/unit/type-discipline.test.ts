/**
 * "Types do the checking" (DESIGN.md): no `any`, no `as never`, no `as unknown as` in src/, bench/,
 * scripts/ and test/. In a test, a wire answer is read with the project's zod schema for it (which
 * also checks its shape) or named by a type; a fake implements the type it stands for; an input
 * that is ill-typed on purpose says so with `@ts-expect-error`, which fails once it type-checks.
 * Each of them makes the compiler accept what it would otherwise reject, so one hides exactly the
 * mistake the types were there to catch. A value of unknown shape is `unknown` and narrowed (a
 * guard, a schema); a generic that must hold templates of any payload uses method signatures.
 *
 * Found with TypeScript's own parser, so comments and strings (the word "any") do not count.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CHECKED = ['src', 'bench', 'scripts', 'test'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** `file:line: text` of each escape hatch in `text`. */
function escapeHatches(fileName: string, text: string): string[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const report = (node: ts.Node, what: string) => {
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
    found.push(`${fileName}:${line}: ${what}`);
  };
  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.AnyKeyword) report(node, '`any`');
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
      if (node.type.kind === ts.SyntaxKind.NeverKeyword) report(node, '`as never`');
      const inner = ts.isParenthesizedExpression(node.expression) ? node.expression.expression : node.expression;
      if ((ts.isAsExpression(inner) || ts.isTypeAssertionExpression(inner)) && inner.type.kind === ts.SyntaxKind.UnknownKeyword) report(node, '`as unknown as`');
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe('type discipline of src/, bench/, scripts/ and test/', () => {
  it('has no any, as never or as unknown as', () => {
    const found = CHECKED.flatMap((dir) => sourceFiles(join(ROOT, dir))).flatMap((f) => escapeHatches(relative(ROOT, f), readFileSync(f, 'utf8')));
    expect(found).toEqual([]);
  });

  it('finds each of them, and not the word in comments or strings', () => {
    const text = [
      'const a: any = 1;',
      'const b = f(x as never);',
      'const c = (y as unknown) as string[];',
      'const d = z as unknown as number;',
      'function e(m: Map<string, any>) {}',
      '// any, as never, as unknown as',
      "const s = 'as unknown as any';",
      'const ok = w as unknown;',
      'const any = true;',
    ].join('\n');
    expect(escapeHatches('x.ts', text)).toEqual(['x.ts:1: `any`', 'x.ts:2: `as never`', 'x.ts:3: `as unknown as`', 'x.ts:4: `as unknown as`', 'x.ts:5: `any`']);
  });
});
