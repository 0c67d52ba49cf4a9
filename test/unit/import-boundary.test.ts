/**
 * The one direction DESIGN.md requires: the production path (`serve`, the registry, the ledger
 * client, the contract index, the caches, the proxy) never imports the emulator, not even a type.
 * Anything both sides need lives in `src/canton/` (Canton wire facts: clock, JsCantonError, Daml
 * value codecs) or `src/http/`.
 *
 * The graph is walked with TypeScript's own import scanner (`ts.preProcessFile`: static imports,
 * re-exports, `import type` and dynamic `import()`), from each production entry point.
 *
 * Second rule: no import cycles anywhere in src/. Type-only imports count too: they vanish at run
 * time, but a type import is still a dependency a reader has to follow, and the circles worth
 * removing (a service taking its whole owner back by type) are made of them.
 *
 * Third, no arrows running back up: the plumbing that assembles (`config/`, `http/`) knows no
 * domain code (an emulated service owns its config schema in its `options.ts`, the demo world in
 * `seed-options.ts`, and a domain module its metrics in a `metrics.ts` beside it), and Daml-LF archive reading (`emulator/dar/`) sits below the
 * Daml-LF engine (`emulator/daml-lf/`), with the protobuf reading both use in `emulator/shared/`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

// testcontainers/: a client of the image, which has the emulator inside; it never loads it itself.
const PRODUCTION_ENTRIES = ['serve.ts', 'check-config.ts', 'registry/index.ts', 'ledger-client/client.ts', 'contracts/contract-index.ts', 'cache/index.ts', 'proxy/forward.ts', 'testcontainers/index.ts'];

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

/** Every .ts file under `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The import graph of all of src/: each file with the project files it imports (type-only included). */
function wholeGraph(): Map<string, string[]> {
  return new Map(
    sourceFiles(SRC).map((file) => {
      const targets = ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map(({ fileName }) => resolveSpecifier(file, fileName));
      return [file, [...new Set(targets.filter((target): target is string => target !== undefined))]];
    }),
  );
}

/** The strongly-connected components with more than one file (or a file importing itself): Tarjan's algorithm. */
function importCycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(component.map((f) => relative(SRC, f)).sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles.sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!));
}

describe('no import cycles in src/', () => {
  it('every strongly-connected component of the import graph is a single file', () => {
    const cycles = importCycles(wholeGraph());
    if (cycles.length > 0) console.log(`import cycles in src/ (${cycles.length}, largest ${cycles[0]!.length} files):\n${cycles.map((c) => `  ${c.join(' <-> ')}`).join('\n')}`);
    expect(cycles.map((c) => c.join(' <-> ')), 'import cycles (each line one strongly-connected component)').toEqual([]);
  });

  it('the cycle finder finds a cycle when there is one, so the check above can fail', () => {
    const graph = new Map([
      ['/a.ts', ['/b.ts']],
      ['/b.ts', ['/c.ts']],
      ['/c.ts', ['/a.ts', '/d.ts']],
      ['/d.ts', []],
    ]);
    expect(importCycles(graph).map((c) => c.length)).toEqual([3]);
  });
});

/** Each edge `from -> to` of the whole graph where `from` matches `source` and `to` matches `target`. */
function edges(source: (file: string) => boolean, target: (file: string) => boolean): string[] {
  return [...wholeGraph()].flatMap(([file, targets]) => {
    const from = relative(SRC, file);
    return source(from) ? targets.map((t) => relative(SRC, t)).filter(target).map((to) => `${from} -> ${to}`) : [];
  });
}

/** An emulated service's options (`<service>/options.ts`) or the demo world's (`seed-options.ts`): zod only. */
const isOptionsModule = (file: string) => file.startsWith('emulator/') && (file.endsWith('/options.ts') || file.endsWith('-options.ts'));

describe('no arrows up', () => {
  it('config/ assembles the options schemas of the emulator and loads none of its behaviour', () => {
    // emulator/shared/ holds leaves with no behaviour (stable ids), below everything.
    const found = edges((f) => f.startsWith('config/'), (f) => f.startsWith('emulator/') && !isOptionsModule(f) && !f.startsWith('emulator/shared/'));
    expect(found).toEqual([]);
    // The options modules are leaves of the emulator: zod, the user-id rule and the ledger's
    // record types, no engine, no templates.
    const leaves = ['emulator/participant/object-meta.ts', 'emulator/participant/types.ts'];
    const optionsDeps = edges(isOptionsModule, (f) => f.startsWith('emulator/') && !leaves.includes(f));
    expect(optionsDeps).toEqual([]);
    // The rule above has something to hold (test/unit/service-layout.test.ts checks every service has one).
    expect(sourceFiles(join(SRC, 'emulator')).filter((f) => isOptionsModule(relative(SRC, f))).length).toBeGreaterThan(5);
  });

  it('http/ is plumbing: it imports no domain module (ledger client, cache, contract index, registry, emulator)', () => {
    const domain = ['ledger-client/', 'cache/', 'contracts/', 'registry/', 'emulator/'];
    expect(edges((f) => f.startsWith('http/'), (f) => domain.some((d) => f.startsWith(d)))).toEqual([]);
  });

  it('the DAR reader (emulator/dar/) does not import the Daml-LF engine (emulator/daml-lf/)', () => {
    expect(edges((f) => f.startsWith('emulator/dar/'), (f) => f.startsWith('emulator/daml-lf/'))).toEqual([]);
  });
});
