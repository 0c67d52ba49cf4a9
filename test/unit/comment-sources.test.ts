/**
 * Comments cite what a reader can open (DESIGN.md, house rules): the upstream public source by
 * name (repository and path, spec file and operationId, documentation page), never one of the
 * research notes beside the project, which do not ship with the package. The same holds for the
 * Markdown docs beside the code.
 *
 * Comments are found with TypeScript's own parser (the comment ranges before and after every
 * node), so a string or a regular expression that names the notes' folder does not count.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CHECKED = ['src', 'bench', 'scripts', 'test'];
const DOCS = ['.', 'docs', 'bench', '.notes'];

/** A citation of a research note: the notes' folder with a slash after it, or the word before a §. */
const RESEARCH_CITATION = /research\/|\bresearch\s+§/i;

function files(dir: string, ext: string, recurse: boolean): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return recurse && e.name !== 'node_modules' ? files(p, ext, recurse) : [];
    return e.name.endsWith(ext) ? [p] : [];
  });
}

/** Every comment of a TypeScript source, with its line (each comment once). */
function comments(fileName: string, text: string): Array<{ line: number; text: string }> {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const seen = new Set<number>();
  const found: Array<{ line: number; text: string }> = [];
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      found.push({ line: sf.getLineAndCharacterOfPosition(r.pos).line + 1, text: text.slice(r.pos, r.end) });
    }
  };
  const visit = (node: ts.Node): void => {
    collect(ts.getLeadingCommentRanges(text, node.pos));
    collect(ts.getTrailingCommentRanges(text, node.end));
    ts.forEachChild(node, visit);
  };
  visit(sf);
  collect(ts.getLeadingCommentRanges(text, sf.endOfFileToken.pos));
  return found;
}

/** `file:line: text` of each comment line that cites a research note. */
function researchCitations(fileName: string, text: string): string[] {
  if (!RESEARCH_CITATION.test(text)) return []; // no match in the text, none in its comments
  return comments(fileName, text).flatMap((c) =>
    c.text.split('\n').flatMap((l, i) => (RESEARCH_CITATION.test(l) ? [`${fileName}:${c.line + i}: ${l.trim()}`] : [])),
  );
}

describe('comments cite public sources, not research notes', () => {
  it('no comment in src/, bench/, scripts/ or test/ cites a research note', () => {
    const found = CHECKED.flatMap((dir) => files(join(ROOT, dir), '.ts', true)).flatMap((f) => researchCitations(relative(ROOT, f), readFileSync(f, 'utf8')));
    expect(found).toEqual([]);
  });

  it('no Markdown doc beside the code cites a research note', () => {
    const found = DOCS.flatMap((dir) => files(join(ROOT, dir), '.md', dir !== '.')).flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((l, i) => (RESEARCH_CITATION.test(l) ? [`${relative(ROOT, f)}:${i + 1}: ${l.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });

  it('finds a citation in any kind of comment, and not in strings or regular expressions', () => {
    const text = [
      '/**',
      ' * Block comment (research/ledger-api.md §5.1).',
      ' */',
      'const a = 1; // trailing (research/registry.md §3.3)',
      '// leading line comment, research §4.3',
      'const b = "research/ledger-api.md";',
      'const c = /research\\/x/;',
      'const d = `research/${a}`;',
      '/* at the end: research/scan-validator.md */',
    ].join('\n');
    expect(researchCitations('x.ts', text)).toEqual([
      'x.ts:2: * Block comment (research/ledger-api.md §5.1).',
      'x.ts:4: // trailing (research/registry.md §3.3)',
      'x.ts:5: // leading line comment, research §4.3',
      'x.ts:9: /* at the end: research/scan-validator.md */',
    ]);
  });
});
