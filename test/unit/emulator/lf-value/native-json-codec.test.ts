/**
 * The shared LF value normaliser (lf-value/native-json-codec.ts) on the types the token-standard
 * descriptions added: Date, and the recursive `AnyValue` variant of a choice context.
 */
import { describe, expect, it } from 'vitest';
import { ArgumentError } from '../../../../src/emulator/participant/templates.js';
import { normalize } from '../../../../src/emulator/lf-value/native-json-codec.js';
import { TokenStandardTypes } from '../../../../src/emulator/templates/token-standard.js';

describe('normalize', () => {
  it('reads a Date as a real calendar day and rejects anything else', () => {
    expect(normalize('date', '2024-02-29', 'd')).toBe('2024-02-29');
    expect(() => normalize('date', '2023-02-29', 'd')).toThrow(ArgumentError);
    expect(() => normalize('date', '2024-02-29T00:00:00Z', 'd')).toThrow('d: expected a Date (yyyy-mm-dd), got "2024-02-29T00:00:00Z"');
    expect(() => normalize('date', 20240229, 'd')).toThrow(ArgumentError);
    // Daml's Date range starts at 0001-01-01: the years 1-99 are years, not 1901-1999
    expect(normalize('date', '0050-06-01', 'd')).toBe('0050-06-01');
    expect(normalize('date', '0001-01-01', 'd')).toBe('0001-01-01');
    expect(normalize('date', '0004-02-29', 'd')).toBe('0004-02-29');
    expect(() => normalize('date', '0000-01-01', 'd')).toThrow('d: expected a Date (yyyy-mm-dd), got "0000-01-01"');
    expect(() => normalize('date', '2024-13-01', 'd')).toThrow(ArgumentError);
  });

  it('reads an Int64 in Long.parseLong syntax, as Canton does: an optional sign, decimal digits', () => {
    expect(normalize('int', '+5', 'n')).toBe('5');
    expect(normalize('int', '-5', 'n')).toBe('-5');
    expect(normalize('int', 7, 'n')).toBe('7');
    expect(() => normalize('int', ' 5', 'n')).toThrow('n: expected an Int64, got " 5"');
    expect(() => normalize('int', '5.0', 'n')).toThrow(ArgumentError);
    expect(() => normalize('int', '9223372036854775808', 'n')).toThrow('n: 9223372036854775808 is out of bounds for Int64');
  });

  it('reads nested AnyValues (AV_List, AV_Map) to the canonical JSON, and rejects an unknown constructor', () => {
    const ctx = {
      values: {
        b: { tag: 'AV_List', value: [{ tag: 'AV_Decimal', value: '1.5' }, { tag: 'AV_Int', value: 7 }] },
        a: { tag: 'AV_Map', value: { k: { tag: 'AV_Date', value: '2026-01-31' } } },
      },
    };
    expect(normalize(TokenStandardTypes.ChoiceContext, ctx, 'context')).toEqual({
      values: {
        a: { tag: 'AV_Map', value: { k: { tag: 'AV_Date', value: '2026-01-31' } } },
        b: { tag: 'AV_List', value: [{ tag: 'AV_Decimal', value: '1.5000000000' }, { tag: 'AV_Int', value: '7' }] },
      },
    });
    expect(() => normalize(TokenStandardTypes.ChoiceContext, { values: { x: { tag: 'AV_Float', value: 1 } } }, 'context')).toThrow(
      'context.values.x: expected a variant with tag one of AV_Text, AV_Int, AV_Decimal, AV_Bool, AV_Date, AV_Time, AV_RelTime, AV_Party, AV_ContractId, AV_List, AV_Map, got "AV_Float"',
    );
  });
});
