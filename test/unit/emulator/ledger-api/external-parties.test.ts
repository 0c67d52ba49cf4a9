/**
 * POST /v2/parties/external/generate-topology and /allocate through the in-process app: success,
 * each rejection, and that a rejected request changes nothing. Keys and signatures come from the
 * official signing library (core-signing-lib: tweetnacl Ed25519), the wallet SDK's signer.
 */
import { generateKeyPairSync, sign as nodeSign } from 'node:crypto';
import { createKeyPair, signTransactionHash } from '@canton-network/core-signing-lib';
import { describe, expect, it } from 'vitest';
import { claimsTableApp, userClaims } from '../../../support/ledger-fixtures.js';
import { externalPartiesRoutes } from '../../../../src/emulator/ledger-api/external-parties.js';
import { partiesRoutes } from '../../../../src/emulator/ledger-api/parties.js';
import { usersRoutes } from '../../../../src/emulator/ledger-api/users.js';
import { LedgerEngine } from '../../../../src/emulator/participant/engine.js';
import { LedgerApiError } from '../../../../src/canton/errors.js';
import { cantonHash, combinedTopologyHash, fingerprintOf } from '../../../../src/emulator/participant/topology/canton-hash.js';
import { allocateExternalParty } from '../../../../src/emulator/participant/topology/allocate-external.js';
import { encodeTopologyTransaction, topologyTransactionHash, type TopologyTransaction } from '../../../../src/emulator/participant/topology/transactions.js';
import { AllocateExternalPartyResponseSchema, GenerateExternalPartyTopologyResponseSchema } from '../../../../src/ledger-client/schemas/external-parties.js';
import { GetPartiesResponseSchema } from '../../../../src/ledger-client/schemas/parties.js';
import { cantonError, fieldsOf } from '../../../support/ledger-wire.js';

function setup(seed = 'test') {
  const engine = new LedgerEngine({ seed });
  const { table, call } = claimsTableApp(engine, [partiesRoutes, externalPartiesRoutes, usersRoutes]);
  /** Everything an allocation could change. */
  const snapshot = () =>
    JSON.stringify({
      parties: engine.parties.all(),
      external: engine.externalParties.all().map((r) => [r.party, r.threshold, r.keys.map((k) => k.fingerprint)]),
      users: engine.users.list().users.map((u) => [u.id, engine.users.rights(u.id)]),
    });
  return { engine, table, call, snapshot };
}

type Env = ReturnType<typeof setup>;

function topologyRequest(env: Env, publicKey: string, extra: Record<string, unknown> = {}) {
  return {
    synchronizer: env.engine.synchronizerId,
    partyHint: 'alice',
    publicKey: { format: 'CRYPTO_KEY_FORMAT_RAW', keyData: publicKey, keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519' },
    localParticipantObservationOnly: false,
    otherConfirmingParticipantUids: [],
    confirmationThreshold: 1,
    observingParticipantUids: [],
    ...extra,
  };
}

async function generate(env: Env, publicKey: string, extra: Record<string, unknown> = {}) {
  const r = await env.call('POST', '/v2/parties/external/generate-topology', topologyRequest(env, publicKey, extra));
  expect(r.status, r.text).toBe(200);
  return GenerateExternalPartyTopologyResponseSchema.parse(r.json);
}

function multiSig(signature: string, signedBy: string) {
  return { format: 'SIGNATURE_FORMAT_CONCAT', signature, signedBy, signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519' };
}

function allocateBody(env: Env, txs: string[], sigs: unknown[], extra: Record<string, unknown> = {}) {
  return { synchronizer: env.engine.synchronizerId, identityProviderId: '', onboardingTransactions: txs.map((transaction) => ({ transaction })), multiHashSignatures: sigs, ...extra };
}

/** The SDK's whole flow: generate, sign the multiHash, allocate. */
async function onboard(env: Env, keys = createKeyPair(), hint = 'alice') {
  const g = await generate(env, keys.publicKey, { partyHint: hint });
  const r = await env.call('POST', '/v2/parties/external/allocate', allocateBody(env, g.topologyTransactions, [multiSig(signTransactionHash(g.multiHash, keys.privateKey), g.publicKeyFingerprint)]));
  return { g, r, keys };
}

describe('POST /v2/parties/external/generate-topology', () => {
  it('answers the party id, fingerprint, transactions and multi-hash; deterministic; changes nothing', async () => {
    const env = setup();
    const keys = createKeyPair();
    const before = env.snapshot();
    const g = await generate(env, keys.publicKey);
    const fp = fingerprintOf(Buffer.from(keys.publicKey, 'base64'));
    expect(g.publicKeyFingerprint).toBe(fp);
    expect(g.partyId).toBe(`alice::${fp}`);
    expect(g.topologyTransactions).toHaveLength(1);
    const txHash = topologyTransactionHash(Buffer.from(g.topologyTransactions[0]!, 'base64'));
    expect(g.multiHash).toBe(combinedTopologyHash([txHash]).toString('base64'));
    expect(await generate(env, keys.publicKey)).toEqual(g);
    expect(env.snapshot()).toBe(before);
  });

  it('is public: a user without rights may call it', async () => {
    const env = setup();
    env.table.set('nobody', userClaims('nobody'));
    const r = await env.call('POST', '/v2/parties/external/generate-topology', topologyRequest(env, createKeyPair().publicKey), 'nobody');
    expect(r.status).toBe(200);
  });

  it('rejects bad requests with INVALID_ARGUMENT, and undecodable ones with tapir 400', async () => {
    const env = setup();
    const pub = createKeyPair().publicKey;
    const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    const other = `participant2::1220${'ab'.repeat(32)}`;
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ synchronizer: `other::1220${'00'.repeat(32)}` }, /Unknown or not connected synchronizer other::/],
      [{ synchronizer: 'no-namespace' }, /missing namespace/],
      [{ publicKey: null }, /Field `public_key` is not set/],
      [{ publicKey: { format: 'CRYPTO_KEY_FORMAT_UNSPECIFIED', keyData: pub, keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519' } }, /format/],
      [{ publicKey: { format: 'CRYPTO_KEY_FORMAT_RAW', keyData: pub, keySpec: 'SIGNING_KEY_SPEC_UNSPECIFIED' } }, /key_spec/],
      [{ publicKey: { format: 'CRYPTO_KEY_FORMAT_RAW', keyData: Buffer.alloc(31).toString('base64'), keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519' } }, /expected 32 bytes, got 31/],
      [{ publicKey: { format: 'CRYPTO_KEY_FORMAT_RAW', keyData: p256, keySpec: 'SIGNING_KEY_SPEC_EC_P256' } }, /Invalid format/],
      [{ publicKey: { format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO', keyData: p256, keySpec: 'SIGNING_KEY_SPEC_EC_P384' } }, /not a SIGNING_KEY_SPEC_EC_P384 key/],
      [{ partyHint: '' }, /Party hint is empty/],
      [{ partyHint: 'a::b' }, /party_hint: String contains reserved delimiter/],
      [{ partyHint: 'al!ce' }, /party_hint: non expected character/],
      [{ confirmationThreshold: -1 }, /Negative confirmation threshold observed/],
      [{ confirmationThreshold: 2 }, /Confirmation threshold exceeds number of confirming participants/],
      [{ otherConfirmingParticipantUids: ['not-a-uid'] }, /Invalid unique identifier `not-a-uid`/],
      [{ otherConfirmingParticipantUids: [env.engine.participantId] }, /is also listed in 'otherConfirmingParticipantUids'/],
      [{ observingParticipantUids: [env.engine.participantId] }, /is also listed in 'observingParticipantUids'/],
      [{ otherConfirmingParticipantUids: [other], observingParticipantUids: [other] }, /referenced multiple times in the request: participant2::/],
      [{ localParticipantObservationOnly: true, confirmationThreshold: 0 }, /at least one confirming participant/],
    ];
    const before = env.snapshot();
    for (const [extra, message] of cases) {
      const r = await env.call('POST', '/v2/parties/external/generate-topology', topologyRequest(env, pub, extra));
      expect(r.status, JSON.stringify(extra)).toBe(400);
      expect(r.json, JSON.stringify(extra)).toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(cantonError(r.json).cause, JSON.stringify(extra)).toMatch(message);
    }
    const badEnum = await env.call('POST', '/v2/parties/external/generate-topology', topologyRequest(env, pub, { publicKey: { format: 'PEM', keyData: pub, keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519' } }));
    expect(badEnum.status).toBe(400);
    expect(badEnum.text).toMatch(/^Invalid value for: body/);
    const badBase64 = await env.call('POST', '/v2/parties/external/generate-topology', topologyRequest(env, '!!notbase64', {}));
    expect(badBase64.status).toBe(400);
    expect(badBase64.text).toMatch(/^Invalid value for: body/);
    expect(env.snapshot()).toBe(before);
  });
});

describe('POST /v2/parties/external/allocate', () => {
  it('allocates the party the SDK way: hosted here, listed, keys registered', async () => {
    const env = setup();
    const { g, r, keys } = await onboard(env);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({ partyId: g.partyId });

    const listed = await env.call('GET', '/v2/parties');
    expect(fieldsOf(listed.json).partyDetails).toContainEqual({
      party: g.partyId,
      isLocal: true,
      localMetadata: { resourceVersion: '0', annotations: {} },
      identityProviderId: '',
    });
    const one = await env.call('GET', `/v2/parties/${encodeURIComponent(g.partyId)}`);
    expect(GetPartiesResponseSchema.parse(one.json).partyDetails.map((p) => p.party)).toEqual([g.partyId]);

    const rec = env.engine.externalParties.get(g.partyId);
    expect(rec?.threshold).toBe(1);
    expect(rec?.keys.map((k) => k.fingerprint)).toEqual([g.publicKeyFingerprint]);
    // the registered key verifies the party's signatures over any hash (interactive submission)
    const hash = cantonHash(48, Buffer.from('a prepared transaction'));
    const sig = signTransactionHash(hash.toString('base64'), keys.privateKey);
    expect(env.engine.externalParties.verifyPartySignatures(g.partyId, hash, [multiSig(sig, g.publicKeyFingerprint)])).toEqual({ ok: true });
  });

  it('grants CanActAs to userId, and accepts waitForAllocation false', async () => {
    const env = setup();
    env.engine.users.create({ id: 'wallet-user' }, []);
    const keys = createKeyPair();
    const g = await generate(env, keys.publicKey, { partyHint: 'bob' });
    const r = await env.call(
      'POST',
      '/v2/parties/external/allocate',
      allocateBody(env, g.topologyTransactions, [multiSig(signTransactionHash(g.multiHash, keys.privateKey), g.publicKeyFingerprint)], { userId: 'wallet-user', waitForAllocation: false }),
    );
    expect(r.status, r.text).toBe(200);
    expect(env.engine.users.rights('wallet-user')).toEqual([{ kind: 'CanActAs', party: g.partyId }]);
  });

  it('accepts per-transaction signatures instead of the multi-hash signature', async () => {
    const env = setup();
    const keys = createKeyPair();
    const g = await generate(env, keys.publicKey);
    const tx = g.topologyTransactions[0]!;
    const txHash = topologyTransactionHash(Buffer.from(tx, 'base64')).toString('base64');
    const r = await env.call('POST', '/v2/parties/external/allocate', {
      synchronizer: env.engine.synchronizerId,
      onboardingTransactions: [{ transaction: tx, signatures: [multiSig(signTransactionHash(txHash, keys.privateKey), g.publicKeyFingerprint)] }],
    });
    expect(r.status, r.text).toBe(200);
    expect(env.engine.parties.isLocal(g.partyId)).toBe(true);
  });

  it('accepts an ECDSA P-256 key (DER SPKI) with a DER signature', async () => {
    const env = setup();
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const der = publicKey.export({ format: 'der', type: 'spki' });
    const g = await generate(env, der.toString('base64'), {
      publicKey: { format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO', keyData: der.toString('base64'), keySpec: 'SIGNING_KEY_SPEC_EC_P256' },
    });
    expect(g.publicKeyFingerprint).toBe(fingerprintOf(der));
    const signature = nodeSign('sha256', Buffer.from(g.multiHash, 'base64'), { key: privateKey, dsaEncoding: 'der' }).toString('base64');
    const r = await env.call(
      'POST',
      '/v2/parties/external/allocate',
      allocateBody(env, g.topologyTransactions, [{ format: 'SIGNATURE_FORMAT_DER', signature, signedBy: g.publicKeyFingerprint, signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256' }]),
    );
    expect(r.status, r.text).toBe(200);
    expect(env.engine.externalParties.get(g.partyId)?.keys[0]?.spec).toBe('SIGNING_KEY_SPEC_EC_P256');
  });

  it('accepts the legacy form: root NamespaceDelegation + PartyToKeyMapping + PartyToParticipant', async () => {
    const env = setup();
    const keys = createKeyPair();
    const raw = Buffer.from(keys.publicKey, 'base64');
    const ns = fingerprintOf(raw);
    const key = { format: 4, publicKey: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]), usage: [1, 5, 4], keySpec: 1, scheme: 0 };
    const party = `carol::${ns}`;
    const txs: TopologyTransaction[] = [
      { operation: 1, serial: 1, mapping: { kind: 'NamespaceDelegation', namespace: ns, targetKey: key, isRootDelegation: true, restriction: 'canSignAllMappings' } },
      { operation: 1, serial: 1, mapping: { kind: 'PartyToKeyMapping', party, threshold: 1, signingKeys: [key] } },
      {
        operation: 1,
        serial: 1,
        mapping: { kind: 'PartyToParticipant', party, threshold: 1, participants: [{ participantUid: env.engine.participantId, permission: 2, onboarding: false }], partySigningKeys: undefined },
      },
    ];
    const bytes = txs.map(encodeTopologyTransaction);
    const multiHash = combinedTopologyHash(bytes.map(topologyTransactionHash)).toString('base64');
    const r = await env.call('POST', '/v2/parties/external/allocate', allocateBody(env, bytes.map((b) => b.toString('base64')), [multiSig(signTransactionHash(multiHash, keys.privateKey), ns)]));
    expect(r.status, r.text).toBe(200);
    expect(AllocateExternalPartyResponseSchema.parse(r.json).partyId).toBe(party);
    expect(env.engine.externalParties.get(party)?.keys.map((k) => k.fingerprint)).toEqual([ns]);
  });

  describe('rejections change nothing', () => {
    async function expectRejected(env: Env, body: unknown, status: number, code: string, cause?: RegExp, token?: string) {
      const before = env.snapshot();
      const r = await env.call('POST', '/v2/parties/external/allocate', body, token);
      expect(r.status, r.text).toBe(status);
      expect(r.json, r.text).toMatchObject({ code });
      if (cause) expect(cantonError(r.json).cause).toMatch(cause);
      expect(env.snapshot()).toBe(before);
    }

    it('a signature by another key (not the party key): redacted 400', async () => {
      const env = setup();
      const keys = createKeyPair();
      const intruder = createKeyPair();
      const g = await generate(env, keys.publicKey);
      const intruderFp = fingerprintOf(Buffer.from(intruder.publicKey, 'base64'));
      await expectRejected(env, allocateBody(env, g.topologyTransactions, [multiSig(signTransactionHash(g.multiHash, intruder.privateKey), intruderFp)]), 400, 'NA');
    });

    it('a bad signature by the party key: redacted 400', async () => {
      const env = setup();
      const keys = createKeyPair();
      const g = await generate(env, keys.publicKey);
      const wrongData = cantonHash(55, Buffer.from('something else')).toString('base64');
      await expectRejected(env, allocateBody(env, g.topologyTransactions, [multiSig(signTransactionHash(wrongData, keys.privateKey), g.publicKeyFingerprint)]), 400, 'NA');
    });

    it('a tampered transaction (signature no longer covers it): redacted 400', async () => {
      const env = setup();
      const keys = createKeyPair();
      const g = await generate(env, keys.publicKey);
      const sig = multiSig(signTransactionHash(g.multiHash, keys.privateKey), g.publicKeyFingerprint);
      const other = await generate(env, keys.publicKey, { partyHint: 'mallory' });
      await expectRejected(env, allocateBody(env, other.topologyTransactions, [sig]), 400, 'NA');
    });

    it('no signature at all: redacted 400', async () => {
      const env = setup();
      const g = await generate(env, createKeyPair().publicKey);
      await expectRejected(env, allocateBody(env, g.topologyTransactions, []), 400, 'NA');
    });

    it('a party to be hosted on another participant', async () => {
      const env = setup();
      const elsewhere = setup('another-node');
      const keys = createKeyPair();
      const g = await generate(elsewhere, keys.publicKey);
      await expectRejected(
        env,
        allocateBody(env, g.topologyTransactions, [multiSig(signTransactionHash(g.multiHash, keys.privateKey), g.publicKeyFingerprint)]),
        400,
        'INVALID_ARGUMENT',
        /hosted on a single participant \(PAR::participant1::.*\) that is not this participant/,
      );
    });

    it('a replay of an allocation', async () => {
      const env = setup();
      const { g, r, keys } = await onboard(env);
      expect(r.status).toBe(200);
      await expectRejected(
        env,
        allocateBody(env, g.topologyTransactions, [multiSig(signTransactionHash(g.multiHash, keys.privateKey), g.publicKeyFingerprint)]),
        400,
        'INVALID_ARGUMENT',
        /Party already exists: party alice::1220[0-9a-f]{8}\.\.\. is already allocated on this node/,
      );
    });

    it('a multi-hosted party waits for its other hosting participant: accepted, but not yet a party here', async () => {
      const env = setup();
      const keys = createKeyPair();
      const g = await generate(env, keys.publicKey, { otherConfirmingParticipantUids: [`participant2::1220${'ab'.repeat(32)}`] });
      const sig = multiSig(signTransactionHash(g.multiHash, keys.privateKey), g.publicKeyFingerprint);
      const before = env.snapshot();
      const r = await env.call('POST', '/v2/parties/external/allocate', allocateBody(env, g.topologyTransactions, [sig]));
      expect(r.status, r.text).toBe(200);
      expect(r.json).toEqual({ partyId: g.partyId });
      expect(env.snapshot()).toBe(before);
      const listed = await env.call('GET', `/v2/parties/${encodeURIComponent(g.partyId)}`);
      expect(listed.json).toEqual({ partyDetails: [] });
      // A different mapping of the same party while the first waits is refused.
      const other = await generate(env, keys.publicKey, { observingParticipantUids: [`participant3::1220${'cd'.repeat(32)}`] });
      const otherSig = multiSig(signTransactionHash(other.multiHash, keys.privateKey), other.publicKeyFingerprint);
      await expectRejected(env, allocateBody(env, other.topologyTransactions, [otherSig]), 400, 'INVALID_ARGUMENT', /A different PartyToParticipant mapping/);
    });

    it('malformed requests', async () => {
      const env = setup();
      const keys = createKeyPair();
      const g = await generate(env, keys.publicKey);
      const sig = multiSig(signTransactionHash(g.multiHash, keys.privateKey), g.publicKeyFingerprint);
      await expectRejected(env, allocateBody(env, ['AAEC'], [sig]), 400, 'INVALID_FIELD', /onboarding_transactions.transaction: Invalid transaction/);
      await expectRejected(env, allocateBody(env, [], [sig]), 400, 'INVALID_FIELD', /Transactions field is empty/);
      await expectRejected(env, allocateBody(env, g.topologyTransactions, [sig], { synchronizer: `x::1220${'00'.repeat(32)}` }), 400, 'INVALID_ARGUMENT', /not connected to the requested synchronizer/);
      await expectRejected(env, allocateBody(env, g.topologyTransactions, [sig], { synchronizer: '' }), 400, 'MISSING_FIELD', /synchronizer/);
      await expectRejected(env, allocateBody(env, g.topologyTransactions, [{ ...sig, format: 'SIGNATURE_FORMAT_UNSPECIFIED' }]), 400, 'MISSING_FIELD', /format/);
      await expectRejected(env, allocateBody(env, g.topologyTransactions, [sig], { userId: 'ghost' }), 404, 'USER_NOT_FOUND');
      const serial2 = encodeTopologyTransaction({
        operation: 1,
        serial: 2,
        mapping: { kind: 'PartyToKeyMapping', party: g.partyId, threshold: 1, signingKeys: [{ format: 4, publicKey: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(keys.publicKey, 'base64')]), usage: [4], keySpec: 1, scheme: 0 }] },
      });
      await expectRejected(env, allocateBody(env, [serial2.toString('base64')], [sig]), 400, 'INVALID_FIELD', /Onboarding transaction serial must be 1/);
    });

    it('onboarding transactions that do not form one party on this participant', async () => {
      const env = setup();
      const keys = createKeyPair();
      const raw = Buffer.from(keys.publicKey, 'base64');
      const ns = fingerprintOf(raw);
      const key = { format: 4, publicKey: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]), usage: [1, 5, 4], keySpec: 1, scheme: 0 };
      const party = `dora::${ns}`;
      const here = [{ participantUid: env.engine.participantId, permission: 2, onboarding: false }];
      const nsd = (isRootDelegation: boolean): TopologyTransaction => ({
        operation: 1,
        serial: 1,
        mapping: { kind: 'NamespaceDelegation', namespace: ns, targetKey: key, isRootDelegation, restriction: 'none' },
      });
      const ptk: TopologyTransaction = { operation: 1, serial: 1, mapping: { kind: 'PartyToKeyMapping', party, threshold: 1, signingKeys: [key] } };
      const ptp = (threshold: number, withKeys: boolean): TopologyTransaction => ({
        operation: 1,
        serial: 1,
        mapping: { kind: 'PartyToParticipant', party, threshold, participants: here, partySigningKeys: withKeys ? { keys: [key], threshold: 1 } : undefined },
      });
      const signedBody = (txs: TopologyTransaction[]) => {
        const bytes = txs.map(encodeTopologyTransaction);
        const multiHash = combinedTopologyHash(bytes.map(topologyTransactionHash)).toString('base64');
        return allocateBody(env, bytes.map((b) => b.toString('base64')), [multiSig(signTransactionHash(multiHash, keys.privateKey), ns)]);
      };
      await expectRejected(env, signedBody([nsd(false), ptk, ptp(1, false)]), 400, 'INVALID_ARGUMENT', /NamespaceDelegation is not a root namespace/);
      await expectRejected(env, signedBody([nsd(true), ptk, ptp(1, true)]), 400, 'INVALID_ARGUMENT', /either in the PartyToParticipant or in a PartyToKeyMapping transaction\. Not in both/);
      await expectRejected(env, signedBody([ptp(1, true), ptp(1, true)]), 400, 'INVALID_ARGUMENT', /Only one transaction of type PartyToParticipant can be provided, got 2/);
      await expectRejected(env, signedBody([nsd(true), ptk]), 400, 'INVALID_ARGUMENT', /One transaction of type PartyToParticipant must be provided, got 0/);
      await expectRejected(env, signedBody([ptp(2, true)]), 400, 'INVALID_FIELD', /cannot meet threshold of 2 confirming participants/);
      // the same legacy set with a root delegation is fine
      const ok = await env.call('POST', '/v2/parties/external/allocate', signedBody([nsd(true), ptk, ptp(1, false)]));
      expect(ok.status, ok.text).toBe(200);
    });

    it('authorization: a user may only allocate for itself', async () => {
      const env = setup();
      env.table.set('alice-user', userClaims('alice-user'));
      const keys = createKeyPair();
      const g = await generate(env, keys.publicKey);
      const sig = multiSig(signTransactionHash(g.multiHash, keys.privateKey), g.publicKeyFingerprint);
      await expectRejected(env, allocateBody(env, g.topologyTransactions, [sig]), 403, 'NA', undefined, 'alice-user');
    });
  });

  it('engine: the signature errors carry the topology manager codes', async () => {
    const env = setup();
    const keys = createKeyPair();
    const intruder = createKeyPair();
    const g = await generate(env, keys.publicKey);
    const input = (sig: ReturnType<typeof multiSig>) => ({
      synchronizer: env.engine.synchronizerId,
      onboardingTransactions: g.topologyTransactions.map((transaction) => ({ transaction, signatures: [] })),
      multiHashSignatures: [sig],
    });
    const codeOf = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e instanceof LedgerApiError ? e.code : String(e);
      }
      return 'no error';
    };
    const badSig = multiSig(signTransactionHash(cantonHash(55, Buffer.from('x')).toString('base64'), keys.privateKey), g.publicKeyFingerprint);
    expect(codeOf(() => allocateExternalParty(env.engine, input(badSig), { identityProviderId: '' }))).toBe('INVALID_TOPOLOGY_TX_SIGNATURE_ERROR');
    const byIntruder = multiSig(signTransactionHash(g.multiHash, intruder.privateKey), fingerprintOf(Buffer.from(intruder.publicKey, 'base64')));
    expect(codeOf(() => allocateExternalParty(env.engine, input(byIntruder), { identityProviderId: '' }))).toBe('UNAUTHORIZED_TOPOLOGY_TRANSACTION');
  });
});
