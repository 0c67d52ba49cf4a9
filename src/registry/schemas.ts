/**
 * Wire types of the token-standard registry API, one zod schema each, shared by every route
 * file (v1 and v2 use the same shapes: Splice's `token-standard/.../openapi/*.yaml` duplicate them on
 * purpose). Component names equal the upstream ones, so the generated openapi.yaml reads like
 * the official files.
 *
 * Requests are lenient where real clients are sloppy (the Splice CLI sends `transfer.lock: null`): unknown fields
 * are ignored, `excludeDebugFields` defaults to false, context calls accept an empty body.
 */
import { z } from '@hono/zod-openapi';

export const ErrorResponseSchema = z.object({ error: z.string() }).openapi('ErrorResponse');
export type ErrorResponse = z.infer<typeof ErrorResponseSchema>;

export const SupportedApisSchema = z
  .record(z.string(), z.number().int())
  .openapi('SupportedApis', { description: 'Map from token standard API name to the minor version supported.' });

export const PauseInfoSchema = z
  .object({ reason: z.string().optional(), until: z.string().optional().openapi({ format: 'date-time' }) })
  .openapi('PauseInfo');

export const AccountInputFieldToShowSchema = z.enum(['provider', 'accountId']).openapi('AccountInputFieldToShow');

export const InstrumentSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    symbol: z.string(),
    totalSupply: z.string().optional(),
    totalSupplyAsOf: z.string().optional().openapi({ format: 'date-time' }),
    decimals: z.number().int().min(0).max(10).openapi({ format: 'int8' }),
    paused: z.boolean().optional(),
    pauseInfo: PauseInfoSchema.optional(),
    supportedApis: SupportedApisSchema,
    showAccountInputFields: z.boolean().optional(),
    accountInputFieldsToShow: z.array(AccountInputFieldToShowSchema).optional(),
  })
  .openapi('Instrument');
export type Instrument = z.infer<typeof InstrumentSchema>;

export const GetRegistryInfoResponseSchema = z
  .object({ adminId: z.string(), supportedApis: SupportedApisSchema })
  .openapi('GetRegistryInfoResponse');

export const ListInstrumentsResponseSchema = z
  .object({ instruments: z.array(InstrumentSchema), nextPageToken: z.string().optional() })
  .openapi('ListInstrumentsResponse');

export const DisclosedContractSchema = z
  .object({
    templateId: z.string(),
    contractId: z.string(),
    createdEventBlob: z.string(),
    synchronizerId: z.string(),
    debugPackageName: z.string().optional(),
    debugPayload: z.record(z.string(), z.unknown()).optional(),
    debugCreatedAt: z.string().optional().openapi({ format: 'date-time' }),
  })
  .openapi('DisclosedContract');
export type DisclosedContract = z.infer<typeof DisclosedContractSchema>;

export const ChoiceContextSchema = z
  .object({
    choiceContextData: z.record(z.string(), z.unknown()),
    disclosedContracts: z.array(DisclosedContractSchema),
  })
  .openapi('ChoiceContext');
export type ChoiceContext = z.infer<typeof ChoiceContextSchema>;

export const GetFactoryRequestSchema = z
  .object({
    choiceArguments: z.record(z.string(), z.unknown()),
    excludeDebugFields: z.boolean().optional(),
  })
  .openapi('GetFactoryRequest');

export const GetChoiceContextRequestSchema = z
  .object({
    meta: z.record(z.string(), z.string()).optional(),
    excludeDebugFields: z.boolean().optional(),
  })
  .openapi('GetChoiceContextRequest');

export const TransferKindSchema = z.enum(['self', 'direct', 'offer']);

export const TransferFactoryWithChoiceContextSchema = z
  .object({ factoryId: z.string(), transferKind: TransferKindSchema, choiceContext: ChoiceContextSchema })
  .openapi('TransferFactoryWithChoiceContext');

export const FactoryWithChoiceContextSchema = z
  .object({ factoryId: z.string(), choiceContext: ChoiceContextSchema })
  .openapi('FactoryWithChoiceContext');

/** What every factory endpoint answers: FactoryWithChoiceContext, or TransferFactoryWithChoiceContext with its transferKind. */
export type FactoryAnswer = z.infer<typeof FactoryWithChoiceContextSchema> & { transferKind?: z.infer<typeof TransferKindSchema> };
