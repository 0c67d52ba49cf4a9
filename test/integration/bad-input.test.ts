/**
 * Bad input, generated from the official OpenAPI files, against every API of the emulated stack
 * over real sockets (ledger /v2, registry, scan, validator with wallet and scan-proxy): thousands
 * of requests with malformed JSON, deep nesting, wrong types, huge numbers and strings, prototype-
 * pollution keys, junk path and query parameters, methods, paths and headers, and bodies over the
 * limits. Every answer is below 500 and in the API's own error shape, and nothing changes: the
 * ACS, the ledger end, parties, users and packages are the same afterwards, and Object.prototype
 * is untouched.
 */
import { Agent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { startStack, type RunningStack } from '../../src/stack.js';
import { startRegistry, type RunningRegistry } from '../../src/serve.js';
import { RegistryConfigSchema } from '../../src/config/registry.js';
import { badRequestsFor, junkPaths, pool, send, type Answer, type BadRequest } from '../support/bad-input.js';
import { SPECS, specPath } from '../support/openapi-conformance.js';

let stack: RunningStack;
let served: RunningRegistry;
const agent = new Agent({ keepAlive: true, maxSockets: 8 });

beforeAll(async () => {
  stack = await startStack({ config: { port: 0, host: '127.0.0.1', logLevel: 'silent' }, registryPort: 0, scanPort: 0, validatorPort: 0 });
  // `serve` too, reading the emulated ledger over HTTP (rate limit off: this is one client)
  const admin = stack.seeded!.parties.find((p) => p.hint === 'token-admin')!.party;
  const config = RegistryConfigSchema.parse({
    adminParty: admin,
    ledger: { url: stack.ledgerUrl },
    instruments: [{ id: 'TT2-USD', name: 'TT2', symbol: 'TUSD', decimals: 2, recipe: 'splice-test-token-v2' }],
    port: 0,
    host: '127.0.0.1',
    logLevel: 'silent',
    limits: { rateLimit: { requestsPerSecond: 0 } },
  });
  served = await startRegistry(config, { logger: pino({ level: 'silent' }) });
});
afterAll(async () => {
  agent.destroy();
  await served?.close();
  await stack?.close();
});

function snapshot() {
  const e = stack.engine;
  const end = e.ledgerEnd();
  return {
    end,
    acs: e.contracts
      .activeAt(end, end)
      .map((c) => c.contractId)
      .sort(),
    parties: e.parties
      .all()
      .map((p) => JSON.stringify(p))
      .sort(),
    users: e.users.list({ pageSize: 10_000 }).users.map((u) => JSON.stringify([u, e.users.rights(u.id)])),
    packages: e.packages.list().length,
  };
}

/** JsCantonError as the ledger spec requires it, every field written (canton/errors.ts). */
function isJsCantonError(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const e = v as Record<string, unknown>;
  return typeof e.code === 'string' && typeof e.cause === 'string' && typeof e.context === 'object' && typeof e.errorCategory === 'number' && 'retryInfo' in e && 'correlationId' in e;
}

function parse(a: Answer): unknown {
  try {
    return JSON.parse(a.body);
  } catch {
    return undefined;
  }
}

/** Why an answer is wrong, or undefined. */
type Check = (r: BadRequest, a: Answer) => string | undefined;

const ledgerShape: Check = (_r, a) => {
  if (a.status < 400) return undefined;
  if (a.contentType.startsWith('application/json')) return isJsCantonError(parse(a)) ? undefined : 'a JSON error that is not a JsCantonError';
  // tapir's decode failures (400), unknown paths (404), method mismatch (405), pekko's 413
  if (a.contentType.startsWith('text/plain') && [400, 404, 405, 413].includes(a.status) && a.body.length > 0) return undefined;
  return `not a ledger error shape (${a.contentType})`;
};

/**
 * `{"error": "..."}`; the validator answers as pekko-http's default rejection handler does for
 * missing or invalid credentials (401 text), as the real validator does.
 */
const errorShape =
  (pekkoRejections: boolean): Check =>
  (_r, a) => {
    if (a.status < 400) return undefined;
    const body = parse(a) as { error?: unknown } | undefined;
    if (a.contentType.startsWith('application/json') && typeof body?.error === 'string' && Object.keys(body).length === 1) return undefined;
    if (pekkoRejections && a.status === 401 && /^The (resource requires authentication|supplied authentication is invalid)/.test(a.body)) return undefined;
    return `not {"error": string} (${a.contentType}: ${a.body.slice(0, 80)})`;
  };

async function run(base: string, requests: BadRequest[], check: Check): Promise<{ total: number; failures: string[] }> {
  const answers = await pool(requests, 8, (r) => send(agent, base, r));
  const failures: string[] = [];
  answers.forEach((a, i) => {
    const r = requests[i]!;
    const why = a.status >= 500 ? `status ${a.status}: ${a.body.slice(0, 200)}` : check(r, a);
    if (why) failures.push(`${r.method} ${r.path.slice(0, 120)} [${r.kind}] -> ${a.status}: ${why}`);
  });
  return { total: requests.length, failures };
}

// Thousands of requests per API over real sockets: bounded in count, not in time, so a busy
// machine gets more than the default 30 s per API.
describe('bad input to every API: no 5xx, the API error shape, no state change', { timeout: 120_000 }, () => {
  const counts: Record<string, number> = {};

  it('ledger JSON API v2', async () => {
    const before = snapshot();
    const requests = [
      ...badRequestsFor({ file: specPath(SPECS.ledgerApi35), basePath: '' }),
      // Canton 3.6's additions, generated from the 3.6 snapshot spec
      ...badRequestsFor({ file: specPath(SPECS.ledgerApi36Snapshot), basePath: '' }).filter((r) =>
        ['/v2/updates/update-by-hash', '/v2/commands/completion-by-hash', '/v2/jose/'].some((p) => r.path.startsWith(p)),
      ),
      ...junkPaths(''),
      ...junkPaths('/v2'),
      { method: 'POST', path: '/v2/parties', headers: { 'content-type': 'application/json' }, body: Buffer.alloc(8 * 1024 * 1024 + 1, 0x20), kind: 'body over the limit' },
      { method: 'POST', path: '/v2/dars', headers: {}, body: Buffer.alloc(1024 * 1024, 0x41), kind: 'junk DAR' },
    ];
    const { total, failures } = await run(stack.ledgerUrl, requests, ledgerShape);
    counts.ledger = total;
    expect(failures.slice(0, 30)).toEqual([]);
    expect(snapshot()).toEqual(before);
  });

  it('registry', async () => {
    const before = snapshot();
    const files = [SPECS.tokenMetadataV1, SPECS.transferInstructionV1, SPECS.transferInstructionV2, SPECS.allocationInstructionV1, SPECS.allocationInstructionV2, SPECS.allocationV1, SPECS.allocationV2];
    const requests = [
      ...files.flatMap((f) => badRequestsFor({ file: specPath(f), basePath: '' })),
      ...junkPaths('/registry'),
      { method: 'POST', path: '/registry/transfer-instruction/v1/transfer-factory', headers: { 'content-type': 'application/json' }, body: Buffer.alloc(64 * 1024 + 1, 0x20), kind: 'body over the limit' },
    ];
    const { total, failures } = await run(stack.registryUrl!, requests, errorShape(false));
    counts.registry = total;
    expect(failures.slice(0, 30)).toEqual([]);
    expect(snapshot()).toEqual(before);
  });

  it('registry under serve', async () => {
    const before = snapshot();
    const files = [SPECS.tokenMetadataV1, SPECS.transferInstructionV1, SPECS.transferInstructionV2, SPECS.allocationInstructionV1, SPECS.allocationInstructionV2, SPECS.allocationV1, SPECS.allocationV2];
    const requests = [...files.flatMap((f) => badRequestsFor({ file: specPath(f), basePath: '' })), ...junkPaths('/registry'), ...junkPaths('')];
    const { total, failures } = await run(served.url, requests, errorShape(false));
    counts.serve = total;
    expect(failures.slice(0, 30)).toEqual([]);
    expect(snapshot()).toEqual(before);
  });

  it('scan (and the Amulet registry on its host)', async () => {
    const before = snapshot();
    const requests = [
      ...badRequestsFor({ file: specPath(SPECS.scan), basePath: '/api/scan' }),
      ...badRequestsFor({ file: specPath(SPECS.transferInstructionV1), basePath: '' }),
      ...junkPaths('/api/scan'),
      { method: 'POST', path: '/api/scan/v0/amulet-rules', headers: { 'content-type': 'application/json' }, body: Buffer.alloc(8 * 1024 * 1024 + 1, 0x20), kind: 'body over the limit' },
    ];
    const { total, failures } = await run(stack.scanUrl!, requests, errorShape(false));
    counts.scan = total;
    expect(failures.slice(0, 30)).toEqual([]);
    expect(snapshot()).toEqual(before);
  });

  it('validator (wallet, scan-proxy, ANS)', async () => {
    const before = snapshot();
    const files = [SPECS.validatorInternal, SPECS.walletInternal, SPECS.walletExternal, SPECS.scanProxy, SPECS.ansExternal];
    const requests = [
      ...files.flatMap((f) => badRequestsFor({ file: specPath(f), basePath: '/api/validator' })),
      ...junkPaths('/api/validator'),
      { method: 'POST', path: '/api/validator/v0/register', headers: { 'content-type': 'application/json' }, body: Buffer.alloc(8 * 1024 * 1024 + 1, 0x20), kind: 'body over the limit' },
    ];
    const { total, failures } = await run(stack.validatorUrl!, requests, errorShape(true));
    counts.validator = total;
    expect(failures.slice(0, 30)).toEqual([]);
    expect(snapshot()).toEqual(before);
  });

  it('ran thousands of cases, and nothing polluted Object.prototype', () => {
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBeGreaterThan(3000);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    console.log(`bad-input cases: ${JSON.stringify(counts)}`);
  });
});
