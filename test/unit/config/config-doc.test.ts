/**
 * docs/configuration.md: its reference is generated from the configuration schemas and the
 * environment table (src/config/environment.ts), and committed up to date; the table names exactly
 * the variables the loaders read.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONFIG_DOC_PATH, renderReference, withReference } from '../../../scripts/config-doc.js';
import { ENVIRONMENT_VARIABLES } from '../../../src/config/environment.js';

const SRC = fileURLToPath(new URL('../../../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every variable read in src/: `env.NAME`, `env['NAME']`, `num('NAME')`, and the `<API>_UPSTREAM` names of UPSTREAM_ENV. */
function variablesReadInSource(): Set<string> {
  const names = new Set<string>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]*)|\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\])/g)) names.add((m[1] ?? m[2])!);
    // load.ts reads whole numbers through num('NAME'), loadUpstreamsConfig through UPSTREAM_ENV
    for (const m of text.matchAll(/\bnum\(\s*'([A-Z][A-Z0-9_]*)'\s*\)/g)) names.add(m[1]!);
    for (const m of text.matchAll(/^\s+\w+: '([A-Z]+_UPSTREAM)',$/gm)) names.add(m[1]!);
  }
  return names;
}

describe('docs/configuration.md', () => {
  it('has the reference the schemas generate (npm run config-doc:gen)', () => {
    const doc = readFileSync(CONFIG_DOC_PATH, 'utf8');
    expect(doc).toBe(withReference(doc, renderReference()));
  });

  it('gives every field and variable a meaning', () => {
    const rows = renderReference()
      .split('\n')
      .filter((l) => l.startsWith('| `'));
    expect(rows.length).toBeGreaterThan(100);
    expect(rows.filter((r) => r.trimEnd().endsWith('|  |'))).toEqual([]);
  });

  it('lists every environment variable the loaders read, and no other', () => {
    const listed = ENVIRONMENT_VARIABLES.map((v) => v.name);
    expect(new Set(listed).size).toBe(listed.length);
    const read = variablesReadInSource();
    expect([...read].filter((n) => !listed.includes(n)).sort()).toEqual([]);
    expect(listed.filter((n) => !read.has(n)).sort()).toEqual([]);
  });

  it('fails generation when a variable names a field the schema does not have', () => {
    const wrong = [...ENVIRONMENT_VARIABLES, { name: 'NOT_A_FIELD', fields: { emulate: 'noSuchField' }, meaning: 'x' }];
    expect(() => renderReference(wrong)).toThrow(/NOT_A_FIELD: no field noSuchField/);
  });
});
