/**
 * A generator of bad requests from an OpenAPI file: for every operation, junk path parameters,
 * malformed and deeply nested JSON, wrong types for the body's properties (with huge numbers,
 * huge strings, control characters, lone surrogates and prototype-pollution keys among them), junk
 * query parameters, methods the path does not have; plus junk paths and headers per API. Bodies
 * are built so that none of them is a valid request: every property of the body schema is given
 * a value of the wrong type, so "no state change" must hold for all of them.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest, Agent } from 'node:http';
import { parse as parseYaml } from 'yaml';

export interface BadRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** What the case exercises (for failure messages). */
  kind: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const PARAM_VALUES = ['x', '%ZZ', 'a'.repeat(3000), '..%2F..%2Fetc%2Fpasswd', `00${'ab'.repeat(68)}`, '-1', '%F0%9F%92%A9', '%00'];
const QUERY_VALUES = ['-1', 'abc', '1e999', '', 'x'.repeat(3000), '9223372036854775808', '%ZZ'];
const MALFORMED = ['{', '{"a":', '[', 'nul', '{"a":1}}', '\u0000', '{"a":"\\ud800', '1e99999', "{'a':1}", '{"a":1,}', '\ufeff{}x', '{"a" 1}'];
const DEEP = ['['.repeat(5000) + ']'.repeat(5000), '{"a":'.repeat(5000) + '1' + '}'.repeat(5000), '[' + '{"a":['.repeat(2000) + ']}'.repeat(2000) + ']'];
const WRONG_TOP = ['1', '"s"', 'true', 'null', '[]', '[{}]', '-1e400'];
/** Raw JSON values put in one property while the others are wrong. */
const RAW_VALUES = [
  '1e400',
  '-0',
  '123456789012345678901234567890',
  '9223372036854775808',
  JSON.stringify('x'.repeat(20_000)),
  '"\\u0000\\u0001"',
  '"\\ud800"',
  '[[[[[[]]]]]]',
  '{"__proto__":{"polluted":1}}',
  'null',
];
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'FOO'];

export interface SpecSource {
  file: string;
  /** Prefix the spec's paths are served under (e.g. `/api/scan`). */
  basePath: string;
}

interface Op {
  method: string;
  path: string;
  params: Obj[];
  bodySchema?: Obj;
}

function loadOps(src: SpecSource): { ops: Op[]; resolve: (s: unknown) => Obj | undefined } {
  const doc = parseYaml(readFileSync(src.file, 'utf8')) as Obj;
  const resolve = (s: unknown): Obj | undefined => {
    let cur = s;
    for (let i = 0; i < 5 && isObj(cur) && typeof cur.$ref === 'string'; i++) {
      const ref = cur.$ref as string;
      if (!ref.startsWith('#/')) return undefined; // cross-file refs: the property list is unknown
      cur = ref
        .slice(2)
        .split('/')
        .reduce<unknown>((o, k) => (isObj(o) ? o[k] : undefined), doc);
    }
    return isObj(cur) ? cur : undefined;
  };
  const ops: Op[] = [];
  for (const [path, item] of Object.entries((doc.paths as Obj) ?? {})) {
    if (!isObj(item)) continue;
    const common = Array.isArray(item.parameters) ? (item.parameters as Obj[]) : [];
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'delete', 'patch'].includes(method) || !isObj(op)) continue;
      const params = [...common, ...(Array.isArray(op.parameters) ? (op.parameters as Obj[]) : [])].map((p) => resolve(p) ?? p);
      const content = isObj(op.requestBody) ? (resolve(op.requestBody)?.content as Obj | undefined) : undefined;
      const json = content && isObj(content['application/json']) ? (content['application/json'] as Obj) : undefined;
      ops.push({ method: method.toUpperCase(), path: src.basePath + path, params, bodySchema: json ? resolve(json.schema) : undefined });
    }
  }
  return { ops, resolve };
}

function wrongFor(schema: Obj | undefined): string {
  switch (schema?.type) {
    case 'string':
      return '12345';
    case 'integer':
    case 'number':
      return '"not-a-number"';
    case 'boolean':
      return '"yes"';
    case 'array':
      return '{"not":"an array"}';
    default:
      return '"not an object"';
  }
}

function bodyCases(op: Op, resolve: (s: unknown) => Obj | undefined): Array<{ body: string; kind: string }> {
  const out: Array<{ body: string; kind: string }> = [];
  for (const b of MALFORMED) out.push({ body: b, kind: 'malformed JSON' });
  for (const b of DEEP) out.push({ body: b, kind: 'deep nesting' });
  for (const b of WRONG_TOP) out.push({ body: b, kind: 'wrong top-level type' });
  const schema = op.bodySchema;
  const props = schema && isObj(schema.properties) ? Object.entries(schema.properties as Obj).map(([k, v]) => [k, resolve(v) ?? (v as Obj)] as const) : [];
  if (props.length === 0) return out;
  const wrong = props.map(([k, s]) => [k, wrongFor(s)] as const);
  const render = (pairs: ReadonlyArray<readonly [string, string]>) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
  out.push({ body: render(wrong), kind: 'every property of the wrong type' });
  out.push({ body: render([['__proto__', '{"polluted":1,"admin":true}'], ['constructor', '{"prototype":{"polluted":1}}'], ...wrong]), kind: 'prototype pollution' });
  for (const [k] of props.slice(0, 12)) {
    for (const raw of RAW_VALUES) out.push({ body: render(wrong.map(([n, v]) => [n, n === k ? raw : v] as const)), kind: `property ${k} = ${raw.slice(0, 20)}` });
  }
  return out;
}

function concrete(path: string, value: string): string {
  return path.replace(/\{[^}]+\}/g, value);
}

/** Every bad request for one spec. */
export function badRequestsFor(src: SpecSource): BadRequest[] {
  const { ops, resolve } = loadOps(src);
  const out: BadRequest[] = [];
  const json = { 'content-type': 'application/json' };
  const paths = new Set<string>();
  for (const op of ops) {
    const hasParams = /\{/.test(op.path);
    for (const v of hasParams ? PARAM_VALUES : ['']) {
      const path = concrete(op.path, v);
      paths.add(concrete(op.path, 'x'));
      if (op.method === 'GET' || op.method === 'DELETE') {
        out.push({ method: op.method, path, headers: {}, kind: 'junk path parameter' });
      } else if (v !== 'x' && hasParams) {
        out.push({ method: op.method, path, headers: json, body: '{}', kind: 'junk path parameter' });
      }
    }
    const base = concrete(op.path, 'x');
    for (const p of op.params.filter((q) => q.in === 'query')) {
      for (const v of QUERY_VALUES) out.push({ method: op.method, path: `${base}?${String(p.name)}=${encodeURIComponent(v)}`, headers: {}, ...(op.method === 'GET' ? {} : { body: '1' }), kind: `junk query ${String(p.name)}` });
    }
    if (op.method !== 'GET' && op.method !== 'DELETE') {
      for (const c of bodyCases(op, resolve)) out.push({ method: op.method, path: base, headers: json, body: c.body, kind: c.kind });
      // the wallet SDK posts without a Content-Type, some clients with the wrong one
      out.push({ method: op.method, path: base, headers: {}, body: '{', kind: 'no content type' });
      out.push({ method: op.method, path: base, headers: { 'content-type': 'text/xml' }, body: '<a/>', kind: 'xml body' });
      out.push({ method: op.method, path: base, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: '[', kind: 'false content-encoding' });
    }
  }
  for (const path of paths) {
    for (const m of METHODS) out.push({ method: m, path, headers: m === 'GET' ? {} : json, ...(m === 'GET' ? {} : { body: '[' }), kind: `method ${m}` });
    out.push({ method: 'GET', path, headers: { authorization: 'Bearer not.a.jwt', traceparent: '00-zz-zz-01' }, kind: 'junk auth and traceparent' });
    out.push({ method: 'GET', path, headers: { authorization: `Bearer ${'x'.repeat(8000)}` }, kind: 'huge authorization' });
    out.push({ method: 'GET', path, headers: { authorization: 'Basic Og==', accept: 'application/xml' }, kind: 'basic auth' });
  }
  return out;
}

/** Junk paths under a prefix (path traversal, bad escapes, huge segments). */
export function junkPaths(prefix: string): BadRequest[] {
  const paths = ['/', '/%', '/%00', '/..', '/../../etc/passwd', '//x//y', `/${'a'.repeat(4000)}`, '/%2e%2e/%2e%2e', '/%FF%FE', `/?x=${'y'.repeat(5000)}`, '/x?%=%', '/x;jsessionid=1'];
  return paths.flatMap((p): BadRequest[] => [
    { method: 'GET', path: prefix + p, headers: {}, kind: 'junk path' },
    { method: 'POST', path: prefix + p, headers: { 'content-type': 'application/json' }, body: '{}', kind: 'junk path' },
  ]);
}

export interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/** Sends one request over a keep-alive agent; a server closing early after answering is fine. */
export function send(agent: Agent, base: string, r: BadRequest): Promise<Answer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest({ agent, host: url.hostname, port: url.port, method: r.method, path: r.path, headers: r.body === undefined ? r.headers : { ...r.headers, 'content-length': String(Buffer.byteLength(r.body)) } }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', (e) => (answered ? undefined : reject(new Error(`${r.method} ${r.path.slice(0, 100)} (${r.kind}): ${e.message}`))));
    req.end(r.body);
  });
}

/** Runs `tasks` with at most `n` in flight. */
export async function pool<T, R>(items: T[], n: number, f: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await f(items[i]!);
      }
    }),
  );
  return out;
}
