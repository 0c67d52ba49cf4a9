/** What every benchmark returns, how `npm run bench` prints and records it (.bench-out/<name>.json), and reading a benchmark server's start line. */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** One measured figure against its target. */
export interface Result {
  name: string;
  value: number;
  unit: string;
  target: string;
  pass: boolean;
  detail?: Record<string, unknown>;
}

export function report(results: Result[], name: string): void {
  const rows = results.map((r) => `${r.pass ? 'PASS' : 'FAIL'}  ${r.name}: ${r.value} ${r.unit} (target ${r.target})${r.detail ? `  ${JSON.stringify(r.detail)}` : ''}`);
  console.log(rows.join('\n'));
  mkdirSync(join(root, '.bench-out'), { recursive: true });
  writeFileSync(join(root, '.bench-out', `${name}.json`), JSON.stringify({ at: new Date().toISOString(), node: process.version, results }, null, 2));
}

/**
 * The first line a benchmark server prints on stdout, parsed as JSON (the servers print their
 * URL and fixtures as one line once they listen); rejects when the server exits first or takes
 * longer than 60 s.
 */
export function firstJsonLine<T>(child: ChildProcess): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('the benchmark server did not start within 60 s')), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(JSON.parse(out.slice(0, nl)) as T);
      }
    });
    child.once('exit', (code) => reject(new Error(`benchmark server exited with ${code}`)));
  });
}
