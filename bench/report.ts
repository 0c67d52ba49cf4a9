/** What every benchmark returns, and how `npm run bench` prints and records it (.bench-out/<name>.json). */
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
