/**
 * A Markdown file with one generated part between two HTML comment markers (docs/recipes.md,
 * docs/configuration.md), and the `gen` / `check` command each generator script runs: `gen`
 * rewrites the part, `check` fails when the committed file differs from what would be written.
 */
import { readFileSync, writeFileSync } from 'node:fs';

export interface GeneratedDoc {
  /** Where the file is. */
  path: string;
  /** How messages name it, e.g. `docs/recipes.md`. */
  name: string;
  /** The npm script that regenerates it, e.g. `recipes:gen`. */
  genScript: string;
  begin: string;
  end: string;
}

/** `text` with its generated part replaced by `reference` (which carries the markers itself). */
export function withGenerated(doc: GeneratedDoc, text: string, reference: string): string {
  const a = text.indexOf(doc.begin);
  const b = text.indexOf(doc.end);
  if (a < 0 || b < a) throw new Error(`${doc.name} has no generated part (markers ${doc.begin} … ${doc.end})`);
  return text.slice(0, a) + reference + text.slice(b + doc.end.length);
}

/** `gen` writes the file; `check` exits 1 when it is stale. */
export function runGeneratedDocCommand(doc: GeneratedDoc, render: () => string, mode: string): void {
  const current = readFileSync(doc.path, 'utf8');
  const rendered = withGenerated(doc, current, render());
  if (mode === 'gen') {
    writeFileSync(doc.path, rendered);
    console.log(`wrote ${doc.path}`);
  } else if (current !== rendered) {
    console.error(`${doc.name} is stale: run \`npm run ${doc.genScript}\` and commit it`);
    process.exit(1);
  } else {
    console.log(`${doc.name} is current`);
  }
}

/** The parts of a JSON Schema (as `z.toJSONSchema` writes them) the generated references read. */
export type JsonSchema = {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  additionalProperties?: JsonSchema | boolean;
  propertyNames?: JsonSchema;
  minItems?: number;
};

export function isSchema(v: unknown): v is JsonSchema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
