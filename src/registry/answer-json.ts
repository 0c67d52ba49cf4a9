/**
 * The JSON text of the registry's POST answers (factories and choice contexts). Most of an answer's
 * bytes are its disclosed contracts (the created-event blobs), and a warm registry discloses the
 * same contracts answer after answer: the service hands out one frozen DisclosedContract object
 * per contract (RegistryService.context), so its text is made once here and reused, and only the
 * small rest (ids, context values) is serialised per answer.
 *
 * The text is the same JSON value as JSON.stringify of the answer, keys in the same order
 * (test/unit/registry/answer-json.test.ts).
 */
import type { ChoiceContext, DisclosedContract, FactoryAnswer } from './schemas.js';

export class AnswerJson {
  /** Text per DisclosedContract object; weak, so contracts that leave the index leave this too. */
  private readonly disclosed = new WeakMap<DisclosedContract, string>();

  factory(a: FactoryAnswer): string {
    const kind = a.transferKind === undefined ? '' : `"transferKind":${JSON.stringify(a.transferKind)},`;
    return `{"factoryId":${JSON.stringify(a.factoryId)},${kind}"choiceContext":${this.choiceContext(a.choiceContext)}}`;
  }

  choiceContext(cc: ChoiceContext): string {
    let list = '';
    for (let i = 0; i < cc.disclosedContracts.length; i++) {
      if (i > 0) list += ',';
      list += this.disclosedContract(cc.disclosedContracts[i]!);
    }
    return `{"choiceContextData":${JSON.stringify(cc.choiceContextData)},"disclosedContracts":[${list}]}`;
  }

  private disclosedContract(d: DisclosedContract): string {
    // Only frozen objects are remembered: one that can still change must be serialised each time.
    if (!Object.isFrozen(d)) return JSON.stringify(d);
    let text = this.disclosed.get(d);
    if (text === undefined) {
      text = JSON.stringify(d);
      this.disclosed.set(d, text);
    }
    return text;
  }
}
