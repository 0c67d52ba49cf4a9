/**
 * A party's signing keys as a JWKS (Canton 3.6's JOSE service, for self-signed party JWTs).
 *
 * Canton (digital-asset/canton: community/ledger/ledger-api-core/.../apiserver/services/ApiJoseService.scala)
 * parses the synchronizer id and the party id (INVALID_ARGUMENT "Unable to convert field ..."),
 * answers SYNCHRONIZER_NOT_FOUND for a synchronizer the participant is not connected to and
 * PARTY_SIGNING_KEYS_NOT_FOUND for a party without signing keys in the synchronizer's topology, and
 * returns the keys whose usage includes Protocol, each as the JWK of
 * community/base/.../crypto/provider/jce/JceJwks.scala (P-256 ES256, P-384 ES384, Ed25519 EdDSA,
 * secp256k1 ES256K; `kid` the RFC 7638 thumbprint: SHA-256 over the compact JSON of the sorted
 * required members, base64url).
 *
 * Known limitations: the emulator records no key usages for party keys, so every key of the party's
 * party-to-key mapping is returned (the keys that sign its prepared transactions); only external
 * parties have signing keys here (a local party is PARTY_SIGNING_KEYS_NOT_FOUND, as its keys are the
 * participant's on Canton and it has no party-to-key mapping).
 */
import { calculateJwkThumbprint, type JWK } from 'jose';
import { LedgerApiError, errors } from '../../canton/errors.js';
import type { GetJwksResponse, Jwk } from '../../ledger-client/schemas/jose.js';
import type { LedgerEngine } from './engine.js';
import type { SigningKeySpec, SigningPublicKey } from './external-parties.js';
import { partyStringError } from './object-meta.js';
import { parseUid } from './topology/unique-identifiers.js';

const ALG: Record<SigningKeySpec, Jwk['alg']> = {
  SIGNING_KEY_SPEC_EC_CURVE25519: 'EdDSA',
  SIGNING_KEY_SPEC_EC_P256: 'ES256',
  SIGNING_KEY_SPEC_EC_P384: 'ES384',
  SIGNING_KEY_SPEC_EC_SECP256K1: 'ES256K',
};

/** The JWKS of `party` on `synchronizerId`, or Canton's error. */
export async function partyJwks(engine: LedgerEngine, synchronizerId: string, party: string): Promise<GetJwksResponse> {
  const sync = parseUid(synchronizerId);
  if (typeof sync === 'string') throw errors.invalidArgument(`Unable to convert field \`synchronizerId\`: ${sync}`);
  const partyErr = partyStringError(party) ?? uidError(parseUid(party));
  if (partyErr !== undefined) throw errors.invalidArgument(`Unable to convert field \`partyId\`: ${partyErr}`);
  if (synchronizerId !== engine.synchronizerId) {
    throw new LedgerApiError('SYNCHRONIZER_NOT_FOUND', 'Could not find synchronizer.', { resources: [['SYNCHRONIZER_ID', synchronizerId]] });
  }
  const rec = engine.externalParties.get(party);
  if (!rec) {
    throw new LedgerApiError('PARTY_SIGNING_KEYS_NOT_FOUND', 'Could not find signing keys for the requested party.', { resources: [['PARTY', party]] });
  }
  return { keys: await Promise.all(rec.keys.map(jwkOf)) };
}

function uidError(parsed: ReturnType<typeof parseUid>): string | undefined {
  return typeof parsed === 'string' ? parsed : undefined;
}

/**
 * JceJwks.toJwk: the public key's coordinates as node exports them (RFC 7517/7518/8037/8812 forms);
 * `kid` is the RFC 7638 thumbprint of the required members, by jose (`calculateJwkThumbprint`, in
 * panva/jose `src/jwk/thumbprint.ts`), given the members checked here rather than the key object,
 * which it would export again.
 */
export async function jwkOf(key: SigningPublicKey): Promise<Jwk> {
  const exported = key.key.export({ format: 'jwk' });
  const crv = exported.crv;
  const x = exported.x;
  if ((exported.kty !== 'EC' && exported.kty !== 'OKP') || x === undefined) throw new Error(`key ${key.fingerprint} has no JWK form`);
  if (crv !== 'P-256' && crv !== 'P-384' && crv !== 'Ed25519' && crv !== 'secp256k1') throw new Error(`key ${key.fingerprint}: unsupported curve ${String(crv)}`);
  const members: JWK = exported.kty === 'EC' && exported.y !== undefined ? { crv, kty: exported.kty, x, y: exported.y } : { crv, kty: exported.kty, x };
  const jwk: Jwk = { kty: exported.kty, alg: ALG[key.spec], kid: await calculateJwkThumbprint(members, 'sha256'), use: 'sig', crv, x };
  if (exported.kty === 'EC' && exported.y !== undefined) jwk.y = exported.y;
  return jwk;
}
