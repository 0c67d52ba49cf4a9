/**
 * The relative links of README.md and docs/*.md lead somewhere: the file exists and, for a
 * `#fragment`, a heading of that file has that anchor (GitHub's: lower case, punctuation dropped,
 * spaces as dashes). And the architecture page names every folder of src/ (every level), so a
 * renamed or added folder is documented.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
/** Pages other branches write; a link to them is checked once they are here. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(file: string): Set<string> {
  const text = readFileSync(join(ROOT, file), 'utf8').replace(/^```[\s\S]*?^```$/gm, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!)));
}

describe('links in the docs', () => {
  it('computes anchors as GitHub does', () => {
    expect(anchorOf('`serve`: the registry configuration file')).toBe('serve-the-registry-configuration-file');
    expect(anchorOf("Keeping the world (`STATE_DIR`)")).toBe('keeping-the-world-state_dir');
    expect(anchorOf("This repository's tests")).toBe('this-repositorys-tests');
  });

  it('every relative link names a file that exists, and a heading of it', () => {
    const broken: string[] = [];
    for (const file of DOCS) {
      const text = readFileSync(join(ROOT, file), 'utf8').replace(/^```[\s\S]*?^```$/gm, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = m[1]!;
        if (/^[a-z]+:/.test(link)) continue;
        const [path, fragment] = link.split('#');
        const target = path === '' ? file : relative(ROOT, normalize(join(dirname(join(ROOT, file)), path!)));
        if (!existsSync(join(ROOT, target))) {
          broken.push(`${file}: ${link} (no such file)`);
          continue;
        }
        if (fragment !== undefined && !anchors(target).has(fragment)) broken.push(`${file}: ${link} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('docs/architecture.md names every folder of src/ (every level)', () => {
    const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const foldersUnder = (dir: string): string[] =>
      readdirSync(join(ROOT, dir), { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .flatMap((e) => [`${dir}/${e.name}`, ...foldersUnder(`${dir}/${e.name}`)]);
    const folders = foldersUnder('src');
    expect(folders.length).toBeGreaterThan(15);
    expect(folders.filter((f) => !doc.includes(`\`${f}\``))).toEqual([]);
  });
});
