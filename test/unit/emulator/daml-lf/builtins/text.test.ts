import { describe, expect, it } from 'vitest';
import { contractId, int64, list, NONE, party, some, text } from '../../../../../src/emulator/lf-value/runtime-value.js';
import { call, failureOf, i, t } from './helpers.js';

const ASTRAL = '\u{1F600}'; // 😀, a surrogate pair in UTF-16

describe('text builtins (daml-lf-2.rst "String functions")', () => {
  it('APPEND_TEXT and IMPLODE_TEXT concatenate', () => {
    expect(call('APPEND_TEXT', t('foo'), t('bar'))).toEqual(text('foobar'));
    expect(call('IMPLODE_TEXT', list([t('a'), t(ASTRAL), t(''), t('bc')]))).toEqual(text(`a${ASTRAL}bc`));
    expect(call('IMPLODE_TEXT', list([]))).toEqual(text(''));
  });

  it('EXPLODE_TEXT splits into code points, keeping surrogate pairs whole', () => {
    expect(call('EXPLODE_TEXT', t(`a${ASTRAL}é`))).toEqual(list([t('a'), t(ASTRAL), t('é')]));
    expect(call('EXPLODE_TEXT', t(''))).toEqual(list([]));
  });

  it('TEXT_TO_CODE_POINTS and CODE_POINTS_TO_TEXT convert code points, not UTF-16 units', () => {
    expect(call('TEXT_TO_CODE_POINTS', t(`a${ASTRAL}`))).toEqual(list([int64(97n), int64(0x1f600n)]));
    expect(call('CODE_POINTS_TO_TEXT', list([i(97), i(0x1f600), i(0), i(0xd7ff), i(0xe000), i(0x10ffff)]))).toEqual(
      text(`a${ASTRAL}\u0000\ud7ff\ue000\u{10ffff}`),
    );
  });

  it('CODE_POINTS_TO_TEXT rejects surrogates and numbers outside Unicode', () => {
    expect(failureOf(() => call('CODE_POINTS_TO_TEXT', list([i(0xd800)])))).toEqual({ kind: 'other', message: 'invalid code point 0xd800.' });
    expect(failureOf(() => call('CODE_POINTS_TO_TEXT', list([i(0xdfff)])))).toEqual({ kind: 'other', message: 'invalid code point 0xdfff.' });
    expect(failureOf(() => call('CODE_POINTS_TO_TEXT', list([i(0x110000)])))).toEqual({ kind: 'other', message: 'invalid code point 0x110000.' });
    expect(failureOf(() => call('CODE_POINTS_TO_TEXT', list([i(-1)])))).toEqual({ kind: 'other', message: 'invalid code point 0xffffffffffffffff.' });
  });
});

describe('party and contract id builtins', () => {
  it('PARTY_TO_TEXT and TEXT_TO_PARTY are inverse on party id strings', () => {
    const p = 'Alice::1220' + 'ab'.repeat(32);
    expect(call('PARTY_TO_TEXT', party(p))).toEqual(text(p));
    expect(call('TEXT_TO_PARTY', t(p))).toEqual(some(party(p)));
    expect(call('TEXT_TO_PARTY', t('a b-c_d:e'))).toEqual(some(party('a b-c_d:e')));
    expect(call('TEXT_TO_PARTY', t('x'.repeat(255)))).toEqual(some(party('x'.repeat(255))));
    for (const bad of ['', 'x'.repeat(256), 'a/b', 'é', 'a.b', 'tab\t']) expect(call('TEXT_TO_PARTY', t(bad))).toEqual(NONE);
  });

  it('CONTRACT_ID_TO_TEXT is None in ledger code; COERCE_CONTRACT_ID is the identity', () => {
    const cid = contractId('00' + 'cd'.repeat(69));
    expect(call('CONTRACT_ID_TO_TEXT', cid)).toEqual(NONE);
    expect(call('COERCE_CONTRACT_ID', cid)).toBe(cid);
  });
});
