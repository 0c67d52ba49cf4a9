/** Context entries: a selected contract (or list, or value) put into a choice context, disclosed, or only selected for other entries. */
import { z } from 'zod';
import { QualifiedIdSchema, ValueExprSchema } from './paths-and-values.js';
import { PredicateSchema } from './predicates.js';
import { SelectionNameSchema, selectorShape, WhenSchema } from './selectors.js';
import { strict } from './strict-object.js';

export function entrySchema<E extends readonly [string, ...string[]]>(endpoints: E, perContract: boolean) {
  return strict({
    ...selectorShape,
    key: z
      .string()
      .min(1, 'a context key must not be empty')
      .optional()
      .describe(
        'The key of the entry in `choiceContextData.values`; DNS-prefixed like metadata keys (e.g. `acme.example.com/instrument-configuration`), as the Daml code reads it. Required unless `as` is `disclose` or `select`. `list` entries of one endpoint may share a key: their matches form one list.',
      ),
    name: SelectionNameSchema.optional().describe(
      'Names what this entry selects, so that other entries can read it: `$ref.<name>.<path>` (the payload of the contract it selected; a list of payloads for `list`, `disclose` and `select` entries), `$found.<name>` (`true` when it found a contract) and `when`. Entries of one endpoint or choice may share a name only if they apply to different endpoints or choices.',
    ),
    value: ValueExprSchema.optional().describe(
      'A value entry instead of a contract: the context gets this value under `key` (a boolean as `AV_Bool`, text as `AV_Text`), e.g. `"value": "$found.locked"`. Give exactly one of `templateId`, `interfaceId` and `value`.',
    ),
    if: EntryIfSchema.optional(),
    when: WhenSchema.optional().describe(
      'Apply the entry only when the named selection found a contract (`{"found": "<name>"}`) or found nothing (`{"missing": "<name>"}`). The named entry may come later in the list: selections are made first, the context is then assembled in list order.',
    ),
    required: z
      .union([z.boolean(), z.literal('each')])
      .default(true)
      .describe(
        '`true`: no matching contract is a 404 naming the entry (or `missingError`). `false`: the entry is left out (or an empty list). `"each"`: the selector runs once per element of a list expression (a `*` path or a `$id` list), and each must find a contract.',
      ),
    as: z
      .enum(['contractId', 'list', 'disclose', 'select'])
      .default('contractId')
      .describe(
        '`contractId`: the value is `AV_ContractId` of the one match. `list`: `AV_List` of `AV_ContractId` of every match (possibly empty; entries sharing the key add to one list, each contract once). `disclose`: every match is disclosed but not put into the context (e.g. locked holdings a choice archives on behalf of a party that is not their stakeholder). `select`: neither put into the context nor disclosed, only read by other entries (`$ref`, `$found`, `when`).',
      ),
    endpoints: z
      .array(z.enum(endpoints))
      .min(1, 'omit "endpoints" to apply the entry everywhere')
      .optional()
      .describe('The endpoints (factories) or choices (per-contract contexts) whose context gets this entry. Omitted: all of them.'),
    ...(perContract
      ? {
          templates: z
            .array(QualifiedIdSchema)
            .min(1)
            .optional()
            .describe('Apply the entry only to objects of these templates (of the section\'s `templateIds`), e.g. when a V1 and a V2 allocation template keep their data at different paths. Omitted: all of them.'),
        }
      : {}),
  })
    .superRefine((e, ctx) => {
      const given = [e.templateId, e.interfaceId, e.value].filter((x) => x !== undefined).length;
      if (given !== 1) ctx.addIssue({ code: 'custom', message: 'give exactly one of "templateId", "interfaceId" and "value"' });
      if (e.orTemplateIds !== undefined && e.templateId === undefined) ctx.addIssue({ code: 'custom', path: ['orTemplateIds'], message: '"orTemplateIds" adds to "templateId"' });
    })
    .superRefine((e, ctx) => {
      const noKey = e.as === 'disclose' || e.as === 'select';
      if (e.key === undefined && !noKey) ctx.addIssue({ code: 'custom', path: ['key'], message: `a context entry needs a "key" (unless "as" is "disclose" or "select")` });
      if (e.key !== undefined && noKey) ctx.addIssue({ code: 'custom', path: ['key'], message: `"as": "${e.as}" puts nothing into the context: remove "key"` });
      if (e.value !== undefined && (noKey || e.as === 'list' || Object.keys(e.match).length > 0 || e.required === 'each')) {
        ctx.addIssue({ code: 'custom', path: ['value'], message: 'a value entry has a "key" and a "value" only (no "match", "as" or "required": "each")' });
      }
    })
    .describe('One context entry: a contract (or list of contracts) put into the choice context under `key`, and disclosed; or a value (`value`).');
}

export const EntryIfSchema = PredicateSchema.describe(
  'Apply the entry only when this predicate holds (the forms are those of `transferKind.self[].when`), e.g. only for a real owner: `{"not": {"eq": ["$args.transfer.receiver", "cip-112_no-owner::1220…"]}}`. Its value expressions may read what the entry\'s `match` may read, named selections included. With `when`, both must hold.',
);
