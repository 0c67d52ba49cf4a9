import { describe, expect, it } from 'vitest';
import { arithmeticErrorValue, builtinFunction } from '../../../../../src/emulator/daml-lf/builtins/index.js';
import type { AnyExceptionV, Value } from '../../../../../src/emulator/lf-value/runtime-value.js';
import { applyValue, expect as narrow, FALSE, fun, int64, list, NONE, some, text, TRUE } from '../../../../../src/emulator/lf-value/runtime-value.js';
import { call, failureOf, i, t } from './helpers.js';

const minus = fun(2, (a) => int64(narrow(a[0]!, 'int64').value - narrow(a[1]!, 'int64').value));

describe('folds and EQUAL_LIST (daml-lf-2.rst "List functions")', () => {
  it('FOLDL folds from the left, FOLDR from the right', () => {
    const xs = list([i(1), i(2), i(3)]);
    expect(call('FOLDL', minus, i(0), xs)).toEqual(int64(-6n)); // ((0-1)-2)-3
    expect(call('FOLDR', minus, i(0), xs)).toEqual(int64(2n)); // 1-(2-(3-0))
    expect(call('FOLDL', minus, i(7), list([]))).toEqual(int64(7n));
  });

  it('folds long lists without deep recursion', () => {
    const xs = list(Array.from({ length: 50_000 }, () => i(1)));
    const plus = fun(2, (a) => int64(narrow(a[0]!, 'int64').value + narrow(a[1]!, 'int64').value));
    expect(call('FOLDR', plus, i(0), xs)).toEqual(int64(50_000n));
  });

  it('accepts partially applied functions', () => {
    const add3 = fun(3, (a) => int64(a.reduce((s, v) => s + narrow(v, 'int64').value, 0n)));
    expect(call('FOLDL', applyValue(add3, [i(100)]), i(0), list([i(1), i(2)]))).toEqual(int64(203n));
  });

  it('EQUAL_LIST compares pairwise with the predicate (called as eq y x) and by length', () => {
    const seen: Array<[bigint, bigint]> = [];
    const eq = fun(2, (a) => {
      const y = narrow(a[0]!, 'int64').value;
      const x = narrow(a[1]!, 'int64').value;
      seen.push([y, x]);
      return x % 10n === y % 10n ? TRUE : FALSE;
    });
    expect(call('EQUAL_LIST', eq, list([i(1), i(2)]), list([i(11), i(22)]))).toBe(TRUE);
    expect(seen).toEqual([
      [11n, 1n],
      [22n, 2n],
    ]);
    expect(call('EQUAL_LIST', eq, list([i(1)]), list([i(1), i(2)]))).toBe(FALSE);
    expect(call('EQUAL_LIST', eq, list([i(1), i(3)]), list([i(2), i(3)]))).toBe(FALSE);
    expect(call('EQUAL_LIST', eq, list([]), list([]))).toBe(TRUE);
  });
});

describe('errors, tracing and exceptions', () => {
  it('ERROR is a fatal user error (daml-lf-2.rst "Error functions")', () => {
    expect(failureOf(() => call('ERROR', t('boom')))).toEqual({ kind: 'userError', message: 'boom' });
  });

  it('FAIL_WITH_STATUS fails with error id, Canton category, message and metadata', () => {
    const meta: Value = { tag: 'textMap', entries: new Map([['k', t('v')]]) };
    expect(failureOf(() => call('FAIL_WITH_STATUS', t('MY_ERROR'), { tag: 'failureCategory', value: 'INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER' }, t('bad'), meta))).toEqual({
      kind: 'failureStatus',
      errorId: 'MY_ERROR',
      category: 9,
      message: 'bad',
      metadata: { k: 'v' },
    });
    const empty: Value = { tag: 'textMap', entries: new Map() };
    expect(failureOf(() => call('FAIL_WITH_STATUS', t('E'), { tag: 'failureCategory', value: 'INVALID_INDEPENDENT_OF_SYSTEM_STATE' }, t('m'), empty))).toMatchObject({
      category: 8,
    });
  });

  it('TRACE returns its second argument and reports the message to the hook', () => {
    const messages: string[] = [];
    const trace = builtinFunction('TRACE', { trace: (m) => messages.push(m) });
    expect(trace.invoke([t('hello'), i(5)])).toEqual(int64(5n));
    expect(messages).toEqual(['hello']);
    expect(call('TRACE', t('silent'), i(6))).toEqual(int64(6n));
  });

  it('ANY_EXCEPTION_MESSAGE reads ArithmeticError itself and asks the hook for other exceptions', () => {
    expect(call('ANY_EXCEPTION_MESSAGE', arithmeticErrorValue('oops'))).toEqual(text('oops'));
    const other: AnyExceptionV = {
      tag: 'anyException',
      type: { kind: 'con', tycon: { packageId: 'p', moduleName: 'M', entityName: 'E' }, args: [] },
      value: { tag: 'record', tycon: { packageId: 'p', moduleName: 'M', entityName: 'E' }, fields: [], fieldNames: [] },
    };
    expect(failureOf(() => call('ANY_EXCEPTION_MESSAGE', other))).toMatchObject({ kind: 'unsupported' });
    const withHook = builtinFunction('ANY_EXCEPTION_MESSAGE', { exceptionMessage: (e) => `custom ${e.type.kind}` });
    expect(withHook.invoke([other])).toEqual(text('custom con'));
  });

  it('TYPE_REP_TYCON_NAME names a bare type constructor, else None', () => {
    const tycon = { packageId: 'abc', moduleName: 'A.B', entityName: 'C.D' };
    expect(call('TYPE_REP_TYCON_NAME', { tag: 'typeRep', type: { kind: 'con', tycon, args: [] } })).toEqual(some(text('abc:A.B:C.D')));
    expect(call('TYPE_REP_TYCON_NAME', { tag: 'typeRep', type: { kind: 'builtin', name: 'Int64', args: [] } })).toEqual(NONE);
    expect(
      call('TYPE_REP_TYCON_NAME', { tag: 'typeRep', type: { kind: 'con', tycon, args: [{ kind: 'builtin', name: 'Int64', args: [] }] } }),
    ).toEqual(NONE);
  });
});
