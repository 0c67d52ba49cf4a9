/**
 * Text, party and contract-id builtins (daml-lf-2.rst, "String functions", "Party functions",
 * "ContractId functions"). Texts are sequences of Unicode code points: EXPLODE and the code point
 * conversions work on code points, never on UTF-16 code units.
 */
import type { FunV } from '../../lf-value/runtime-value.js';
import { expect, fun, int64, list, NONE, party, some, text } from '../../lf-value/runtime-value.js';
import { failure } from './errors.js';

export const appendText: FunV = fun(2, (args) => text(expect(args[0]!, 'text').value + expect(args[1]!, 'text').value), 'APPEND_TEXT');

/** One text per code point (a surrogate pair stays together). */
export const explodeText: FunV = fun(1, (args) => list(Array.from(expect(args[0]!, 'text').value, (c) => text(c))), 'EXPLODE_TEXT');

export const implodeText: FunV = fun(1, (args) => text(expect(args[0]!, 'list').items.map((t) => expect(t, 'text').value).join('')), 'IMPLODE_TEXT');

export const textToCodePoints: FunV = fun(1, (args) => {
  const t = expect(args[0]!, 'text').value;
  return list(Array.from(t, (c) => int64(BigInt(c.codePointAt(0)!))));
}, 'TEXT_TO_CODE_POINTS');

/**
 * Code points to text: each must be a Unicode scalar value (0..0xD7FF or 0xE000..0x10FFFF); any
 * other number is a runtime error (Speedy: "invalid code point 0x…", the number in 64-bit hex).
 */
export const codePointsToText: FunV = fun(1, (args) => {
  let out = '';
  for (const item of expect(args[0]!, 'list').items) {
    const cp = expect(item, 'int64').value;
    const valid = (cp >= 0n && cp < 0xd800n) || (cp > 0xdfffn && cp <= 0x10ffffn);
    if (!valid) failure(`invalid code point 0x${BigInt.asUintN(64, cp).toString(16)}.`);
    out += String.fromCodePoint(Number(cp));
  }
  return text(out);
}, 'CODE_POINTS_TO_TEXT');

export const partyToText: FunV = fun(1, (args) => text(expect(args[0]!, 'party').value), 'PARTY_TO_TEXT');

/** Party id strings: 1 to 255 ASCII letters, digits, `:`, `-`, `_` and spaces (LF's `PartyIdString`). */
const PARTY_ID = /^[A-Za-z0-9:\-_ ]{1,255}$/;

export const textToParty: FunV = fun(1, (args) => {
  const t = expect(args[0]!, 'text').value;
  return PARTY_ID.test(t) ? some(party(t)) : NONE;
}, 'TEXT_TO_PARTY');

/** Always `None` in ledger code (daml-lf-2.rst); only off-ledger code (scripts) sees the text. */
export const contractIdToText: FunV = fun(1, (args) => {
  expect(args[0]!, 'contractId');
  return NONE;
}, 'CONTRACT_ID_TO_TEXT');
