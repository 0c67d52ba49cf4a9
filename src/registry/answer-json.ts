/**
 * The bytes of the registry's POST answers (factories and choice contexts). Most of an answer is
 * its disclosed contracts (the created-event blobs), and a warm registry discloses the same
 * contracts answer after answer: the service hands out one frozen DisclosedContract object per
 * contract (RegistryService.context), so its UTF-8 JSON is made once here and copied into each
 * answer, and only the small rest (ids, context values) is serialised per answer. The answer is
 * one Buffer: the server writes it as it is, with no string to flatten and encode per request.
 *
 * Wallets ask a factory and get the same answer for as long as its contracts stay (the factory,
 * the rules, the round: what a recipe names does not depend on who asks), so the last answer of
 * each factory is also remembered whole, and given again while the next one has the same kind,
 * equal context data and the very same disclosure objects: a warm factory answer then costs a
 * comparison, no serialisation. Its Buffer is shared: whoever writes it must not change it
 * (node:http writes it as it is; a Web Response copies it).
 *
 * The bytes are the UTF-8 of JSON.stringify of the answer, keys in the same order
 * (test/unit/registry/answer-json.test.ts).
 */
import type { ChoiceContext, DisclosedContract, FactoryAnswer } from './schemas.js';
import { isPlainObject } from '../canton/json-shape.js';

const COMMA = 0x2c;
/** The end of a choice context (`]}`), and of a factory answer around it (`]}}`). */
const CONTEXT_END = Buffer.from(']}');
const FACTORY_END = Buffer.from(']}}');

/** Factories whose last answer is remembered (the oldest goes when full). */
const REMEMBERED_FACTORIES = 256;

interface RememberedFactory {
  readonly transferKind: FactoryAnswer['transferKind'];
  /** A copy of the answer's choiceContextData (the caller's object may change after). */
  readonly data: unknown;
  readonly disclosed: readonly DisclosedContract[];
  readonly bytes: Buffer;
}

export class AnswerJson {
  /** Bytes per DisclosedContract object; weak, so contracts that leave the index leave this too. */
  private readonly disclosed = new WeakMap<DisclosedContract, Buffer>();
  /** The last answer per factory contract id (oldest first, as a Map iterates). */
  private readonly factories = new Map<string, RememberedFactory>();

  constructor(private readonly remember = REMEMBERED_FACTORIES) {}

  factory(a: FactoryAnswer): Buffer {
    const cc = a.choiceContext;
    const list = cc.disclosedContracts;
    const known = this.factories.get(a.factoryId);
    if (known !== undefined && known.transferKind === a.transferKind && sameContracts(known.disclosed, list) && sameJsonText(known.data, cc.choiceContextData)) {
      return known.bytes;
    }
    const kind = a.transferKind === undefined ? '' : `"transferKind":${JSON.stringify(a.transferKind)},`;
    const bytes = this.serialise(`{"factoryId":${JSON.stringify(a.factoryId)},${kind}"choiceContext":${contextHead(cc)}`, list, FACTORY_END);
    // Only answers made of frozen disclosures (and data that can be copied) stay the same.
    const data = list.every((d) => Object.isFrozen(d)) ? copyOf(cc.choiceContextData) : undefined;
    if (data !== undefined) {
      if (known === undefined && this.factories.size >= this.remember) {
        const oldest = this.factories.keys().next();
        if (!oldest.done) this.factories.delete(oldest.value);
      }
      this.factories.set(a.factoryId, { transferKind: a.transferKind, data, disclosed: list.slice(), bytes });
    }
    return bytes;
  }

  choiceContext(cc: ChoiceContext): Buffer {
    return this.serialise(contextHead(cc), cc.disclosedContracts, CONTEXT_END);
  }

  /** `head`, then the disclosures, comma-separated, and `end`. */
  private serialise(head: string, list: readonly DisclosedContract[], end: Buffer): Buffer {
    const headBytes = Buffer.byteLength(head);
    const parts: Buffer[] = new Array<Buffer>(list.length);
    let size = headBytes + end.length + Math.max(0, list.length - 1);
    for (let i = 0; i < list.length; i++) {
      const b = this.disclosedContract(list[i]!);
      parts[i] = b;
      size += b.length;
    }
    const out = Buffer.allocUnsafe(size);
    let at = out.write(head, 0);
    for (let i = 0; i < parts.length; i++) {
      if (i > 0) out[at++] = COMMA;
      at += parts[i]!.copy(out, at);
    }
    end.copy(out, at);
    return out;
  }

  private disclosedContract(d: DisclosedContract): Buffer {
    // Only frozen objects are remembered: one that can still change must be serialised each time.
    if (!Object.isFrozen(d)) return Buffer.from(JSON.stringify(d));
    let bytes = this.disclosed.get(d);
    if (bytes === undefined) {
      bytes = Buffer.from(JSON.stringify(d));
      this.disclosed.set(d, bytes);
    }
    return bytes;
  }
}

/** A copy of context data, undefined when it cannot be copied (it is then not remembered). */
function copyOf(data: ChoiceContext['choiceContextData']): ChoiceContext['choiceContextData'] | undefined {
  try {
    return structuredClone(data);
  } catch {
    return undefined;
  }
}

/** A choice context's text up to its list of disclosures. */
function contextHead(cc: ChoiceContext): string {
  return `{"choiceContextData":${JSON.stringify(cc.choiceContextData)},"disclosedContracts":[`;
}

/**
 * Whether two JSON values serialise to the same text: equal primitives, arrays, and plain objects
 * with the same keys in the same order. Anything else (a Date, a Map) counts as different. (Not
 * the Daml-value equality of recipes/declarative/json-values.ts, where key order does not matter and an
 * absent field equals null: here the bytes of an answer are at stake.)
 */
export function sameJsonText(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJsonText(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || !isPlainObject(a) || !isPlainObject(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i]!;
    if (k !== kb[i] || !sameJsonText(a[k], b[k])) return false;
  }
  return true;
}

function sameContracts(a: readonly DisclosedContract[], b: readonly DisclosedContract[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
