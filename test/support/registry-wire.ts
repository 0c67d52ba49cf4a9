/**
 * Typed reads of registry answers, parsed with the registry's own wire schemas
 * (src/registry/schemas.ts) so that reading a field also checks the answer's shape, and of the
 * token-standard choice results a wallet gets back (LF JSON). Ledger answers: ledger-wire.ts.
 *
 * Parsing drops keys a schema does not know: assertions on the whole raw answer (toEqual of two
 * answers, the keys of a disclosed contract) keep using the raw JSON.
 */
import { z } from 'zod';
import { jsonText } from './ledger-wire.js';
import {
  ChoiceContextSchema,
  ErrorResponseSchema,
  FactoryWithChoiceContextSchema,
  TransferKindSchema,
  type ChoiceContext,
  type FactoryAnswer,
} from '../../src/registry/schemas.js';

// ---- registry answers --------------------------------------------------------------------------

/** What every factory endpoint answers (src `FactoryAnswer`): transfer factories add `transferKind`. */
export const FactoryAnswerSchema = FactoryWithChoiceContextSchema.extend({ transferKind: TransferKindSchema.optional() });

/** A factory answer (`{factoryId, choiceContext, transferKind?}`). */
export function factoryOf(body: unknown): FactoryAnswer {
  return FactoryAnswerSchema.parse(body);
}

/** A choice-context answer (`{choiceContextData, disclosedContracts}`). */
export function contextOf(body: unknown): ChoiceContext {
  return ChoiceContextSchema.parse(body);
}

/** The message of an error answer (`{error}`: the token-standard and Splice `ErrorResponse`). */
export function errorOf(body: unknown): string {
  return ErrorResponseSchema.parse(body).error;
}

/** `choiceContextData` as the registries fill it: `{values: {key: AnyValue}}`. */
const ChoiceContextDataSchema = z.object({ values: z.record(z.string(), z.unknown()) });

/** The `values` of a `choiceContextData` (the context's AnyValues by key). */
export function contextValues(choiceContextData: unknown): Record<string, unknown> {
  return ChoiceContextDataSchema.parse(choiceContextData).values;
}

/** The contract ids of a context's disclosed contracts, in order. */
export function disclosedIds(ctx: ChoiceContext): string[] {
  return ctx.disclosedContracts.map((d) => d.contractId);
}

/** `Module:Entity` of each disclosed contract (its template id without the package). */
export function disclosedTemplates(ctx: ChoiceContext): string[] {
  return ctx.disclosedContracts.map((d) => d.templateId.split(':').slice(1).join(':'));
}

/**
 * The `output` of a token-standard choice result (TransferInstructionResult,
 * AllocationInstructionResult, AllocationResult): a variant `{tag, value}`.
 */
const ResultOutputSchema = z.object({ output: z.object({ tag: z.string(), value: z.record(z.string(), z.unknown()) }) });

export function resultOutput(result: unknown): { tag: string; value: Record<string, unknown> } {
  return ResultOutputSchema.parse(result).output;
}

/** The tag of a choice result's output, e.g. `TransferInstructionResult_Pending`. */
export function outputTag(result: unknown): string {
  return resultOutput(result).tag;
}

/** A contract id of a choice result's output, e.g. its `transferInstructionCid`. */
export function outputCid(result: unknown, field: string): string {
  return jsonText(resultOutput(result).value, field);
}
