/**
 * Request decoding with Canton's failure behaviour: a body that is not JSON, or whose shape does
 * not match the endpoint's type, is answered by tapir with `400 text/plain` and a circe message
 * (tapir's `DefaultDecodeFailureHandler`), before any Canton logic runs.
 */
import type { Context } from 'hono';
import type { z } from 'zod';
import { invalidBody, PlainTextBadRequest } from '../../canton/errors.js';
import { jsonDepthExceeds, showJson } from '../../http/body-limit.js';
import { MAX_JSON_DEPTH } from '../../http/limits.js';

/** Reads the request body as JSON (also without Content-Type: wallet-sdk's `LedgerClient` sends none). */
export async function readJsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') throw invalidBody('exhausted input');
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) throw invalidBody(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw invalidBody(circeParseMessage(text, e));
  }
}

/** Reads and decodes a JSON body against a zod schema, failing like tapir does. */
export async function decodeBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  return decodeValue(await readJsonBody(c), schema);
}

export function decodeValue<S extends z.ZodType>(value: unknown, schema: S): z.infer<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  throw invalidBody(circeIssueMessage(issue, value), jsonPath(issue.path));
}

/** Decodes a query parameter that must be an integer; tapir answers `Invalid value for: query parameter X`. */
export function queryInt(c: Context, name: string): number | undefined {
  const raw = c.req.query(name);
  if (raw === undefined) return undefined;
  if (!/^-?\d+$/.test(raw)) throw new PlainTextBadRequest(`Invalid value for: query parameter ${name}`);
  return Number(raw);
}

function jsonPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[seg];
  }
  return v;
}

function circeIssueMessage(issue: z.core.$ZodIssue, root: unknown): string {
  const got = valueAt(root, issue.path);
  if (issue.code === 'invalid_type') {
    if (got === undefined) return 'Missing required field';
    return `Got value '${showJson(got)}' with wrong type, expecting ${circeTypeName(issue.expected)}`;
  }
  if (issue.code === 'invalid_union' || issue.code === 'invalid_key') {
    return `Got value '${showJson(got)}' with wrong type, expecting ${issue.message}`;
  }
  if (issue.code === 'invalid_value') {
    return `Unrecognized enum value ${showJson(got)}. Supported values: [${issue.values.join(', ')}]`;
  }
  return issue.message;
}

function circeTypeName(expected: string): string {
  switch (expected) {
    case 'number':
    case 'int':
    case 'bigint':
      return 'number';
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'array':
      return 'json array';
    case 'object':
      return 'json object';
    default:
      return expected;
  }
}

function circeParseMessage(text: string, e: unknown): string {
  // circe/jawn: "expected json value got 'x' (line 1, column 1)"; we report the first bad char.
  const m = /position (\d+)/.exec(String((e as Error).message));
  const pos = m ? Number(m[1]) : 0;
  const before = text.slice(0, pos);
  const line = before.split('\n').length;
  const column = pos - before.lastIndexOf('\n');
  const ch = text.slice(pos, pos + 10).split(/\s/)[0] ?? '';
  return `expected json value got '${ch}' (line ${line}, column ${column})`;
}
