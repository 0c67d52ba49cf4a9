import { describe, expect, it } from 'vitest';
import { AnswerJson, sameJsonText } from '../../../src/registry/answer-json.js';
import type { ChoiceContext, DisclosedContract, FactoryAnswer } from '../../../src/registry/schemas.js';

const lean = (n: number): DisclosedContract =>
  Object.freeze({ templateId: `pkg:M:T${n}`, contractId: `00${n}`.padEnd(68, 'a'), createdEventBlob: 'CgMyLjES'.repeat(40), synchronizerId: 'global-domain::1220ab' });
const full = (n: number): DisclosedContract =>
  Object.freeze({ ...lean(n), debugPackageName: 'splice-test-token-v1', debugPayload: { admin: 'a::1', note: 'quote " and \\ and \u2028' }, debugCreatedAt: '2026-01-01T00:00:00Z' });

describe('AnswerJson', () => {
  const cases: Array<[string, ChoiceContext]> = [
    ['no contracts, no values', { choiceContextData: { values: {} }, disclosedContracts: [] }],
    ['values and lean disclosures', { choiceContextData: { values: { 'amulet-rules': { tag: 'AV_ContractId', value: '00ab' }, n: { tag: 'AV_Text', value: 'é\n' } } }, disclosedContracts: [lean(1), lean(2)] }],
    ['debug fields', { choiceContextData: { values: {} }, disclosedContracts: [full(1), lean(3)] }],
    ['a disclosure that is not frozen', { choiceContextData: { values: {} }, disclosedContracts: [{ ...lean(4) }] }],
  ];

  it.each(cases)('writes a choice context as JSON.stringify does: %s', (_name, cc) => {
    const json = new AnswerJson();
    expect(json.choiceContext(cc).toString('utf8')).toBe(JSON.stringify(cc));
    expect(json.choiceContext(cc).toString('utf8')).toBe(JSON.stringify(cc)); // the remembered bytes too
  });

  it.each(cases)('writes factory answers as JSON.stringify does: %s', (_name, cc) => {
    const json = new AnswerJson();
    const transfer: FactoryAnswer = { factoryId: '00f1', transferKind: 'offer', choiceContext: cc };
    const allocation: FactoryAnswer = { factoryId: '00f2', choiceContext: cc };
    expect(json.factory(transfer).toString('utf8')).toBe(JSON.stringify(transfer));
    expect(json.factory(allocation).toString('utf8')).toBe(JSON.stringify(allocation));
  });

  it('serialises a disclosure that can still change each time', () => {
    const json = new AnswerJson();
    const d = { ...lean(5) };
    const cc: ChoiceContext = { choiceContextData: { values: {} }, disclosedContracts: [d] };
    json.choiceContext(cc);
    d.synchronizerId = 'other::1220cd';
    expect(json.choiceContext(cc).toString('utf8')).toBe(JSON.stringify(cc));
  });

  it('gives a factory its last answer again while kind, context data and disclosure objects stay', () => {
    const json = new AnswerJson();
    const d = [lean(6), lean(7)];
    const answer = (values: Record<string, unknown>, list = d, transferKind: FactoryAnswer['transferKind'] = 'offer'): FactoryAnswer => ({
      factoryId: '00f1',
      transferKind,
      choiceContext: { choiceContextData: { values }, disclosedContracts: list },
    });
    const first = json.factory(answer({ a: { b: [1, 'x'] } }));
    expect(json.factory(answer({ a: { b: [1, 'x'] } }))).toBe(first);
    // other data (also the same keys in another order), other disclosure objects (even equal
    // ones), another order, another kind: made anew, and right
    for (const other of [
      answer({ a: { b: [1, 'y'] } }),
      answer({ a: { b: [1, 'x'] }, c: null }),
      answer({ c: null, a: { b: [1, 'x'] } }),
      answer({ a: { b: [1, 'x'] } }, [lean(6), lean(7)]),
      answer({ a: { b: [1, 'x'] } }, [d[1]!, d[0]!]),
      answer({ a: { b: [1, 'x'] } }, d, 'direct'),
    ]) {
      const bytes = json.factory(other);
      expect(bytes).not.toBe(first);
      expect(bytes.toString('utf8')).toBe(JSON.stringify(other));
    }
  });

  it('is not misled by context data changed after it was answered', () => {
    const json = new AnswerJson();
    const d = [lean(8)];
    const values: Record<string, unknown> = { n: 1 };
    const a: FactoryAnswer = { factoryId: '00f3', choiceContext: { choiceContextData: { values }, disclosedContracts: d } };
    const first = json.factory(a);
    values.n = 2;
    const second = json.factory(a);
    expect(second).not.toBe(first);
    expect(second.toString('utf8')).toBe(JSON.stringify(a));
  });

  it('remembers the last answer of a bounded number of factories, the oldest going first', () => {
    const json = new AnswerJson(2);
    const d = [lean(1)];
    const answer = (n: number): FactoryAnswer => ({ factoryId: `00f${n}`, choiceContext: { choiceContextData: { values: {} }, disclosedContracts: d } });
    const one = json.factory(answer(1));
    const two = json.factory(answer(2));
    json.factory(answer(3)); // one goes
    expect(json.factory(answer(2))).toBe(two);
    const again = json.factory(answer(1));
    expect(again).not.toBe(one);
    expect(again.equals(one)).toBe(true);
  });
});

describe('sameJsonText', () => {
  it('is true exactly when the JSON texts are equal, for plain JSON values', () => {
    const values: unknown[] = [null, 0, 1, 'a', '', true, false, [], [1], [1, 2], [2, 1], {}, { a: 1 }, { a: 1, b: 2 }, { b: 2, a: 1 }, { a: [1, { b: null }] }, { a: [1, { b: 0 }] }, { 1: 'x', a: 'y' }, { a: 'y', 1: 'x' }];
    for (const a of values) for (const b of values) expect(sameJsonText(a, b), `${JSON.stringify(a)} ${JSON.stringify(b)}`).toBe(JSON.stringify(a) === JSON.stringify(b));
  });

  it('counts objects that are not plain as different', () => {
    expect(sameJsonText(new Date(0), new Date(0))).toBe(false);
    expect(sameJsonText({ a: new Map() }, { a: new Map() })).toBe(false);
    expect(sameJsonText(Number.NaN, Number.NaN)).toBe(false);
  });
});
