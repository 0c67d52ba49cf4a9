import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FALSE, text, TRUE } from '../../../../../src/emulator/lf-value/runtime-value.js';
import { call, failureOf, t } from './helpers.js';

/** A secp256k1 key (DER SubjectPublicKeyInfo) and an ECDSA signature of SHA-256("hello daml"), made with node:crypto. */
const KEY =
  '3056301006072a8648ce3d020106052b8104000a0342000447a1d8f117d76e6b6694fc18e991819d8d5ccffb490b04d2a2b060271c69db1bfa022d6347ddc91ed7409424940ae43dc33d4f1e91f20750fa5c3a458b9a9876';
const MSG = Buffer.from('hello daml').toString('hex');
const DIGEST = 'c79acd149e8bb743638c9b418f327141fa152fb3951b9d8f7323a95f3e0df5e9';
const SIG =
  '30440220506a60a35fdca63573e1958ff92eac8da2cace131563321f9b178754062bc724022039814d8648c880b56c8d48658f00ecf376842ecfb2bc247bd7bc37647fe76e88';
const P256_KEY =
  '3059301306072a8648ce3d020106082a8648ce3d0301070342000459b1091d3cb0f5ccb16cea2f8fdcb5810190412fd8f34dcdd1a8828461bed3664b4ba035500183ed046f2e9405b6738662a8ee7190b2dd0852735cb6c2af74b6';

describe('hashes and hex', () => {
  it('SHA256_TEXT hashes the UTF-8 bytes, lowercase hex', () => {
    expect(call('SHA256_TEXT', t(''))).toEqual(text('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'));
    expect(call('SHA256_TEXT', t('é\u{1f600}'))).toEqual(text(createHash('sha256').update('é\u{1f600}', 'utf8').digest('hex')));
  });

  it('SHA256_HEX hashes the bytes a hex string encodes', () => {
    expect(call('SHA256_HEX', t(MSG))).toEqual(text(DIGEST));
    expect(failureOf(() => call('SHA256_HEX', t('ABCD')))).toEqual({ kind: 'other', message: 'Invalid byte encoding format for ABCD: can not parse hex string' });
    expect(failureOf(() => call('SHA256_HEX', t('abc')))).toMatchObject({ kind: 'other' });
  });

  it('KECCAK256_TEXT is Keccak-256 (Ethereum), not SHA3-256', () => {
    expect(call('KECCAK256_TEXT', t(''))).toEqual(text('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470'));
    expect(call('KECCAK256_TEXT', t('616263'))).toEqual(text('4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45'));
    expect(failureOf(() => call('KECCAK256_TEXT', t('xyz')))).toMatchObject({ kind: 'other' });
  });

  it('TEXT_TO_HEX and HEX_TO_TEXT convert through UTF-8', () => {
    expect(call('TEXT_TO_HEX', t('abc'))).toEqual(text('616263'));
    expect(call('TEXT_TO_HEX', t('\u{1f600}'))).toEqual(text('f09f9880'));
    expect(call('HEX_TO_TEXT', t('f09f9880'))).toEqual(text('\u{1f600}'));
    expect(call('HEX_TO_TEXT', t(''))).toEqual(text(''));
    expect(failureOf(() => call('HEX_TO_TEXT', t('0')))).toEqual({ kind: 'other', message: 'Invalid byte encoding format for 0: can not parse hex string argument' });
  });
});

describe('secp256k1 ECDSA', () => {
  it('SECP256K1_BOOL sig msg key verifies a signature of SHA-256(msg)', () => {
    expect(call('SECP256K1_BOOL', t(SIG), t(MSG), t(KEY))).toBe(TRUE);
    expect(call('SECP256K1_BOOL', t(SIG), t(MSG + '00'), t(KEY))).toBe(FALSE);
  });

  it('SECP256K1_WITH_ECDSA_BOOL sig digest key takes the digest as given', () => {
    expect(call('SECP256K1_WITH_ECDSA_BOOL', t(SIG), t(DIGEST), t(KEY))).toBe(TRUE);
    expect(call('SECP256K1_WITH_ECDSA_BOOL', t(SIG), t(MSG), t(KEY))).toBe(FALSE);
  });

  it('agrees with node:crypto on fresh keys and signatures', () => {
    for (let k = 0; k < 3; k++) {
      const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
      const key = publicKey.export({ format: 'der', type: 'spki' }).toString('hex');
      const msg = Buffer.from(`message ${k}`);
      const sig = sign('sha256', msg, privateKey).toString('hex');
      expect(call('SECP256K1_BOOL', t(sig), t(msg.toString('hex')), t(key))).toBe(TRUE);
      expect(call('SECP256K1_BOOL', t(sig), t(msg.toString('hex')), t(KEY))).toBe(FALSE);
    }
  });

  it('malformed hex, keys and signatures are failures', () => {
    expect(failureOf(() => call('SECP256K1_BOOL', t('zz'), t(MSG), t(KEY)))).toEqual({
      kind: 'other',
      message: 'Invalid byte encoding format for zz: can not parse signature hex string',
    });
    expect(failureOf(() => call('SECP256K1_BOOL', t(SIG), t('0'), t(KEY)))).toEqual({
      kind: 'other',
      message: 'Invalid byte encoding format for 0: can not parse message hex string',
    });
    expect(failureOf(() => call('SECP256K1_BOOL', t(SIG), t(MSG), t('KEY')))).toEqual({
      kind: 'other',
      message: 'Invalid byte encoding format for KEY: can not parse DER encoded public key hex string',
    });
    expect(failureOf(() => call('SECP256K1_BOOL', t(SIG), t(MSG), t('3000')))).toMatchObject({ kind: 'other', message: expect.stringMatching(/^Malformed public key for 3000: /) });
    expect(failureOf(() => call('SECP256K1_BOOL', t(SIG), t(MSG), t(P256_KEY)))).toMatchObject({ message: expect.stringMatching(/^Malformed public key/) });
    expect(failureOf(() => call('SECP256K1_BOOL', t('3000'), t(MSG), t(KEY)))).toEqual({
      kind: 'other',
      message: 'Malformed signature for 3000: error decoding signature bytes.',
    });
  });

  it('SECP256K1_VALIDATE_KEY accepts points on the curve only', () => {
    expect(call('SECP256K1_VALIDATE_KEY', t(KEY))).toBe(TRUE);
    const offCurve = KEY.slice(0, -2) + (KEY.endsWith('76') ? '77' : '76');
    expect(call('SECP256K1_VALIDATE_KEY', t(offCurve))).toBe(FALSE);
    expect(failureOf(() => call('SECP256K1_VALIDATE_KEY', t('xx')))).toMatchObject({ kind: 'other' });
  });
});
