/** docs/recipes.md: its field reference is generated from the recipe schema and committed up to date. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RECIPES_DOC_PATH, renderReference, withReference } from '../../../scripts/recipes-doc.js';

describe('docs/recipes.md', () => {
  it('has the reference the schema generates (npm run recipes:gen)', () => {
    const doc = readFileSync(RECIPES_DOC_PATH, 'utf8');
    expect(doc).toBe(withReference(doc, renderReference()));
  });

  it('documents every top-level field of a recipe', () => {
    const reference = renderReference();
    for (const field of ['name', 'supportedApis', 'factories', 'contextEntries', 'transferKind', 'transferInstructions', 'allocationInstructions', 'allocations']) {
      expect(reference).toContain(`| \`${field}\` |`);
    }
    // every field has a description
    const rows = reference.split('\n').filter((l) => l.startsWith('| `'));
    expect(rows.filter((r) => r.trimEnd().endsWith('|  |'))).toEqual([]);
  });
});
