/**
 * The errors builtin functions raise, as daml-lf-2.rst ("Built-in functions", "About Exceptions")
 * and Speedy (the reference evaluator) define them:
 *  - arithmetic failures throw the catchable `ArithmeticError` exception of daml-prim;
 *  - malformed crypto inputs, incomparable values and bad code points are uncatchable failures.
 */
import type { TypeConRef } from '../ast.js';
import { DamlFailure, DamlThrow } from '../runtime.js';
import type { AnyExceptionV, RecordV, Value } from '../../lf-value/runtime-value.js';
import { text } from '../../lf-value/runtime-value.js';
import { dateToText, numericToText, timestampToText } from './format.js';

/**
 * The package `daml-prim-DA-Exception-ArithmeticError` 1.0.0 (LF 2.1). Found by decoding every
 * package of the DARs in ../shared/dars (src/emulator/dar decodeDar) and looking for the
 * module `DA.Exception.ArithmeticError`; it is one of LF's "stable packages", so its id is the same
 * in every DAR built for LF 2.1 (Speedy's `StablePackagesV2` names the same id).
 */
export const ARITHMETIC_ERROR_PACKAGE_ID = 'ee33fb70918e7aaa3d3fc44d64a399fb2bf5bcefc54201b1690ecd448551ba88';

export const ARITHMETIC_ERROR_TYCON: TypeConRef = Object.freeze({
  packageId: ARITHMETIC_ERROR_PACKAGE_ID,
  moduleName: 'DA.Exception.ArithmeticError',
  entityName: 'ArithmeticError',
});

/** The `ArithmeticError { message }` exception value. */
export function arithmeticErrorValue(message: string): AnyExceptionV {
  const record: RecordV = { tag: 'record', tycon: ARITHMETIC_ERROR_TYCON, fields: [text(message)], fieldNames: ['message'] };
  return { tag: 'anyException', type: { kind: 'con', tycon: ARITHMETIC_ERROR_TYCON, args: [] }, value: record };
}

/** True when `v` is the record of daml-prim's `ArithmeticError`. */
export function isArithmeticError(v: Value): v is RecordV {
  return (
    v.tag === 'record' &&
    v.tycon.packageId === ARITHMETIC_ERROR_PACKAGE_ID &&
    v.tycon.moduleName === ARITHMETIC_ERROR_TYCON.moduleName &&
    v.tycon.entityName === ARITHMETIC_ERROR_TYCON.entityName
  );
}

/**
 * Throws the `ArithmeticError` of a failed builtin call. The message names the builtin and its
 * value arguments (scale witnesses included), as daml-lf-2.rst "About Exceptions" words it:
 * `ArithmeticError while evaluating (ADD_INT64 9223372036854775807 1).`
 */
export function throwArithmeticError(name: string, args: readonly Value[]): never {
  const message = `ArithmeticError while evaluating (${name} ${args.map(literalToText).join(' ')}).`;
  throw new DamlThrow(arithmeticErrorValue(message), message);
}

/** The text of a literal in error messages (Speedy's rendering of builtin arguments). */
export function literalToText(v: Value): string {
  switch (v.tag) {
    case 'bool':
      return String(v.value);
    case 'int64':
      return v.value.toString();
    case 'timestamp':
      return timestampToText(v.micros);
    case 'text':
    case 'party':
      return v.value;
    case 'unit':
      return '<unit>';
    case 'date':
      return dateToText(v.days);
    case 'numeric':
      return numericToText(v);
    default:
      throw new TypeError(`not a literal: ${v.tag}`);
  }
}

/** An uncatchable evaluation error LF defines (Speedy's interpretation errors other than user ones). */
export function failure(message: string): never {
  throw new DamlFailure({ kind: 'other', message });
}

/** Comparing functions or updates (LESS_EQ's `Err 'Try to compare functions'`). */
export function nonComparable(): never {
  failure('functions are not comparable');
}

/** Speedy's `Crypto.MalformedByteEncoding`. */
export function malformedByteEncoding(value: string, cause: string): never {
  failure(`Invalid byte encoding format for ${value}: ${cause}`);
}

/** Speedy's `Crypto.MalformedKey`. */
export function malformedKey(key: string, cause: string): never {
  failure(`Malformed public key for ${key}: ${cause}`);
}

/** Speedy's `Crypto.MalformedSignature`. */
export function malformedSignature(signature: string, cause: string): never {
  failure(`Malformed signature for ${signature}: ${cause}`);
}
