/**
 * Conformance of Canton 3.6's additions to the emulated JSON Ledger API, validated with ajv against
 * Canton main's openapi.yaml (`../shared/specs/ledger-api/openapi-3.6-snapshot.yaml`) (same harness and relaxations
 * as ledger-api.test.ts): the look-ups by the external transaction hash of an interactive submission
 * (`POST /v2/updates/update-by-hash`, `POST /v2/commands/completion-by-hash`) and a party's signing
 * keys as a JWKS (`GET /v2/jose/jwks/synchronizer/{synchronizer}/party/{party}`; digital-asset/canton:
 * .../apiserver/services/ApiJoseService.scala, community/base/.../crypto/provider/jce/JceJwks.scala).
 *
 * The hash comes from a real interactive submission (prepare, sign, executeAndWait over the JSON
 * API) and finds its update and its completion; unknown, empty and malformed hashes and missing
 * rights answer as Canton does (digital-asset/canton: community/ledger/ledger-api-core/.../
 * ApiUpdateService.scala getUpdateByHash, ApiCommandCompletionService.scala getCompletionByHash,
 * .../error/groups/RequestValidationErrors.scala NotFound.Update / NotFound.Completion).
 */
import { createHash, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator, mintDevToken, type Authenticator } from '../../src/emulator/ledger-api/auth.js';
import { WILDCARD } from '../../src/emulator/participant/claims.js';
import { IOU, cmds, create, testLedger, type TestLedger } from '../support/ledger-fixtures.js';
import { executeBody, prepareBody, registerExternal, type ExternalKey } from '../support/interactive.js';
import { SPECS, createSpecValidator, expectConformant, type CoverageRequirement } from '../support/openapi-conformance.js';
import { jsonArray, jsonAt, jsonText } from '../support/ledger-wire.js';
import { BEYOND_35 } from '../support/ledger-api-3.6.js';
import { normalizeSigningKey } from '../../src/emulator/participant/topology/signing-keys.js';
import { GetJwksResponseSchema } from '../../src/ledger-client/schemas/jose.js';

const SECRET = 'conformance-36-secret';
const v = createSpecValidator(SPECS.ledgerApi36Snapshot);

let l: TestLedger;
let realAuth: Authenticator;
const tokens: Record<string, string> = {};
let alice: string;
let bob: string;
let carol: string;
let aliceKey: ExternalKey;
/** The executed interactive submission: its prepared-transaction hash (base64) and what executeAndWait answered. */
let submitted: { hash: string; updateId: string; offset: number };

/** POSTs `body` (GET when it is `GET`), checks the status and validates the answer against the 3.6 spec. */
async function check(path: string, status: number, body: unknown, o: { token?: string; raw?: string } = {}): Promise<unknown> {
  const get = body === GET;
  const headers: Record<string, string> = get ? {} : { 'content-type': 'application/json' };
  if (o.token !== undefined) headers.authorization = o.token.startsWith('Bearer') ? o.token : `Bearer ${tokens[o.token]}`;
  const res = await l.app.request(path, get ? { headers } : { method: 'POST', headers, body: o.raw ?? JSON.stringify(body) });
  const text = await res.clone().text();
  expect(res.status, `${path} -> ${res.status}: ${text.slice(0, 600)}`).toBe(status);
  return expectConformant(v, res, get ? 'GET' : 'POST', path);
}
const GET = Symbol('GET');

async function checkError(path: string, status: number, expected: string | RegExp, body: unknown, o: { token?: string; raw?: string } = {}): Promise<unknown> {
  const answer = await check(path, status, body, o);
  if (expected instanceof RegExp) expect(answer).toMatch(expected);
  else expect(jsonAt(answer, 'code'), JSON.stringify(answer)).toBe(expected);
  return answer;
}

const updateFormat = (...parties: string[]) => ({
  includeTransactions: {
    eventFormat: { filtersByParty: Object.fromEntries(parties.map((p) => [p, { cumulative: [] }])), verbose: true },
    transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
  },
});
const hexOf = (b64: string) => Buffer.from(b64, 'base64').toString('hex');

beforeAll(async () => {
  l = testLedger({ authenticate: async (h) => (h === undefined ? WILDCARD : realAuth(h)) });
  realAuth = createAuthenticator({ mode: 'jwt', hs256Secret: SECRET }, { engine: l.engine });
  alice = l.party('alice');
  bob = l.party('bob');
  carol = l.party('carol');
  l.engine.users.create({ id: 'alice-user', primaryParty: alice }, [{ kind: 'CanActAs', party: alice }]);
  l.engine.users.create({ id: 'carol-user', primaryParty: carol }, [{ kind: 'CanReadAs', party: carol }]);
  l.engine.users.create({ id: 'nobody' }, []);
  const nowSeconds = Number(l.engine.clock.nowMicros() / 1_000_000n);
  for (const sub of ['alice-user', 'carol-user', 'nobody']) tokens[sub] = await mintDevToken({ secret: SECRET, sub, nowSeconds });

  // A command submitted the ordinary way first: it has no external hash.
  expect((await l.post('/v2/commands/submit-and-wait', cmds([bob], [create(IOU, { issuer: bob, owner: bob, amount: '1', observers: [] })]))).status).toBe(200);

  aliceKey = registerExternal(l.engine, alice);
  const prepare = await l.post('/v2/interactive-submission/prepare', prepareBody([alice], [create(IOU, { issuer: alice, owner: alice, amount: '7', observers: [bob] })]));
  expect(prepare.status).toBe(200);
  const prepared: unknown = await prepare.json();
  const p = { preparedTransaction: jsonText(prepared, 'preparedTransaction'), preparedTransactionHash: jsonText(prepared, 'preparedTransactionHash') };
  const executed = await l.post('/v2/interactive-submission/executeAndWait', executeBody(p, [aliceKey]));
  const answer: unknown = await executed.json();
  expect(executed.status, JSON.stringify(answer)).toBe(200);
  submitted = { hash: p.preparedTransactionHash, updateId: jsonText(answer, 'updateId'), offset: Number(jsonAt(answer, 'completionOffset')) };
});

describe('POST /v2/updates/update-by-hash', () => {
  const path = '/v2/updates/update-by-hash';

  it('finds the update of the interactive submission by its hash, as update-by-id shows it', async () => {
    const body = await check(path, 200, { transactionHash: submitted.hash, updateFormat: updateFormat(bob) });
    const tx = jsonAt(body, 'update', 'Transaction', 'value');
    expect(jsonAt(tx, 'updateId')).toBe(submitted.updateId);
    expect(jsonAt(tx, 'offset')).toBe(submitted.offset);
    expect(jsonAt(tx, 'externalTransactionHash')).toBe(submitted.hash);
    expect(jsonAt(tx, 'events', 0, 'CreatedEvent', 'createArgument', 'amount')).toBe('7.0000000000');
    const byId = await l.post('/v2/updates/update-by-id', { updateId: submitted.updateId, updateFormat: updateFormat(bob) });
    expect(body).toEqual(await byId.json());
    // the party's own token
    await check(path, 200, { transactionHash: submitted.hash, updateFormat: updateFormat(alice) }, { token: 'alice-user' });
    // the hash without its padding decodes the same (java.util.Base64)
    await check(path, 200, { transactionHash: submitted.hash.replace(/=+$/, ''), updateFormat: updateFormat(bob) });
  });

  it('answers UPDATE_NOT_FOUND with the hash in hex for an unknown or filtered-out hash', async () => {
    const unknown = Buffer.alloc(32, 7).toString('base64');
    const err = await checkError(path, 404, 'UPDATE_NOT_FOUND', { transactionHash: unknown, updateFormat: updateFormat(bob) });
    expect(jsonAt(err, 'cause')).toBe('Update not found, or not visible.');
    expect(jsonAt(err, 'resources')).toEqual([['TRANSACTION_HASH', hexOf(unknown)]]);
    // carol sees nothing of it: not found, like update-by-id
    const hidden = await checkError(path, 404, 'UPDATE_NOT_FOUND', { transactionHash: submitted.hash, updateFormat: updateFormat(carol) });
    expect(jsonAt(hidden, 'resources')).toEqual([['TRANSACTION_HASH', hexOf(submitted.hash)]]);
  });

  it('rejects bad input as Canton does, and changes nothing', async () => {
    const end = l.engine.ledgerEnd();
    await checkError(path, 400, 'MISSING_FIELD', { transactionHash: '', updateFormat: updateFormat(bob) });
    await checkError(path, 400, 'MISSING_FIELD', { updateFormat: updateFormat(bob) });
    await checkError(path, 400, /^Invalid value for: body \(The string is not a valid Base64: not\*base64 at 'transactionHash'\)$/, {
      transactionHash: 'not*base64',
      updateFormat: updateFormat(bob),
    });
    await checkError(path, 400, /^Invalid value for: body /, { transactionHash: 5, updateFormat: updateFormat(bob) });
    await checkError(path, 400, /^Invalid value for: body /, undefined, { raw: '{"transactionHash":' });
    await checkError(path, 403, 'NA', { transactionHash: submitted.hash, updateFormat: updateFormat(bob) }, { token: 'alice-user' });
    expect(l.engine.ledgerEnd()).toBe(end);
  });
});

describe('POST /v2/commands/completion-by-hash', () => {
  const path = '/v2/commands/completion-by-hash';

  it('finds the accepted completion of the interactive submission', async () => {
    const body = await check(path, 200, { transactionHash: submitted.hash });
    expect(jsonAt(body, 'acceptedCompletion', 'updateId')).toBe(submitted.updateId);
    expect(jsonAt(body, 'acceptedCompletion', 'offset')).toBe(submitted.offset);
    expect(jsonAt(body, 'acceptedCompletion', 'actAs')).toEqual([alice]);
    expect(jsonAt(body, 'acceptedCompletion', 'status', 'code')).toBe(0);
    expect(jsonArray(body, 'lastRejectedCompletions')).toEqual([]);
    // the submitter's user sees it too
    const own = await check(path, 200, { transactionHash: submitted.hash }, { token: 'alice-user' });
    expect(jsonAt(own, 'acceptedCompletion', 'commandId')).toBe(jsonAt(body, 'acceptedCompletion', 'commandId'));
  });

  it('answers COMPLETION_NOT_FOUND with the hash in hex: unknown hash, or not visible to the user', async () => {
    const unknown = Buffer.alloc(32, 9).toString('base64');
    const err = await checkError(path, 404, 'COMPLETION_NOT_FOUND', { transactionHash: unknown });
    expect(jsonAt(err, 'cause')).toBe('Completion not found, or not visible.');
    expect(jsonAt(err, 'resources')).toEqual([['TRANSACTION_HASH', hexOf(unknown)]]);
    const hidden = await checkError(path, 404, 'COMPLETION_NOT_FOUND', { transactionHash: submitted.hash }, { token: 'carol-user' });
    expect(jsonAt(hidden, 'resources')).toEqual([['TRANSACTION_HASH', hexOf(submitted.hash)]]);
  });

  it('rejects bad input as Canton does, and changes nothing', async () => {
    const end = l.engine.ledgerEnd();
    const empty = await checkError(path, 400, 'INVALID_ARGUMENT', { transactionHash: '' });
    expect(jsonAt(empty, 'cause')).toBe('The submitted request has invalid arguments: Missing field: transaction_hash');
    await checkError(path, 400, 'INVALID_ARGUMENT', {});
    await checkError(path, 400, /^Invalid value for: body \(The string is not a valid Base64: abcde at 'transactionHash'\)$/, { transactionHash: 'abcde' });
    await checkError(path, 400, /^Invalid value for: body /, undefined, { raw: 'nope' });
    // a user with no read or act claim at all
    await checkError(path, 403, 'NA', { transactionHash: submitted.hash }, { token: 'nobody' });
    expect(l.engine.ledgerEnd()).toBe(end);
  });
});

describe('GET /v2/jose/jwks/synchronizer/{synchronizer}/party/{party}', () => {
  const path = (synchronizer: string, party: string) => `/v2/jose/jwks/synchronizer/${encodeURIComponent(synchronizer)}/party/${encodeURIComponent(party)}`;
  /** RFC 7638 thumbprint of the required members, computed independently of the server. */
  const thumbprint = (members: Record<string, string>) =>
    createHash('sha256').update(JSON.stringify(Object.fromEntries(Object.entries(members).sort(([a], [b]) => (a < b ? -1 : 1))))).digest('base64url');

  it("holds an external party's Ed25519 key, usable to verify what the party signs", async () => {
    const body = await check(path(l.engine.synchronizerId, alice), 200, GET);
    const jwks = GetJwksResponseSchema.parse(body);
    const x = aliceKey.rawPublicKey.toString('base64url');
    expect(jwks.keys).toEqual([{ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', x, kid: thumbprint({ crv: 'Ed25519', kty: 'OKP', x }) }]);
    // the JWK is the party's key: it verifies the party's signature
    const jwk = jwks.keys[0]!;
    const pub = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' });
    const data = Buffer.from('party jwt');
    expect(verify(null, data, pub, sign(null, data, aliceKey.privateKey))).toBe(true);
    // RequiredClaim.Public: any authenticated user, even without rights
    await check(path(l.engine.synchronizerId, alice), 200, GET, { token: 'nobody' });
  });

  it('holds an EC P-256 key as {kty: EC, crv: P-256, x, y}', async () => {
    const dave = l.party('dave');
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const key = normalizeSigningKey('spki', publicKey.export({ format: 'der', type: 'spki' }), 'SIGNING_KEY_SPEC_EC_P256');
    l.engine.externalParties.register({ party: dave, keys: [key], threshold: 1 });
    const jwks = GetJwksResponseSchema.parse(await check(path(l.engine.synchronizerId, dave), 200, GET));
    const expected = publicKey.export({ format: 'jwk' });
    const members = { crv: 'P-256', kty: 'EC', x: expected.x!, y: expected.y! };
    expect(jwks.keys).toEqual([{ ...members, alg: 'ES256', use: 'sig', kid: thumbprint(members) }]);
    const data = Buffer.from('party jwt');
    const jwk = jwks.keys[0]!;
    const pub = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, format: 'jwk' });
    expect(verify('sha256', data, pub, sign('sha256', data, privateKey))).toBe(true);
  });

  it("answers Canton's errors: malformed ids, unknown synchronizer, party without signing keys", async () => {
    const sync = l.engine.synchronizerId;
    const badSync = await checkError(path('no-namespace', alice), 400, 'INVALID_ARGUMENT', GET);
    expect(jsonAt(badSync, 'cause')).toBe('The submitted request has invalid arguments: Unable to convert field `synchronizerId`: Invalid unique identifier `no-namespace` with missing namespace.');
    const badParty = await checkError(path(sync, 'alice'), 400, 'INVALID_ARGUMENT', GET);
    expect(jsonAt(badParty, 'cause')).toBe('The submitted request has invalid arguments: Unable to convert field `partyId`: Invalid unique identifier `alice` with missing namespace.');
    const other = `other::1220${'ab'.repeat(32)}`;
    const unknownSync = await checkError(path(other, alice), 404, 'SYNCHRONIZER_NOT_FOUND', GET);
    expect(jsonAt(unknownSync, 'resources')).toEqual([['SYNCHRONIZER_ID', other]]);
    // bob is a local party: his keys are the participant's, he has no party-to-key mapping
    const local = await checkError(path(sync, bob), 404, 'PARTY_SIGNING_KEYS_NOT_FOUND', GET);
    expect(jsonAt(local, 'cause')).toBe('Could not find signing keys for the requested party.');
    expect(jsonAt(local, 'resources')).toEqual([['PARTY', bob]]);
    await checkError(path(sync, `ghost::1220${'cd'.repeat(32)}`), 404, 'PARTY_SIGNING_KEYS_NOT_FOUND', GET);
    await checkError(path(sync, alice), 401, 'NA', GET, { token: 'Bearer not-a-jwt' });
  });
});

describe('coverage', () => {
  it('each 3.6 addition has conformant success and error responses', () => {
    const required: CoverageRequirement[] = BEYOND_35.flatMap(({ method, pathTemplate }) => [
      { method, pathTemplate, status: 200 },
      { method, pathTemplate, status: 400 },
      { method, pathTemplate, status: 404 },
    ]);
    expect(required).toHaveLength(9);
    expect(v.uncovered(required)).toEqual([]);
    expect(v.coverage().filter((e) => !e.ok)).toEqual([]);
  });
});
