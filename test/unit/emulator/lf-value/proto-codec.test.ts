/**
 * The protobuf Value of a prepared transaction built from canonical JSON (lf-value/proto-codec.ts),
 * typed by a native template's description.
 */
import { describe, expect, it } from 'vitest';
import { nativeTypedValue } from '../../../../src/emulator/lf-value/proto-codec.js';
import { TokenStandardTypes } from '../../../../src/emulator/templates/token-standard.js';

describe('nativeTypedValue', () => {
  it('encodes a Date as days since the epoch and an AnyValue list as variants of its elements', () => {
    expect(nativeTypedValue('date', '1970-01-11')).toEqual({ kind: 'date', value: 10 });
    expect(nativeTypedValue(TokenStandardTypes.AnyValue, { tag: 'AV_List', value: [{ tag: 'AV_Text', value: '42' }] })).toEqual({
      kind: 'variant',
      constructor: 'AV_List',
      value: { kind: 'list', elements: [{ kind: 'variant', constructor: 'AV_Text', value: { kind: 'text', value: '42' } }] },
    });
  });
});
