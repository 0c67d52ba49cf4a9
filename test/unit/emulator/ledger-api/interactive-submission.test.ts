/**
 * Interactive submission routes: execute (3 forms) has the effects of submit-and-wait (events,
 * completions, ACS, update stream, deduplication) once the actAs parties' signatures check out;
 * every rejection leaves the ledger untouched; rights; preferred packages.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { UserClaims } from '../../../../src/emulator/participant/claims.js';
import { testLedger, IOU, create, exercise, cmds, acsRequest, type TestLedger } from '../../../support/ledger-fixtures.js';
import { executeBody, prepareBody, registerExternal, newKey, type ExternalKey } from '../../../support/interactive.js';
import { buildDar } from '../../../support/dar-builder.js';
import { GenerateExternalPartyTopologyResponseSchema, AllocateExternalPartyResponseSchema } from '../../../../src/ledger-client/schemas/external-parties.js';
import { ExecuteSubmissionAndWaitResponseSchema, JsPrepareSubmissionResponseSchema, type JsPrepareSubmissionResponse } from '../../../../src/ledger-client/schemas/interactive-submission.js';
import { activeContracts, archivedEvent, cantonError, createdEvent, fieldsOf, transactionOf } from '../../../support/ledger-wire.js';

/** One request: the status and the body, parsed when it is JSON, else the text (tapir's plain 400s). */
async function call(l: TestLedger, path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const r = await l.post(path, body, headers);
  const text = await r.text();
  return { status: r.status, body: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text };
}

async function prepare(l: TestLedger, body: unknown): Promise<JsPrepareSubmissionResponse> {
  const r = await call(l, '/v2/interactive-submission/prepare', body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return JsPrepareSubmissionResponseSchema.parse(r.body);
}

async function acsIds(l: TestLedger, party: string): Promise<string[]> {
  const r = await call(l, '/v2/state/active-contracts', acsRequest(party, null, { activeAtOffset: l.engine.ledgerEnd() }));
  return activeContracts(r.body).map((c) => c.createdEvent.contractId);
}

/** The answer of executeAndWait. */
const executed = (body: unknown) => ExecuteSubmissionAndWaitResponseSchema.parse(body);

function setup(opts: Parameters<typeof testLedger>[0] = {}) {
  const l = testLedger(opts);
  const alice = l.party('alice');
  const bob = l.party('bob');
  const aliceKey = registerExternal(l.engine, alice);
  const bobKey = registerExternal(l.engine, bob);
  const iouCmd = (amount = '10') => create(IOU, { issuer: alice, owner: alice, amount, observers: [bob] });
  return { l, alice, bob, aliceKey, bobKey, iouCmd };
}

/** Expects a rejection that changes nothing: same ledger end, same ACS for `party`. */
async function expectRejected(l: TestLedger, party: string, p: () => Promise<{ status: number; body: unknown }>, status: number, code: string, cause?: string) {
  const end = l.engine.ledgerEnd();
  const acs = await acsIds(l, party);
  const r = await p();
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  const error = cantonError(r.body);
  expect(error.code).toBe(code);
  if (cause) expect(error.cause).toContain(cause);
  expect(l.engine.ledgerEnd()).toBe(end);
  expect(await acsIds(l, party)).toEqual(acs);
  return r;
}

describe('execute', () => {
  it('executeAndWait commits what was prepared, like submit-and-wait: update, completion, ACS, external hash', async () => {
    const { l, alice, bob, aliceKey, iouCmd } = setup();
    const prepared = await prepare(l, prepareBody([alice], [iouCmd()]));
    expect(l.engine.ledgerEnd()).toBe(0);
    const r = await call(l, '/v2/interactive-submission/executeAndWait', executeBody(prepared, [aliceKey]));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({ updateId: expect.stringMatching(/^1220[0-9a-f]{64}$/), completionOffset: 1 });

    const byId = await call(l, '/v2/updates/transaction-by-id', {
      updateId: executed(r.body).updateId,
      transactionFormat: { eventFormat: { filtersByParty: { [bob]: { cumulative: [] } }, verbose: true }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' },
    });
    expect(byId.status, JSON.stringify(byId.body)).toBe(200);
    const tx = transactionOf(byId.body);
    expect(tx.externalTransactionHash).toBe(prepared.preparedTransactionHash);
    expect(createdEvent(tx.events[0])).toMatchObject({ signatories: [alice], observers: [bob], createArgument: { issuer: alice, owner: alice, amount: '10.0000000000' } });
    expect(await acsIds(l, bob)).toEqual([createdEvent(tx.events[0]).contractId]);

    const completions = await call(l, '/v2/commands/completions', { userId: 'tester', parties: [alice], beginExclusive: 0 });
    const c = (completions.body as Array<{ completionResponse: { Completion: { value: unknown } } }>)[0]!.completionResponse.Completion.value;
    expect(c).toMatchObject({ updateId: executed(r.body).updateId, offset: 1, actAs: [alice], userId: 'tester', status: { code: 0 } });
  });

  it('execute answers {} and commits; executeAndWaitForTransaction answers the transaction', async () => {
    const { l, alice, aliceKey, iouCmd } = setup();
    const p1 = await prepare(l, prepareBody([alice], [iouCmd('1')]));
    const r1 = await call(l, '/v2/interactive-submission/execute', executeBody(p1, [aliceKey]));
    expect(r1).toEqual({ status: 200, body: {} });
    expect(l.engine.ledgerEnd()).toBe(1);

    const p2 = await prepare(l, prepareBody([alice], [iouCmd('2')]));
    const r2 = await call(l, '/v2/interactive-submission/executeAndWaitForTransaction', executeBody(p2, [aliceKey]));
    expect(r2.status, JSON.stringify(r2.body)).toBe(200);
    expect(transactionOf(r2.body)).toMatchObject({ offset: 2, externalTransactionHash: p2.preparedTransactionHash });
    expect(fieldsOf(createdEvent(transactionOf(r2.body).events[0]).createArgument).amount).toBe('2.0000000000');
  });

  it('bytes that differ from the prepared ones but decode to the same transaction are re-hashed and accepted', async () => {
    const { l, alice, aliceKey, iouCmd } = setup();
    const p = await prepare(l, prepareBody([alice], [iouCmd('7')]));
    // an unknown field (99, varint 1) appended, as a newer client might: protobuf parsers skip it
    const reserialized = Buffer.concat([Buffer.from(p.preparedTransaction, 'base64'), Buffer.from([0x98, 0x06, 0x01])]).toString('base64');
    const r = await call(l, '/v2/interactive-submission/executeAndWait', { ...executeBody(p, [aliceKey]), preparedTransaction: reserialized });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(l.engine.updates.atOffset(executed(r.body).completionOffset)!.externalTransactionHash).toBe(p.preparedTransactionHash);
  });

  it('an exercise through prepare/execute archives and creates as submit-and-wait does', async () => {
    const { l, alice, aliceKey, iouCmd } = setup();
    const made = await call(l, '/v2/commands/submit-and-wait-for-transaction', { commands: cmds([alice], [iouCmd('10')]) });
    const cid = createdEvent(transactionOf(made.body).events[0]).contractId;
    const p = await prepare(l, prepareBody([alice], [exercise(IOU, cid, 'Split', { amount: '4' })]));
    const r = await call(l, '/v2/interactive-submission/executeAndWaitForTransaction', executeBody(p, [aliceKey]));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const events = transactionOf(r.body).events;
    expect(archivedEvent(events[0]).contractId).toBe(cid);
    expect(events.slice(1).map((e) => fieldsOf(createdEvent(e).createArgument).amount)).toEqual(['4.0000000000', '6.0000000000']);
    expect((await acsIds(l, alice)).length).toBe(2);
  });

  describe('rejections change nothing', () => {
    it('a tampered prepared transaction: the signatures no longer match its hash', async () => {
      const { l, alice, aliceKey, iouCmd } = setup();
      const p = await prepare(l, prepareBody([alice], [iouCmd('10')]));
      const bytes = Buffer.from(p.preparedTransaction, 'base64');
      const at = bytes.indexOf(Buffer.from('10.0000000000'));
      expect(at).toBeGreaterThan(0);
      bytes.write('99', at);
      const tampered = { ...executeBody(p, [aliceKey]), preparedTransaction: bytes.toString('base64') };
      await expectRejected(l, alice, () => call(l, '/v2/interactive-submission/executeAndWait', tampered), 400, 'FAILED_TO_EXECUTE_TRANSACTION', 'Received 0 valid signatures from distinct keys (1 invalid), but expected at least 1 valid for');
    });

    it('a wrong signature, a missing signature, a signature by another key', async () => {
      const { l, alice, bob, aliceKey, bobKey, iouCmd } = setup();
      const p = await prepare(l, prepareBody([alice], [iouCmd()]));
      const other = await prepare(l, prepareBody([alice], [iouCmd('3')]));
      const wrong = executeBody(p, []);
      wrong.partySignatures.signatures = [{ party: alice, signatures: [aliceKey.signature(other.preparedTransactionHash)] }];
      await expectRejected(l, alice, () => call(l, '/v2/interactive-submission/executeAndWait', wrong), 400, 'FAILED_TO_EXECUTE_TRANSACTION', 'Received 0 valid signatures');

      await expectRejected(l, alice, () => call(l, '/v2/interactive-submission/executeAndWait', executeBody(p, [])), 400, 'FAILED_TO_EXECUTE_TRANSACTION', `The following actAs parties did not provide an external signature: ${alice}`);
      // bob signs instead of alice
      await expectRejected(l, alice, () => call(l, '/v2/interactive-submission/executeAndWait', executeBody(p, [bobKey])), 400, 'FAILED_TO_EXECUTE_TRANSACTION', 'did not provide an external signature');
      // a signature by bob's key presented as alice's
      const byOtherKey = executeBody(p, []);
      byOtherKey.partySignatures.signatures = [{ party: alice, signatures: [bobKey.signature(p.preparedTransactionHash)] }];
      await expectRejected(l, alice, () => call(l, '/v2/interactive-submission/executeAndWait', byOtherKey), 400, 'FAILED_TO_EXECUTE_TRANSACTION', `Received 0 valid signatures from distinct keys (1 invalid), but expected at least 1 valid for ${alice}`);
      // a key that claims alice's fingerprint but is not hers
      const impostor: ExternalKey = { ...newKey(alice), fingerprint: aliceKey.fingerprint };
      const forged = executeBody(p, []);
      forged.partySignatures.signatures = [{ party: alice, signatures: [{ ...impostor.signature(p.preparedTransactionHash), signedBy: aliceKey.fingerprint }] }];
      await expectRejected(l, alice, () => call(l, '/v2/interactive-submission/executeAndWait', forged), 400, 'FAILED_TO_EXECUTE_TRANSACTION', 'Received 0 valid signatures');
      expect(bob).not.toBe(alice);
    });

    it('expired: past maxRecordTime, or prepared more than 24 hours ago', async () => {
      const { l, alice, aliceKey, iouCmd } = setup();
      const maxRecordTime = new Date(Date.parse('2026-03-01T12:00:30Z')).toISOString();
      const p = await prepare(l, prepareBody([alice], [iouCmd()], { maxRecordTime }));
      l.clock.advance(60_000);
      await expectRejected(l, alice, () => call(l, '/v2/interactive-submission/executeAndWait', executeBody(p, [aliceKey])), 409, 'NOT_SEQUENCED_TIMEOUT');

      const old = await prepare(l, prepareBody([alice], [iouCmd()]));
      l.clock.advance(25 * 3600_000);
      await expectRejected(l, alice, () => call(l, '/v2/interactive-submission/executeAndWait', executeBody(old, [aliceKey])), 400, 'LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND');
    });

    it('a min ledger time beyond the ledger-time tolerance is refused until the clock gets there', async () => {
      const { l, alice, aliceKey, iouCmd } = setup();
      const minLet = '2026-03-01T12:02:00Z';
      const p = await prepare(l, prepareBody([alice], [iouCmd()], { minLedgerTime: { time: { MinLedgerTimeAbs: { value: minLet } } } }));
      await expectRejected(l, alice, () => call(l, '/v2/interactive-submission/executeAndWait', executeBody(p, [aliceKey])), 400, 'LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND');
      l.clock.advance(90_000);
      const r = await call(l, '/v2/interactive-submission/executeAndWait', executeBody(p, [aliceKey]));
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const tx = l.engine.updates.atOffset(executed(r.body).completionOffset)!;
      expect(tx.effectiveAtMicros).toBe(BigInt(Date.parse(minLet)) * 1000n);
    });

    it('a second execute of the same prepared transaction is a duplicate command', async () => {
      const { l, alice, aliceKey, iouCmd } = setup();
      const p = await prepare(l, prepareBody([alice], [iouCmd()]));
      expect((await call(l, '/v2/interactive-submission/executeAndWait', executeBody(p, [aliceKey]))).status).toBe(200);
      await expectRejected(l, alice, () => call(l, '/v2/interactive-submission/executeAndWait', executeBody(p, [aliceKey])), 409, 'DUPLICATE_COMMAND');
      // deduplication with the same command id on a fresh preparation
      const again = await prepare(l, prepareBody([alice], [iouCmd()], { commandId: (await lastCommandId(l)) }));
      await expectRejected(l, alice, () => call(l, '/v2/interactive-submission/executeAndWait', executeBody(again, [aliceKey])), 409, 'DUPLICATE_COMMAND');
    });

    it('an input contract consumed between prepare and execute', async () => {
      const { l, alice, aliceKey, iouCmd } = setup();
      const made = await call(l, '/v2/commands/submit-and-wait-for-transaction', { commands: cmds([alice], [iouCmd('10')]) });
      const cid = createdEvent(transactionOf(made.body).events[0]).contractId;
      const p = await prepare(l, prepareBody([alice], [exercise(IOU, cid, 'Split', { amount: '4' })]));
      expect((await call(l, '/v2/commands/submit-and-wait', cmds([alice], [exercise(IOU, cid, 'Split', { amount: '5' })]))).status).toBe(200);
      await expectRejected(l, alice, () => call(l, '/v2/interactive-submission/executeAndWait', executeBody(p, [aliceKey])), 409, 'LOCAL_VERDICT_INACTIVE_CONTRACTS', cid);
    });

    it('bytes that are not a prepared transaction; an unsupported hashing scheme; a foreign synchronizer', async () => {
      const { l, alice, aliceKey, iouCmd } = setup();
      const p = await prepare(l, prepareBody([alice], [iouCmd()]));
      const garbage = { ...executeBody(p, [aliceKey]), preparedTransaction: Buffer.from('not protobuf at all').toString('base64') };
      await expectRejected(l, alice, () => call(l, '/v2/interactive-submission/executeAndWait', garbage), 400, 'INVALID_FIELD', 'prepared_transaction');
      const v3 = { ...executeBody(p, [aliceKey]), hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V3' };
      await expectRejected(l, alice, () => call(l, '/v2/interactive-submission/executeAndWait', v3), 400, 'INVALID_FIELD', 'hashing_scheme_version');
      const bad = await call(l, '/v2/interactive-submission/executeAndWait', { preparedTransaction: 1 });
      expect(bad.status).toBe(400);
      expect(typeof bad.body).toBe('string');
      const foreign = await call(l, '/v2/interactive-submission/prepare', prepareBody([alice], [iouCmd()], { synchronizerId: 'invalidSynchronizerId' }));
      expect(cantonError(foreign.body).cause).toContain('Invalid unique identifier `invalidSynchronizerId` with missing namespace.');
    });

    it('prepare failures: an unknown contract, an unknown party', async () => {
      const { l, alice } = setup();
      const missing = '00' + 'ab'.repeat(32) + 'ca10' + '1220' + 'cd'.repeat(32);
      const r = await call(l, '/v2/interactive-submission/prepare', prepareBody([alice], [exercise(IOU, missing, 'Split', { amount: '1' })]));
      expect(r.status).toBe(404);
      expect(cantonError(r.body).code).toBe('CONTRACT_NOT_FOUND');
      const u = await call(l, '/v2/interactive-submission/prepare', prepareBody(['nobody::1220' + '0'.repeat(64)], [create(IOU, {})]));
      expect(cantonError(u.body).code).toBe('SUBMITTING_PARTY_NOT_KNOWN_ON_LEDGER');
    });
  });

  it('rights: prepare needs read-as; execute needs act-as or execute-as', async () => {
    const claims = (rights: Partial<UserClaims>): UserClaims => ({
      kind: 'user', userId: 'tester', identityProviderId: '', admin: false, idpAdmin: false, actAs: new Set(), readAs: new Set(), executeAs: new Set(),
      readAsAnyParty: false, executeAsAnyParty: false, ...rights,
    });
    let current: UserClaims = claims({});
    const { l, alice, aliceKey, iouCmd } = setup({ authenticate: async () => current });
    const body = prepareBody([alice], [iouCmd()]);
    expect((await call(l, '/v2/interactive-submission/prepare', body)).status).toBe(403);
    // CanExecuteAs does not grant reading (Canton's RequiredClaim.ReadAs)
    current = claims({ executeAs: new Set([alice]) });
    expect((await call(l, '/v2/interactive-submission/prepare', body)).status).toBe(403);
    current = claims({ readAs: new Set([alice]) });
    const p = await prepare(l, body);
    await expectRejected(l, alice, async () => {
      current = claims({ readAs: new Set([alice]) });
      const r = await call(l, '/v2/interactive-submission/executeAndWait', executeBody(p, [aliceKey]));
      current = claims({ readAsAnyParty: true });
      return r;
    }, 403, 'NA');
    current = claims({ executeAs: new Set([alice]) });
    expect((await call(l, '/v2/interactive-submission/executeAndWait', executeBody(p, [aliceKey]))).status).toBe(200);
  });
});

async function lastCommandId(l: TestLedger): Promise<string> {
  return l.engine.updates.atOffset(l.engine.ledgerEnd())!.commandId;
}

describe('preferred packages', () => {
  const v1 = buildDar({ name: 'pref-pkg', version: '1.0.0', modules: [{ name: 'Main', templates: [{ name: 'T', fields: [['p', 'Party']] }] }] });
  const v2 = buildDar({ name: 'pref-pkg', version: '1.2.0', modules: [{ name: 'Main', templates: [{ name: 'T', fields: [['p', 'Party'], ['n', 'Optional Int64']] }] }] });

  it('answers the highest vetted version; unknown names and parties get Canton errors', async () => {
    const l = testLedger();
    const alice = l.party('alice');
    for (const d of [v2, v1]) expect((await l.app.request('/v2/dars', { method: 'POST', body: d.bytes })).status).toBe(200);
    const get = await l.get(`/v2/interactive-submission/preferred-package-version?package-name=pref-pkg&parties=${encodeURIComponent(alice)}`);
    expect(await get.json()).toEqual({
      packagePreference: { packageReference: { packageId: v2.mainPackageId, packageName: 'pref-pkg', packageVersion: '1.2.0' }, synchronizerId: l.engine.synchronizerId },
    });
    const post = await call(l, '/v2/interactive-submission/preferred-packages', { packageVettingRequirements: [{ packageName: 'pref-pkg', parties: [alice] }] });
    expect(post.body).toEqual({ packageReferences: [{ packageId: v2.mainPackageId, packageName: 'pref-pkg', packageVersion: '1.2.0' }], synchronizerId: l.engine.synchronizerId });

    const unknown = await call(l, '/v2/interactive-submission/preferred-packages', { packageVettingRequirements: [{ packageName: 'NoSuchPackage', parties: [alice] }] });
    expect([unknown.status, cantonError(unknown.body).code]).toEqual([404, 'PACKAGE_NAMES_NOT_FOUND']);
    const invalid = await l.get(`/v2/interactive-submission/preferred-package-version?package-name=${encodeURIComponent('What-Is-A-Package-Name?')}`);
    expect(cantonError(await invalid.json()).code).toBe('INVALID_FIELD');
    const party = await call(l, '/v2/interactive-submission/preferred-packages', { packageVettingRequirements: [{ packageName: 'pref-pkg', parties: ['unknownParty::ns'] }] });
    expect(cantonError(party.body).code).toBe('UNKNOWN_INFORMEES');
  });
});

describe('an ECDSA P-256 external party, onboarded through /v2/parties/external/*', () => {
  it('executes with an ECDSA-SHA256 signature in CONCAT (r‖s) or DER form; an Ed25519 spec over the same key is refused', async () => {
    const l = testLedger();
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const spki = publicKey.export({ format: 'der', type: 'spki' });
    const topo = await call(l, '/v2/parties/external/generate-topology', {
      synchronizer: l.engine.synchronizerId,
      partyHint: 'ecdsa',
      publicKey: { format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO', keyData: spki.toString('base64'), keySpec: 'SIGNING_KEY_SPEC_EC_P256' },
    });
    expect(topo.status, JSON.stringify(topo.body)).toBe(200);
    const topology = GenerateExternalPartyTopologyResponseSchema.parse(topo.body);
    const ecdsa = (data: string, dsaEncoding: 'der' | 'ieee-p1363') =>
      sign('sha256', Buffer.from(data, 'base64'), { key: privateKey, dsaEncoding }).toString('base64');
    const allocated = await call(l, '/v2/parties/external/allocate', {
      synchronizer: l.engine.synchronizerId,
      onboardingTransactions: topology.topologyTransactions.map((transaction) => ({ transaction })),
      multiHashSignatures: [
        { format: 'SIGNATURE_FORMAT_DER', signature: ecdsa(topology.multiHash, 'der'), signedBy: topology.publicKeyFingerprint, signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256' },
      ],
    });
    expect(allocated.status, JSON.stringify(allocated.body)).toBe(200);
    const party = AllocateExternalPartyResponseSchema.parse(allocated.body).partyId;
    const signed = (p: JsPrepareSubmissionResponse, format: string, dsaEncoding: 'der' | 'ieee-p1363', spec = 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256') => ({
      userId: 'tester',
      preparedTransaction: p.preparedTransaction,
      hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
      submissionId: `ecdsa-${format}-${spec}`,
      partySignatures: {
        signatures: [{ party, signatures: [{ format, signature: ecdsa(p.preparedTransactionHash, dsaEncoding), signedBy: topology.publicKeyFingerprint, signingAlgorithmSpec: spec }] }],
      },
    });
    const iou = (amount: string) => create(IOU, { issuer: party, owner: party, amount, observers: [] });

    const first = await prepare(l, prepareBody([party], [iou('1')]));
    await expectRejected(l, party, () => call(l, '/v2/interactive-submission/executeAndWait', signed(first, 'SIGNATURE_FORMAT_CONCAT', 'ieee-p1363', 'SIGNING_ALGORITHM_SPEC_ED25519')), 400, 'FAILED_TO_EXECUTE_TRANSACTION');
    const concat = await call(l, '/v2/interactive-submission/executeAndWait', signed(first, 'SIGNATURE_FORMAT_CONCAT', 'ieee-p1363'));
    expect(concat.status, JSON.stringify(concat.body)).toBe(200);

    const second = await prepare(l, prepareBody([party], [iou('2')]));
    const der = await call(l, '/v2/interactive-submission/executeAndWait', signed(second, 'SIGNATURE_FORMAT_DER', 'der'));
    expect(der.status, JSON.stringify(der.body)).toBe(200);
    expect(await acsIds(l, party)).toHaveLength(2);
  });
});
