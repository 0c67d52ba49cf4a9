/**
 * The one direction DESIGN.md requires: the production path (`serve`, the registry, the ledger
 * client, the contract index, the caches, the proxy) never imports the emulator, not even a type.
 * Anything both sides need lives in `src/canton/` (Canton wire facts: clock, JsCantonError, Daml
 * value codecs) or `src/http/`.
 *
 * The graph is walked with TypeScript's own import scanner (`ts.preProcessFile`: static imports,
 * re-exports, `import type` and dynamic `import()`), from each production entry point.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

// testcontainers/: a client of the image, which has the emulator inside; it never loads it itself.
const PRODUCTION_ENTRIES = ['serve.ts', 'check-config.ts', 'registry/index.ts', 'ledger/client.ts', 'contracts/contract-index.ts', 'cache/index.ts', 'proxy/index.ts', 'testcontainers/index.ts'];

/** The project file a relative specifier names (`./x.js` is `./x.ts`, a folder is its index.ts). */
function resolveSpecifier(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec);
  for (const candidate of [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** Every project file reachable from `entry`, each with the chain of imports that reaches it. */
function importGraph(entry: string): Map<string, string[]> {
  const start = join(SRC, entry);
  const reached = new Map<string, string[]>([[start, [start]]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      const target = resolveSpecifier(file, fileName);
      if (target && !reached.has(target)) {
        reached.set(target, [...reached.get(file)!, target]);
        queue.push(target);
      }
    }
  }
  return reached;
}

const isEmulator = (file: string) => relative(SRC, file).startsWith('emulator/');

describe('import boundary: the production path never imports src/emulator', () => {
  it.each(PRODUCTION_ENTRIES)('%s', (entry) => {
    const graph = importGraph(entry);
    expect(graph.size).toBeGreaterThan(1);
    const leaks = [...graph].filter(([file]) => isEmulator(file)).map(([, chain]) => chain.map((f) => relative(SRC, f)).join(' -> '));
    expect(leaks).toEqual([]);
  });

  it('the walker does find the emulator where it is meant to be (stack.ts), so the checks above can fail', () => {
    expect([...importGraph('stack.ts').keys()].some(isEmulator)).toBe(true);
  });
});
