import { describe, expect, it } from 'vitest';
import { AnswerJson } from '../../../src/registry/answer-json.js';
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
    expect(json.choiceContext(cc)).toBe(JSON.stringify(cc));
    expect(json.choiceContext(cc)).toBe(JSON.stringify(cc)); // the remembered texts too
  });

  it.each(cases)('writes factory answers as JSON.stringify does: %s', (_name, cc) => {
    const json = new AnswerJson();
    const transfer: FactoryAnswer = { factoryId: '00f1', transferKind: 'offer', choiceContext: cc };
    const allocation: FactoryAnswer = { factoryId: '00f2', choiceContext: cc };
    expect(json.factory(transfer)).toBe(JSON.stringify(transfer));
    expect(json.factory(allocation)).toBe(JSON.stringify(allocation));
  });

  it('serialises a disclosure that can still change each time', () => {
    const json = new AnswerJson();
    const d = { ...lean(5) };
    const cc: ChoiceContext = { choiceContextData: { values: {} }, disclosedContracts: [d] };
    json.choiceContext(cc);
    d.synchronizerId = 'other::1220cd';
    expect(json.choiceContext(cc)).toBe(JSON.stringify(cc));
  });
});
