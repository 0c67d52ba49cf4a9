/**
 * The seams of the Daml-LF engine:
 *  - `LedgerPort`: what running Daml updates asks of the ledger (create, fetch, exercise, time).
 *    The emulated ledger's command interpreter implements it (authorization, visibility, the
 *    transaction tree); the evaluator never touches ledger state itself.
 *  - `DamlEngine`: what the ledger asks of Daml code (a template's signatories, observers,
 *    precondition and key, a choice's controllers, observers and body, an interface view).
 *  - The errors Daml evaluation raises: `DamlThrow` (a Daml exception, catchable by `try`),
 *    `DamlFailure` kinds (not catchable), each mapped by the ledger to the Canton error a real
 *    participant returns.
 */
import type { TypeConRef } from './ast.js';
import type { AnyExceptionV, LedgerPort, RecordV, Value } from '../lf-value/runtime-value.js';

// `LedgerPort` is declared beside `UpdateV` in lf-value/runtime-value.ts (an update value runs against a port, and
// the port's methods take values: one module holds both so the two files import one way).
export type { LedgerPort } from '../lf-value/runtime-value.js';

/** What the ledger asks of Daml code. `template`/`owner` name a template or an interface. */
export interface DamlEngine {
  hasTemplate(template: TypeConRef): boolean;
  signatories(template: TypeConRef, arg: RecordV): string[];
  observers(template: TypeConRef, arg: RecordV): string[];
  /** `ensure`: false when the precondition fails. */
  precondition(template: TypeConRef, arg: RecordV): boolean;
  /** The contract key and its maintainers, when the template has a key (LF 2.dev). */
  key(template: TypeConRef, arg: RecordV): { key: Value; maintainers: string[] } | undefined;
  /**
   * Controllers of a choice. For an interface choice `owner` is the interface and `arg` the
   * implementing template's argument (its `tycon` names the template).
   */
  controllers(owner: TypeConRef, choice: string, arg: RecordV, choiceArg: Value): string[];
  /** Choice observers (empty when the choice declares none). */
  choiceObservers(owner: TypeConRef, choice: string, arg: RecordV, choiceArg: Value): string[];
  /** Runs a choice's body with `self` = `cid`; returns its result. */
  exercise(owner: TypeConRef, choice: string, cid: string, arg: RecordV, choiceArg: Value, ledger: LedgerPort): Value;
  /** The interface view of a contract of the template `arg.tycon`. */
  view(iface: TypeConRef, arg: RecordV): Value;
}

/** A Daml exception in flight (`throw`, or a builtin's `ArithmeticError`): `try` can catch it. */
export class DamlThrow extends Error {
  constructor(
    readonly exception: AnyExceptionV,
    /** The exception's `message` (its DefException's message function applied), for errors. */
    readonly exceptionMessage: string,
  ) {
    super(exceptionMessage);
  }
}

/** Failures no Daml code can catch. */
export type DamlFailureDetail =
  /** `FAIL_WITH_STATUS` (Daml's `failWithStatus`). Category is the Canton error category number. */
  | { kind: 'failureStatus'; errorId: string; category: number; message: string; metadata: Record<string, string> }
  /** `ERROR` (Daml's `error`), when not turned into an exception by the LF version. */
  | { kind: 'userError'; message: string }
  /** An exception nobody caught. */
  | { kind: 'unhandledException'; exceptionType: TypeConRef; message: string; value: Value }
  /** `fromInterface`/`fetch` saw a contract of another template. */
  | { kind: 'wronglyTypedContract'; cid: string; expected: TypeConRef; actual: TypeConRef }
  /** A contract does not implement the interface it is used as. */
  | { kind: 'contractDoesNotImplementInterface'; cid: string; iface: TypeConRef; template: TypeConRef }
  | { kind: 'templatePreconditionViolated'; template: TypeConRef }
  /** A feature the evaluator does not implement (named), e.g. `EXTERNAL_CALL`. */
  | { kind: 'unsupported'; feature: string }
  /** The step budget ran out (a non-terminating or huge evaluation). */
  | { kind: 'budgetExceeded'; steps: number }
  /** Any other condition LF defines as an error (message says which). */
  | { kind: 'other'; message: string };

export class DamlFailure extends Error {
  constructor(readonly detail: DamlFailureDetail) {
    super(describeFailure(detail));
  }
}

function describeFailure(d: DamlFailureDetail): string {
  switch (d.kind) {
    case 'failureStatus':
      return `${d.errorId}: ${d.message}`;
    case 'userError':
      return d.message;
    case 'unhandledException':
      return `Unhandled Daml exception ${d.exceptionType.moduleName}:${d.exceptionType.entityName}: ${d.message}`;
    case 'wronglyTypedContract':
      return `Contract ${d.cid} was expected to be of template ${d.expected.moduleName}:${d.expected.entityName} but is of ${d.actual.moduleName}:${d.actual.entityName}`;
    case 'contractDoesNotImplementInterface':
      return `Contract ${d.cid} of template ${d.template.moduleName}:${d.template.entityName} does not implement interface ${d.iface.moduleName}:${d.iface.entityName}`;
    case 'templatePreconditionViolated':
      return `Template precondition violated in ${d.template.moduleName}:${d.template.entityName}`;
    case 'unsupported':
      return `Daml-LF feature not supported by the emulator's evaluator: ${d.feature}`;
    case 'budgetExceeded':
      return `Evaluation stopped after ${d.steps} steps (step budget exceeded)`;
    case 'other':
      return d.message;
  }
}
