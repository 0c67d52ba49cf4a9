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
 * Third, no cycle between rooms either: a room is a folder of src/ (`registry`, `config`, ...) or
 * of src/emulator/ (`emulator/participant`, ...) with its subfolders, and the files directly in
 * src/ and in src/emulator/ are a room each. File-level acyclicity alone lets two folders lean on
 * each other through different files; the room graph is what a reader sees in the layout, and
 * docs/architecture.md states its order.
 *
 * Fourth, no arrows running back up: the plumbing that assembles (`config/`, `http/`) knows no
 * domain code (an emulated service owns its config schema in its `options.ts`, the demo world in
 * `world/options.ts`, and a domain module its metrics in a `metrics.ts` beside it), and Daml-LF
 * archive reading (`emulator/dar/`) sits below the Daml-LF engine (`emulator/daml-lf/`), with the
 * protobuf reading both use in `emulator/shared/`.
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

/** The strongly-connected components with more than one node (or a node importing itself), each named by `label`: Tarjan's algorithm. */
function importCycles(graph: Map<string, string[]>, label: (node: string) => string = (file) => relative(SRC, file)): string[][] {
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
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(component.map(label).sort());
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

/**
 * The room of a file (its path relative to src/): the top folder, or for the emulator its folder
 * below src/emulator/; `.` for the files directly in src/, `emulator` for those directly in src/emulator/.
 */
function roomOf(file: string): string {
  const parts = file.split('/');
  if (parts.length === 1) return '.';
  if (parts[0] !== 'emulator') return parts[0]!;
  return parts.length === 2 ? 'emulator' : `emulator/${parts[1]}`;
}

/** The graph of rooms: each room with the other rooms its files import, and one file edge that shows why. */
function roomGraph(graph: Map<string, string[]>): { rooms: Map<string, string[]>; why: Map<string, string> } {
  const rooms = new Map<string, Set<string>>();
  const why = new Map<string, string>();
  for (const [file, targets] of graph) {
    const from = roomOf(relative(SRC, file));
    if (!rooms.has(from)) rooms.set(from, new Set());
    for (const target of targets) {
      const to = roomOf(relative(SRC, target));
      if (to === from) continue;
      rooms.get(from)!.add(to);
      if (!why.has(`${from} -> ${to}`)) why.set(`${from} -> ${to}`, `${relative(SRC, file)} -> ${relative(SRC, target)}`);
    }
  }
  return { rooms: new Map([...rooms].map(([room, targets]) => [room, [...targets].sort()])), why };
}

/**
 * The rooms from the bottom up, as docs/architecture.md ("Which way the arrows point") states
 * them: a room imports only rooms before it in this list. A new folder of src/ or src/emulator/
 * takes its place here.
 */
const ROOM_ORDER = [
  // the kernel both sides share
  'canton', 'http',
  // the production path
  'ledger-client', 'cache', 'contracts', 'registry',
  // the emulator: what the engine is built from, the engine, what runs on it, the services
  'emulator/shared', 'emulator/dar', 'emulator/lf-value', 'emulator/daml-lf', 'emulator/participant',
  'emulator/templates', 'emulator/daml-lf-bridge', 'emulator/ledger-api', 'emulator/scan', 'emulator/world',
  'emulator/example-registry', 'emulator/validator', 'emulator/admin', 'emulator/explorer',
  // the configuration, assembled from the options the modules declare
  'config',
  // the entry points: proxy mode, the testcontainers module, the emulator's package entry, src/*.ts
  'proxy', 'testcontainers', 'emulator', '.',
];

describe('no cycle between rooms (folders of src/ and of src/emulator/)', () => {
  it('the rooms import each other in one direction', () => {
    const { rooms, why } = roomGraph(wholeGraph());
    const cycles = importCycles(rooms, (room) => room);
    const explained = cycles.map((c) => `${c.join(' <-> ')}\n${c.flatMap((a) => (rooms.get(a) ?? []).filter((b) => c.includes(b)).map((b) => `    ${a} -> ${b} (${why.get(`${a} -> ${b}`)})`)).join('\n')}`);
    expect(explained, 'room cycles (each a strongly-connected component, with one import per edge)').toEqual([]);
  });

  it('every import points down the rooms\' order that docs/architecture.md states', () => {
    const { rooms, why } = roomGraph(wholeGraph());
    expect([...rooms.keys()].filter((r) => !ROOM_ORDER.includes(r)), 'rooms missing from ROOM_ORDER').toEqual([]);
    expect(ROOM_ORDER.filter((r) => !rooms.has(r)), 'ROOM_ORDER names a room src/ does not have').toEqual([]);
    const upward = [...rooms].flatMap(([from, targets]) => targets.filter((to) => ROOM_ORDER.indexOf(to) > ROOM_ORDER.indexOf(from)).map((to) => `${from} -> ${to} (${why.get(`${from} -> ${to}`)})`));
    expect(upward, 'imports of a room later in ROOM_ORDER').toEqual([]);
  });

  it('the room check finds a cycle that no single file closes, so the check above can fail', () => {
    // registry/a.ts -> config/b.ts and config/c.ts -> registry/d.ts: no file cycle, one room cycle.
    const at = (f: string) => join(SRC, f);
    const files = new Map([
      [at('registry/a.ts'), [at('config/b.ts')]],
      [at('config/b.ts'), []],
      [at('config/c.ts'), [at('registry/recipes/d.ts')]],
      [at('registry/recipes/d.ts'), []],
      [at('emulator/index.ts'), [at('emulator/participant/e.ts')]],
      [at('emulator/participant/e.ts'), [at('emulator/participant/dar/f.ts')]],
      [at('emulator/participant/dar/f.ts'), []],
    ]);
    expect(importCycles(files)).toEqual([]);
    expect(importCycles(roomGraph(files).rooms, (room) => room)).toEqual([['config', 'registry']]);
    expect([roomOf('main.ts'), roomOf('emulator/index.ts'), roomOf('emulator/dar/lf2.ts'), roomOf('registry/recipes/amulet.ts')]).toEqual(['.', 'emulator', 'emulator/dar', 'registry']);
  });
});

/** Each edge `from -> to` of the whole graph where `from` matches `source` and `to` matches `target`. */
function edges(source: (file: string) => boolean, target: (file: string) => boolean): string[] {
  return [...wholeGraph()].flatMap(([file, targets]) => {
    const from = relative(SRC, file);
    return source(from) ? targets.map((t) => relative(SRC, t)).filter(target).map((to) => `${from} -> ${to}`) : [];
  });
}

/** An emulated service's options (`<service>/options.ts`) or the demo world's (`world/options.ts`): zod only. */
const isOptionsModule = (file: string) => file.startsWith('emulator/') && file.endsWith('/options.ts');

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

  it('the declarative recipes\' schema (what config/ takes) loads none of their interpreter or validation', () => {
    const schema = 'registry/recipes/declarative/schema/';
    expect(edges((f) => f.startsWith(schema), (f) => !f.startsWith(schema) && !f.startsWith('canton/'))).toEqual([]);
    expect(edges((f) => f.startsWith('config/'), (f) => f.startsWith('registry/recipes/declarative/') && !f.startsWith(schema))).toEqual([]);
  });

  it('http/ is plumbing: it imports no domain module (ledger client, cache, contract index, registry, emulator)', () => {
    const domain = ['ledger-client/', 'cache/', 'contracts/', 'registry/', 'emulator/'];
    expect(edges((f) => f.startsWith('http/'), (f) => domain.some((d) => f.startsWith(d)))).toEqual([]);
  });

  it('the DAR reader (emulator/dar/) does not import the Daml-LF engine (emulator/daml-lf/)', () => {
    expect(edges((f) => f.startsWith('emulator/dar/'), (f) => f.startsWith('emulator/daml-lf/'))).toEqual([]);
  });
});
