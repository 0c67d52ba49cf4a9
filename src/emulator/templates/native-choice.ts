import type { ChoiceDef, UpdateContext } from '../participant/templates.js';
import { recordParser } from '../lf-value/native-json-codec.js';
import { type NativeValueType } from '../lf-value/native-type.js';

/**
 * A choice of a native (TypeScript-implemented) template whose argument is an LF record of type
 * `argT`: the argument is normalised and checked by the shared LF value normaliser before `body`
 * runs, so a malformed argument fails as Canton's command interpretation does.
 */
export function nativeChoice<P, A>(
  name: string,
  argT: NativeValueType,
  def: {
    consuming: boolean;
    controllers: (p: P, a: A) => string[];
    observers?: (p: P, a: A) => string[];
    body: (ctx: UpdateContext, self: { contractId: string; payload: P }, a: A) => unknown;
  },
): ChoiceDef<P, A> {
  return {
    name,
    consuming: def.consuming,
    controllers: def.controllers,
    ...(def.observers ? { observers: def.observers } : {}),
    parseArgument: recordParser<A>(argT, 'choiceArgument'),
    argumentType: argT,
    body: def.body as ChoiceDef<P, A>['body'],
  };
}
