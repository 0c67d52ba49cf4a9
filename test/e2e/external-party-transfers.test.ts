/**
 * End to end: the official wallet SDK (@canton-network/wallet-sdk@1.4.0), unchanged, drives
 * EXTERNAL parties on the emulated stack over real sockets with LocalNet's JWT auth (HS256
 * `unsafe`, audience `https://canton.network.global`, the SDK's `self_signed` tokens):
 *
 *  - two external parties are created with keys generated here (`sdk.party.external.create(pub)
 *    .sign(priv).execute()`: generate-topology, a signature over the multi-hash, allocate, then
 *    the SDK grants its user CanActAs);
 *  - every command of theirs goes through interactive submission (`sdk.ledger.prepare(...)
 *    .sign(priv).execute(...)`: prepare, an Ed25519 signature over `preparedTransactionHash`,
 *    executeAndWait);
 *  - Canton Coin is tapped to them; TT1, TT2-USD and Canton Coin move between them through the
 *    registries' factories (offer then accept), and Canton Coin directly once the receiver has a
 *    transfer pre-approval;
 *  - an offline-signing flow recomputes the hash locally with two independent implementations
 *    (core-tx-visualizer and the SDK's own encoder) before signing;
 *  - Canton 3.6's look-ups: an executed hash finds its update and completion, and the JWKS of an
 *    external party holds its key;
 *  - the rejections: a signature by another key, a tampered prepared transaction, no signature,
 *    a second execute of the same prepared transaction; each is Canton's error and changes
 *    nothing (same ledger end).
 *
 * The SDK's user is `ledger-api-user` (ParticipantAdmin on LocalNet and here), as in the SDK's
 * own LocalNet examples; alice is an ordinary local party of the demo world with her own user.
 */
import { isJsCantonError } from '@canton-network/core-ledger-client';
import { PreparedTransaction as ProtoPreparedTransaction } from '@canton-network/core-ledger-proto';
import { decodePreparedTransaction, hashPreparedTransaction } from '@canton-network/core-tx-visualizer';
import { signTransactionHash } from '@canton-network/wallet-sdk';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type RunningStack } from '../../src/stack.js';
import { amuletUrls, createAmuletSdk } from './support/amulet.js';
import { balanceOf, plus } from './support/wallet-sdk.js';

const ADMIN_USER = 'ledger-api-user';

function createSdk(stack: RunningStack, userId: string) {
  const registry = amuletUrls(stack).registry;
  return createAmuletSdk(stack, userId, { viaValidator: true, registry, tokenRegistries: [stack.registryUrl!, registry] });
}
type Sdk = Awaited<ReturnType<typeof createSdk>>;

interface ExternalParty {
  partyId: string;
  publicKey: string;
  privateKey: string;
  fingerprint: string;
}

describe('wallet SDK 1.4.0: external parties and interactive submission on the emulated stack (LocalNet JWT auth)', () => {
  let stack: RunningStack;
  let sdk: Sdk;
  let aliceSdk: Sdk;
  let alice: string;
  let admin: string;
  let dso: string;
  let ext1: ExternalParty;
  let ext2: ExternalParty;
  let registryUrl: URL;
  let amuletRegistryUrl: URL;

  beforeAll(async () => {
    stack = await startStack({
      config: { port: 0, logLevel: 'silent', auth: { mode: 'localnet' } },
      registryPort: 0,
      scanPort: 0,
      validatorPort: 0,
    });
    const party = (hint: string) => stack.seeded!.parties.find((p) => p.hint === hint)!.party;
    alice = party('alice');
    admin = party('token-admin');
    dso = stack.seeded!.amulet!.dso;
    registryUrl = new URL(stack.registryUrl!);
    amuletRegistryUrl = new URL(amuletUrls(stack).registry);
    [sdk, aliceSdk] = await Promise.all([createSdk(stack, ADMIN_USER), createSdk(stack, 'alice')]);
  });

  afterAll(async () => {
    await stack?.close();
  });

  /** `sdk.party.external.create(...).sign(...).execute()` with a fresh key pair. */
  async function createExternalParty(hint: string): Promise<ExternalParty> {
    const { publicKey, privateKey } = sdk.keys.generate();
    const fingerprint = await sdk.keys.fingerprint(publicKey);
    const created = await sdk.party.external.create(publicKey, { partyHint: hint }).sign(privateKey).execute();
    return { partyId: created.partyId, publicKey, privateKey, fingerprint };
  }

  /** prepare → sign → executeAndWait through the SDK, as an external party's wallet does. */
  async function submitAs(p: ExternalParty, commands: unknown, disclosedContracts: Disclosed[] = []) {
    return sdk.ledger.prepare({ partyId: p.partyId, commands, disclosedContracts }).sign(p.privateKey).execute({ partyId: p.partyId });
  }

  const ledgerEnd = () => sdk.ledger.ledgerEnd();

  it('creates two external parties: hint::fingerprint of their own key, listed by the node, the SDK user can act as them', async () => {
    ext1 = await createExternalParty('ext-one');
    ext2 = await createExternalParty('ext-two');
    for (const [p, hint] of [[ext1, 'ext-one'], [ext2, 'ext-two']] as const) {
      // The party id is computed from the key alone: the client's fingerprint equals the node's.
      expect(p.partyId).toBe(`${hint}::${p.fingerprint}`);
      expect(p.fingerprint).toMatch(/^1220[0-9a-f]{64}$/);
    }
    const listed = await sdk.party.list();
    expect(listed).toEqual(expect.arrayContaining([ext1.partyId, ext2.partyId]));
    const { rights = [] } = await sdk.user.rights.list();
    const actAs = rights.flatMap((r) => (r.kind && 'CanActAs' in r.kind ? [r.kind.CanActAs.value.party] : []));
    expect(actAs).toEqual(expect.arrayContaining([ext1.partyId, ext2.partyId]));
  });

  it('taps Canton Coin to both through interactive submission', async () => {
    for (const [p, amount] of [[ext1, '200'], [ext2, '50']] as const) {
      const [tap, disclosed] = await sdk.amulet.tap(p.partyId, amount);
      const done = await submitAs(p, tap, disclosed);
      expect(done.completionOffset).toBeGreaterThan(0);
    }
    expect((await balanceOf(sdk, ext1.partyId, { admin: dso, id: 'Amulet' })).unlocked).toBe('200');
    expect((await balanceOf(sdk, ext2.partyId, { admin: dso, id: 'Amulet' })).unlocked).toBe('50');
  });

  describe.each([
    { id: 'TT1', registry: () => registryUrl, instrumentAdmin: () => admin },
    { id: 'TT2-USD', registry: () => registryUrl, instrumentAdmin: () => admin },
    { id: 'Amulet', registry: () => amuletRegistryUrl, instrumentAdmin: () => dso },
  ])('$id between the two external parties through the registry (offer, accept)', (token) => {
    const instrument = () => ({ admin: token.instrumentAdmin(), id: token.id });

    it('funds ext1 (alice offers, ext1 accepts through interactive submission) unless already funded', async () => {
      if (token.id === 'Amulet') return; // tapped above
      const [offer, disclosed] = await aliceSdk.token.transfer.create({
        sender: alice,
        recipient: ext1.partyId,
        amount: '100',
        instrumentId: token.id,
        registryUrl: token.registry(),
      });
      await aliceSdk.ledger.internal.submit({ commands: [offer], actAs: [alice], disclosedContracts: disclosed });
      await acceptAll(ext1, token.id, token.registry());
      expect((await balanceOf(sdk, ext1.partyId, instrument())).unlocked).toBe('100');
    });

    it('ext1 offers 30 to ext2, ext2 accepts: both signed by their own keys only', async () => {
      const before1 = await balanceOf(sdk, ext1.partyId, instrument());
      const before2 = await balanceOf(sdk, ext2.partyId, instrument());
      const [offer, disclosed] = await sdk.token.transfer.create({
        sender: ext1.partyId,
        recipient: ext2.partyId,
        amount: '30',
        instrumentId: token.id,
        registryUrl: token.registry(),
        memo: `${token.id} from ext1`,
      });
      await submitAs(ext1, offer, disclosed);
      expect(await balanceOf(sdk, ext1.partyId, instrument())).toEqual({ unlocked: plus(before1.unlocked, '-30'), locked: plus(before1.locked, '30') });
      await acceptAll(ext2, token.id, token.registry());
      expect((await balanceOf(sdk, ext1.partyId, instrument())).locked).toBe(before1.locked);
      expect((await balanceOf(sdk, ext2.partyId, instrument())).unlocked).toBe(plus(before2.unlocked, '30'));
    });
  });

  /** Accepts every pending transfer instruction of `instrumentId` to `p`, each through interactive submission. */
  async function acceptAll(p: ExternalParty, instrumentId: string, registry: URL) {
    const pending = (await sdk.token.transfer.pending(p.partyId)).filter(
      (i) => i.interfaceViewValue.transfer.instrumentId.id === instrumentId && i.interfaceViewValue.transfer.receiver === p.partyId,
    );
    expect(pending.length).toBeGreaterThan(0);
    for (const i of pending) {
      const [accept, disclosed] = await sdk.token.transfer.accept({ transferInstructionCid: i.contractId, registryUrl: registry });
      await submitAs(p, accept, disclosed);
    }
  }

  it('Canton Coin direct: ext2 gets a pre-approval (its own signed proposal, accepted by the validator), then ext1 pays in one step', async () => {
    const proposal = await sdk.amulet.preapproval.command.create({ parties: { receiver: ext2.partyId } });
    await submitAs(ext2, proposal);
    const status = await sdk.amulet.preapproval.fetchStatus(ext2.partyId, { timeoutMs: 3_000, intervalMs: 100 });
    expect(status?.contractId).toBeTruthy();

    const cc = { admin: dso, id: 'Amulet' };
    const before2 = await balanceOf(sdk, ext2.partyId, cc);
    const [direct, disclosed] = await sdk.token.transfer.create({
      sender: ext1.partyId,
      recipient: ext2.partyId,
      amount: '12',
      instrumentId: 'Amulet',
      registryUrl: amuletRegistryUrl,
    });
    expect(disclosed.map((d) => d.contractId)).toContain(status!.contractId);
    await submitAs(ext1, direct, disclosed);
    expect((await balanceOf(sdk, ext2.partyId, cc)).unlocked).toBe(plus(before2.unlocked, '12'));
    expect(await sdk.token.transfer.pending(ext2.partyId)).toEqual([]);
  });

  describe('offline signing and rejections', () => {
    /** A prepared TT1 self-transfer of ext1 (its own holdings), not yet executed. */
    async function prepareSelfTransfer() {
      const [command, disclosed] = await sdk.token.transfer.create({
        sender: ext1.partyId,
        recipient: ext1.partyId,
        amount: '1',
        instrumentId: 'TT1',
        registryUrl,
      });
      return (await sdk.ledger.prepare({ partyId: ext1.partyId, commands: command, disclosedContracts: disclosed }).toJSON()).response;
    }

    it('offline: the hash recomputed locally by two independent implementations equals the node’s; signed offline, executed', async () => {
      const response = await prepareSelfTransfer();
      const local = await hashPreparedTransaction(response.preparedTransaction!, 'base64');
      expect(local).toBe(response.preparedTransactionHash);
      expect((await sdk.utils.hash.preparedTransaction(response.preparedTransaction!)).toBase64()).toBe(response.preparedTransactionHash);
      // What is signed is what the commands say: the transfer factory exercised by ext1.
      const decoded = decodePreparedTransaction(response.preparedTransaction!);
      expect(decoded.metadata?.submitterInfo?.actAs).toEqual([ext1.partyId]);
      const roots = decoded.transaction?.roots ?? [];
      expect(roots).toHaveLength(1);
      const root = decoded.transaction!.nodes.find((n) => n.nodeId === roots[0]);
      expect(JSON.stringify(root)).toContain('TransferFactory_Transfer');

      const signature = signTransactionHash(local, ext1.privateKey);
      const done = await sdk.ledger.fromSignature(response, signature).execute({ partyId: ext1.partyId });
      expect(done.completionOffset).toBeGreaterThan(0);
    });

    it('Canton 3.6 look-ups: the executed hash finds its update and its completion; the JWKS of ext1 holds its key', async () => {
      const response = await prepareSelfTransfer();
      const hash = response.preparedTransactionHash!;
      const done = await sdk.ledger.fromSignature(response, signTransactionHash(hash, ext1.privateKey)).execute({ partyId: ext1.partyId });
      const post = async (path: string, body: unknown) => {
        const r = await fetch(`${stack.ledgerUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${await adminToken()}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        return { status: r.status, body: (await r.json()) as unknown };
      };
      const updateFormat = {
        includeTransactions: { eventFormat: { filtersByParty: { [ext1.partyId]: { cumulative: [] } }, verbose: false }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' },
      };
      const update = await post('/v2/updates/update-by-hash', { transactionHash: hash, updateFormat });
      expect(update.status, JSON.stringify(update.body)).toBe(200);
      expect(update.body).toMatchObject({ update: { Transaction: { value: { updateId: done.updateId, offset: done.completionOffset, externalTransactionHash: hash } } } });
      const completion = await post('/v2/commands/completion-by-hash', { transactionHash: hash });
      expect(completion.status, JSON.stringify(completion.body)).toBe(200);
      expect(completion.body).toMatchObject({ acceptedCompletion: { updateId: done.updateId, offset: done.completionOffset, actAs: [ext1.partyId] }, lastRejectedCompletions: [] });
      // a hash never executed: Canton's NOT_FOUND errors, the hash in hex
      const unknown = Buffer.alloc(32, 1).toString('base64');
      expect(await post('/v2/commands/completion-by-hash', { transactionHash: unknown })).toMatchObject({ status: 404, body: { code: 'COMPLETION_NOT_FOUND', resources: [['TRANSACTION_HASH', '01'.repeat(32)]] } });

      // The party's key as a JWK (Ed25519: OKP, x = the raw public key in base64url).
      const synchronizerId = stack.engine.synchronizerId;
      const jwks = await fetch(`${stack.ledgerUrl}/v2/jose/jwks/synchronizer/${encodeURIComponent(synchronizerId)}/party/${encodeURIComponent(ext1.partyId)}`, {
        headers: { authorization: `Bearer ${await adminToken()}` },
      });
      expect(jwks.status).toBe(200);
      expect(await jwks.json()).toEqual({
        keys: [{ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', x: Buffer.from(ext1.publicKey, 'base64').toString('base64url'), kid: expect.any(String) }],
      });
    });

    it('rejects a signature by another key, a tampered transaction, no signature and a second execute; nothing changes', async () => {
      const response = await prepareSelfTransfer();
      const end = await ledgerEnd();

      // Signed by ext2's key, presented as ext1's.
      const byOther = await sdk.ledger
        .fromSignature(response, signTransactionHash(response.preparedTransactionHash, ext2.privateKey))
        .execute({ partyId: ext1.partyId })
        .catch((e: unknown) => e);
      expect(byOther).toMatchObject({ code: 'FAILED_TO_EXECUTE_TRANSACTION' });
      expect(await ledgerEnd()).toBe(end);

      const signedByExt1 = signTransactionHash(response.preparedTransactionHash, ext1.privateKey);
      // A hashed field changed after signing (re-encoded with the official protobuf bindings): the
      // node recomputes the hash from the bytes it receives, so ext1's signature no longer matches.
      const edited = decodePreparedTransaction(response.preparedTransaction!);
      edited.metadata!.submitterInfo!.commandId = `${edited.metadata!.submitterInfo!.commandId}-edited`;
      const reencoded = Buffer.from(ProtoPreparedTransaction.toBinary(edited)).toString('base64');
      const rejectedEdit = await sdk.ledger
        .fromSignature({ ...response, preparedTransaction: reencoded }, signedByExt1)
        .execute({ partyId: ext1.partyId })
        .catch((e: unknown) => e);
      expect(rejectedEdit).toMatchObject({ code: 'FAILED_TO_EXECUTE_TRANSACTION' });
      expect(await ledgerEnd()).toBe(end);

      // A byte of an input contract's event blob flipped: outside the V2 hash, so the signature
      // still holds, but the blob no longer authenticates the contract.
      const bytes = Buffer.from(response.preparedTransaction!, 'base64');
      bytes[bytes.length - 3] = bytes[bytes.length - 3]! ^ 0x01;
      const rejectedBlob = await sdk.ledger
        .fromSignature({ ...response, preparedTransaction: bytes.toString('base64') }, signedByExt1)
        .execute({ partyId: ext1.partyId })
        .catch((e: unknown) => e);
      expect(rejectedBlob).toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(await ledgerEnd()).toBe(end);

      // No signature at all (raw request: the SDK always signs).
      const unsigned = await fetch(`${stack.ledgerUrl}/v2/interactive-submission/executeAndWait`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await adminToken()}` },
        body: JSON.stringify({
          userId: ADMIN_USER,
          preparedTransaction: response.preparedTransaction,
          hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
          submissionId: crypto.randomUUID(),
          deduplicationPeriod: { Empty: {} },
          partySignatures: { signatures: [] },
        }),
      });
      expect(unsigned.status).toBe(400);
      expect(await unsigned.json()).toMatchObject({ code: 'FAILED_TO_EXECUTE_TRANSACTION' });
      expect(await ledgerEnd()).toBe(end);

      // Executed once with the right signature, then again: the second is rejected.
      const signed = sdk.ledger.fromSignature(response, signTransactionHash(response.preparedTransactionHash, ext1.privateKey));
      await signed.execute({ partyId: ext1.partyId });
      const afterFirst = await ledgerEnd();
      expect(afterFirst).toBeGreaterThan(end);
      const second = await signed.execute({ partyId: ext1.partyId }).catch((e: unknown) => e);
      expect(isJsCantonError(second)).toBe(true);
      expect(second).toMatchObject({ code: 'DUPLICATE_COMMAND' });
      expect(await ledgerEnd()).toBe(afterFirst);
    });
  });

  /** A LocalNet self-signed token for the admin user (what the SDK sends). */
  async function adminToken(): Promise<string> {
    return new SignJWT({ scope: '' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(ADMIN_USER)
      .setAudience('https://canton.network.global')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('unsafe'));
  }
});

interface Disclosed {
  templateId?: string;
  contractId?: string;
  createdEventBlob: string;
  synchronizerId?: string;
}
