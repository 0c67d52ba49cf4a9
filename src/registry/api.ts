/**
 * What the registry routes call: one method per upstream operation (operationIds in comments),
 * plain TypeScript with no Hono inside. `RegistryService` implements it over the ledger client,
 * the contract index and the recipes. `ctx` is the HTTP request being answered: the ledger calls
 * made for it carry its id and trace context (passed explicitly, not through AsyncLocalStorage,
 * whose promise hooks would tax every request of the process).
 */
import type { z } from '@hono/zod-openapi';
import type { RequestContext } from '../http/request-context.js';
import type { MaybePromise } from './maybe-promise.js';
import type {
  ChoiceContextSchema,
  FactoryWithChoiceContextSchema,
  GetChoiceContextRequestSchema,
  GetFactoryRequestSchema,
  GetRegistryInfoResponseSchema,
  InstrumentSchema,
  ListInstrumentsResponseSchema,
  TransferFactoryWithChoiceContextSchema,
} from './schemas.js';

export type GetFactoryRequest = z.infer<typeof GetFactoryRequestSchema>;
export type GetChoiceContextRequest = z.infer<typeof GetChoiceContextRequestSchema>;
export type ChoiceContextResponse = z.infer<typeof ChoiceContextSchema>;

export type ApiVersion = 1 | 2;
export type TransferInstructionAction = 'accept' | 'reject' | 'withdraw';
export type AllocationInstructionAction = 'accept' | 'withdraw';
export type AllocationAction = 'execute-transfer' | 'withdraw' | 'cancel';

export interface RegistryApi {
  /** getRegistryInfo */
  getRegistryInfo(): Promise<z.infer<typeof GetRegistryInfoResponseSchema>>;
  /** listInstruments */
  listInstruments(pageSize: number, pageToken: string | undefined, ctx?: RequestContext): Promise<z.infer<typeof ListInstrumentsResponseSchema>>;
  /** getInstrument */
  getInstrument(instrumentId: string, ctx?: RequestContext): Promise<z.infer<typeof InstrumentSchema>>;
  /** getTransferFactory (v1, v2) */
  getTransferFactory(version: ApiVersion, req: GetFactoryRequest, ctx?: RequestContext): MaybePromise<z.infer<typeof TransferFactoryWithChoiceContextSchema>>;
  /** getTransferInstruction{Accept,Reject,Withdraw}Context (v1, v2) */
  getTransferInstructionContext(
    version: ApiVersion,
    transferInstructionId: string,
    action: TransferInstructionAction,
    req: GetChoiceContextRequest,
    ctx?: RequestContext,
  ): MaybePromise<ChoiceContextResponse>;
  /** getAllocationFactory (v1, v2) */
  getAllocationFactory(version: ApiVersion, req: GetFactoryRequest, ctx?: RequestContext): MaybePromise<z.infer<typeof FactoryWithChoiceContextSchema>>;
  /** getAllocationInstruction{Accept,Withdraw}Context (v2 only) */
  getAllocationInstructionContext(
    allocationInstructionId: string,
    action: AllocationInstructionAction,
    req: GetChoiceContextRequest,
    ctx?: RequestContext,
  ): MaybePromise<ChoiceContextResponse>;
  /** getAllocation{Transfer,Withdraw,Cancel}Context (execute-transfer is v1 only) */
  getAllocationContext(version: ApiVersion, allocationId: string, action: AllocationAction, req: GetChoiceContextRequest, ctx?: RequestContext): MaybePromise<ChoiceContextResponse>;
  /** getSettlementFactory (v2) */
  getSettlementFactory(req: GetFactoryRequest, ctx?: RequestContext): MaybePromise<z.infer<typeof FactoryWithChoiceContextSchema>>;
}
