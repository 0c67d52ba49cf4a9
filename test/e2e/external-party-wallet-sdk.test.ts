/**
 * End to end: the official wallet SDK (@canton-network/wallet-sdk 1.4.0) onboards an external
 * party on the emulated stack over real loopback HTTP (`startStack`, auth off):
 * `sdk.party.external.create(publicKey, { partyHint }).sign(privateKey).execute()` posts
 * generate-topology, signs the returned multiHash with tweetnacl Ed25519, checks whether the party
 * exists, posts allocate with the multi-hash signature, then waits for the party and grants its
 * own user CanActAs (POST /v2/users/{id}/rights).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type RunningStack } from '../../src/stack.js';
import { createWalletSdk, type WalletSdk } from './support/wallet-sdk.js';

describe('wallet SDK 1.4.0: external party onboarding against the emulated ledger', () => {
  let stack: RunningStack;
  let sdk: WalletSdk;

  beforeAll(async () => {
    stack = await startStack({ config: { port: 0, logLevel: 'silent' }, registryPort: 0 });
    sdk = await createWalletSdk(stack.ledgerUrl, stack.registryUrl!, 'alice');
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('creates, signs and executes: the party id is hint::<the SDK fingerprint of the key>', async () => {
    // keys.generate(): tweetnacl Ed25519, base64 (the SDK's createKeyPair)
    const { publicKey, privateKey } = sdk.keys.generate();
    const fingerprint = await sdk.keys.fingerprint(publicKey);
    expect(fingerprint).toMatch(/^1220[0-9a-f]{64}$/);

    const party = await sdk.party.external.create(publicKey, { partyHint: 'ext-wallet' }).sign(privateKey).execute();
    expect(party.partyId).toBe(`ext-wallet::${fingerprint}`);
    expect(party.publicKeyFingerprint).toBe(fingerprint);

    // The party is listed as hosted here, and the SDK's user got CanActAs on it.
    const listed = (await fetch(`${stack.ledgerUrl}/v2/parties?filter-party=ext-wallet`).then((r) => r.json())) as { partyDetails: unknown[] };
    expect(listed.partyDetails).toEqual([
      { party: party.partyId, isLocal: true, localMetadata: { resourceVersion: '0', annotations: {} }, identityProviderId: '' },
    ]);
    expect(stack.engine.users.rights('alice')).toContainEqual({ kind: 'CanActAs', party: party.partyId });
    // The participant now checks this party's submissions against its key.
    expect(stack.engine.externalParties.get(party.partyId)?.keys.map((k) => k.fingerprint)).toEqual([fingerprint]);

    // Executing again finds the party and does not allocate twice.
    const again = await sdk.party.external.create(publicKey, { partyHint: 'ext-wallet' }).sign(privateKey).execute({ grantUserRights: false });
    expect(again.partyId).toBe(party.partyId);
  }, 30_000);

  it('a signature by the wrong key is refused and nothing is allocated', async () => {
    const { publicKey } = sdk.keys.generate();
    const other = sdk.keys.generate();
    const before = stack.engine.parties.all().length;
    const attempt = sdk.party.external.create(publicKey, { partyHint: 'ext-wrong' }).sign(other.privateKey).execute({ grantUserRights: false });
    const error = await attempt.then(
      () => 'allocated',
      (e: unknown) => JSON.stringify(e, Object.getOwnPropertyNames(e ?? {})),
    );
    // UNAUTHORIZED_TOPOLOGY_TRANSACTION is an alarm (security-sensitive): the body is redacted.
    expect(error).toContain('A security-sensitive error has been received');
    expect(stack.engine.parties.all().length).toBe(before);
  }, 30_000);
});
