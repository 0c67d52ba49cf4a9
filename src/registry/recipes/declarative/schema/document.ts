/**
 * The configuration of a *declarative recipe*: how a Daml token model that has no built-in recipe
 * maps registry requests to the admin's contracts. One JSON document per
 * recipe, validated at start-up: every mistake is reported at once, each with its path, what is
 * wrong and what is allowed, so a deployment with a typo fails before it serves a wrong context.
 *
 * Vocabulary (docs/recipes.md explains each with examples):
 *  - a *selector* finds contracts of the admin: `templateId` (plus `orTemplateIds`) or
 *    `interfaceId` (`#package-name:Module:Entity`, the package-name reference form of the JSON
 *    Ledger API, so package upgrades keep matching), `match` (payload field path → value
 *    expression, or a comparison `{lt|lte|gt|gte: expr}`; the special key `$id` matches the
 *    contract id and looks the contract up by id), `synchronizerId`, `pick` (unique, newest,
 *    oldest, or max/min of a payload field), `missingError`;
 *  - a *path* is dot-separated steps: field names, `*` (every element / map value), `{a,b}` (those
 *    fields in order), `(a.b|c)` (the first present of these sub-paths), `~` (a map's keys),
 *    `[name.with.dots]`; a path with `*` or `{a,b}` makes a list expression, and
 *    a selector matched against one runs once per element;
 *  - a *value expression* is a literal (string, boolean or null), `$admin` (the registry admin),
 *    `$now`, `$args.<path>` (into the factory's `choiceArguments`), `$contract.<path>` /
 *    `$contractId` (the per-contract object: transfer instruction, allocation instruction,
 *    allocation), `$ref.<name>.<path>` / `$found.<name>` (what a named entry or direct rule
 *    selected), `$item` (in `missingError` and the checks of a `forEach` refusal), `$itemContract.<path>`
 *    (there: the contract of that id, of any template), `$missing` (in the error of a check with
 *    `whenMissing`: the id it found nothing for), or `$$...` for a literal string that starts with `$`;
 *  - a *factory refusal* (`refuse`) answers a 400 or 404 before a factory answers, when its predicate
 *    holds, with a message whose `{...}` placeholders may compute (join, sort, matching, default);
 *    it (and a `transferKind.self` rule) may first compute named values (`let`, read as `$let.<name>`)
 *    from value expressions and *computed values* (`list`, `union`, `record`, `if`);
 *  - *definitions* name a predicate, a value or a message once, used as `{"$def", "with"}` where one
 *    of that kind goes, and expanded (expandDefinitions) before anything else is checked;
 *  - a *context entry* is a selector put into the context (`contractId`, `list`), only disclosed
 *    (`disclose`) or only selected for other entries (`select`), or a *value entry* (`value`); it
 *    may be named (`name`) and conditional (`when`);
 *  - context keys should be DNS-prefixed like metadata keys (k8s annotation syntax,
 *    CIP-0056 metadata; DA's Utilities registry uses `utility.digitalasset.com/...`); a key that
 *    is not is accepted with a warning, since Splice's own keys (`amulet-rules`) are not either.
 */
import { z } from 'zod';
import { EntryIfSchema, entrySchema } from './context-entries.js';
import { DefinitionsSchema, expandForSchema } from './definitions.js';
import { ALLOCATION_ACTIONS, ALLOCATION_INSTRUCTION_ACTIONS, FACTORY_ENDPOINTS, TRANSFER_INSTRUCTION_ACTIONS } from './endpoints.js';
import { PATH, PathSchema, QualifiedIdSchema } from './paths-and-values.js';
import { PredicateSchema } from './predicates.js';
import { FactoryRefusalSchema, PerContractRefuseWhenSchema, RefuseAfterSchema, RefuseWhenSchema } from './refusals.js';
import { FactorySchema, MATCH_OPS, MatchValueSchema, PickSchema } from './selectors.js';
import { strict } from './strict-object.js';
import { DirectRuleSchema, DirectRulesSchema, SelfRuleSchema, SelfRulesSchema, SelfWhenSchema } from './transfer-kind.js';

/** Names of built-in recipes: a declarative recipe may not shadow them. */
const RESERVED_NAME = /^splice-test-token-/;

const NAME = /^[a-z0-9][a-z0-9._:-]*$/;

function perContractSchema<E extends readonly [string, ...string[]]>(actions: E) {
  return strict({
    templateIds: z
      .array(QualifiedIdSchema)
      .min(1, 'list at least one template')
      .describe('The templates of these objects (`#<package-name>:<Module>:<Entity>`): a contract id the wallet names must be of one of them.'),
    instrumentIdPath: PathSchema.describe(
      'Payload path to the `{admin, id}` InstrumentId of the object (e.g. `transfer.instrumentId`), or to the instrument id text (then give `instrumentAdminPath`). The registry answers only for its own instruments. Where the instrument may be in several places, `(a.b|c)` takes the first present, and `~` lists a map\'s keys: e.g. `(allocation.transferLegSides.0.instrumentId|allocation.nextIterationFunding.~.0)`, the first leg\'s instrument, else the first funded one.',
    ),
    instrumentAdminPath: PathSchema.optional().describe('Payload path to the admin party, when `instrumentIdPath` points to the id text alone.'),
    instrumentByTemplate: z
      .record(
        QualifiedIdSchema,
        strict({
          instrumentIdPath: PathSchema.optional().describe('As the section\'s `instrumentIdPath`, for this template.'),
          instrumentAdminPath: PathSchema.optional().describe('As the section\'s `instrumentAdminPath`, for this template.'),
          instrumentId: z.string().min(1).optional().describe('The instrument id itself, for a template that records only the admin (at `instrumentAdminPath`), e.g. a token with one instrument.'),
        }),
      )
      .optional()
      .describe('Where the instrument is, per template of `templateIds`, when it differs from the section\'s `instrumentIdPath` / `instrumentAdminPath`.'),
    refuse: z
      .array(
        strict({
          templates: z.array(QualifiedIdSchema).min(1).optional().describe('Objects of these templates. Omitted: any.'),
          versions: z.array(z.union([z.literal(1), z.literal(2)])).min(1).optional().describe('Requests of these API versions (`/v1`, `/v2`). Omitted: both.'),
          endpoints: z.array(z.enum(actions)).min(1).optional().describe('These choices. Omitted: all.'),
          when: PerContractRefuseWhenSchema.optional(),
          after: RefuseAfterSchema.optional(),
          status: z.union([z.literal(400), z.literal(404)]).describe('400 (the request asks for something the token does not do) or 404 (the object is not one the endpoint knows).'),
          error: z.string().min(1).describe('The message; `{<value expression>}` inserts a value, e.g. `"{$contractId} is a V2 allocation; use /v2"`.'),
        }),
      )
      .default([])
      .describe('Requests the token refuses, checked in order before the context is assembled: the first rule whose templates, versions, choices and `when` all match answers its status and error (its `after` entries looked up first).'),
    contextEntries: z.array(entrySchema(actions, true)).default([]).describe(`Context entries, per choice (${actions.join(', ')}); value expressions read the object with \`$contract.<path>\`.`),
  });
}

const RecipeObjectSchema = strict({
  name: z
    .string()
    .regex(NAME, 'a recipe name is lowercase letters, digits and . _ : -, starting with a letter or digit')
    .refine((n) => !RESERVED_NAME.test(n), 'names starting with "splice-test-token-" are reserved for the built-in recipes')
    .describe('The recipe\'s name: what an instrument\'s `recipe` says to use it (the name alone, no prefix). Lowercase letters, digits and `. _ : -`.'),
  description: z.string().optional().describe('Free text for the people who maintain the recipe.'),
  supportedApis: z
    .record(z.string().min(1), z.number().int().min(0))
    .describe(
      'The token-standard APIs the token implements (Daml package name of the API → minor version), reported per instrument (an instrument\'s own `supportedApis` overrides it). Per-contract contexts answer a version (`/v1`, `/v2`) only when the version\'s API is listed here (or in the instrument\'s).',
    ),
  factories: strict({
    'transferFactory.v1': FactorySchema.optional().describe('The factory of `POST /registry/transfer-instruction/v1/transfer-factory` (TransferFactory V1).'),
    'transferFactory.v2': FactorySchema.optional().describe('The factory of `POST /registry/transfer-instruction/v2/transfer-factory` (TransferFactory V2).'),
    'allocationFactory.v1': FactorySchema.optional().describe('The factory of `POST /registry/allocation-instruction/v1/allocation-factory`.'),
    'allocationFactory.v2': FactorySchema.optional().describe('The factory of `POST /registry/allocation-instruction/v2/allocation-factory`.'),
    settlementFactory: FactorySchema.optional().describe('The factory of `POST /registry/allocation/v2/settlement-factory`.'),
  })
    .default({})
    .describe('Which contract is the factory of each endpoint (value expressions read the choice arguments with `$args.<path>`). An endpoint left out answers 400. The factory is always disclosed.'),
  contextEntries: z.array(entrySchema(FACTORY_ENDPOINTS, false)).default([]).describe('The choice-context entries of the factory endpoints.'),
  refuse: z
    .array(FactoryRefusalSchema)
    .default([])
    .describe(
      'Factory requests the token refuses, checked in order once the transfer kind is decided and before the factory is looked up (as the built-in recipes check the arguments before they look the factory up): the first rule that applies answers its status and its message. A rule\'s `after` entries are looked up before it is checked, so that their 404s answer first.',
    ),
  transferKind: strict({
    direct: DirectRulesSchema.optional().describe(
      'One rule or a list of rules, tried in order: the first that finds a contract makes the transfer `direct`. Without a match the transfer is an `offer`. A `self` transfer is not looked at.',
    ),
    self: SelfRulesSchema.optional().describe(
      'One rule `{"endpoints"?, "when": <predicate>}` or a list of rules: the transfer is `self` when a rule for the endpoint holds (e.g. the actors can complete both the sender\'s and the receiver\'s side at once). No rule for the endpoint: `self` when sender = receiver (whole Account records in V2).',
    ),
  })
    .optional()
    .describe('How the transfer factory reports `transferKind`.'),
  transferInstructions: perContractSchema(TRANSFER_INSTRUCTION_ACTIONS).optional().describe('Transfer instructions (offers): the contexts of `/registry/transfer-instruction/{v1,v2}/{id}/choice-contexts/{accept,reject,withdraw}`.'),
  allocationInstructions: perContractSchema(ALLOCATION_INSTRUCTION_ACTIONS).optional().describe('Allocation instructions: the contexts of `/registry/allocation-instruction/v2/{id}/choice-contexts/{accept,withdraw}`.'),
  allocations: perContractSchema(ALLOCATION_ACTIONS).optional().describe('Allocations: the contexts of `/registry/allocations/{v1,v2}/{id}/choice-contexts/{execute-transfer,withdraw,cancel}` (execute-transfer is V1 only).'),
  definitions: DefinitionsSchema,
}).describe('A declarative recipe: how a Daml token model maps registry requests to the admin\'s contracts.');

/** A recipe document: its definitions are expanded first (expandDefinitions), then its structure is checked. */
export const DeclarativeRecipeSchema = z.preprocess(expandForSchema, RecipeObjectSchema).describe(RecipeObjectSchema.description ?? '');

/**
 * The recipe's JSON Schema (input side: what an admin writes), for `config schema serve` and the
 * generated reference of docs/recipes.md. `transferKind.direct` is dispatched by hand (see
 * DirectRulesSchema), so its schema is stated here: one rule or a list of rules.
 */
export function recipeJsonSchemaOverride(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const path = { type: 'string', pattern: PATH.source };
  if (ctx.zodSchema === PickSchema) {
    Object.assign(ctx.jsonSchema, {
      anyOf: [
        { type: 'string', enum: ['unique', 'newest', 'oldest'] },
        { type: 'object', properties: { max: { ...path, description: 'Take the contract whose payload field at this path is greatest.' } }, required: ['max'], additionalProperties: false },
        { type: 'object', properties: { min: { ...path, description: 'Take the contract whose payload field at this path is least.' } }, required: ['min'], additionalProperties: false },
      ],
    });
    return;
  }
  if (ctx.zodSchema === MatchValueSchema) {
    const expr = { anyOf: [{ type: 'string' }, { type: 'boolean' }, { type: 'null' }] };
    Object.assign(ctx.jsonSchema, {
      anyOf: [...expr.anyOf, { type: 'object', properties: Object.fromEntries([...MATCH_OPS, 'default'].map((c) => [c, expr])), minProperties: 1, maxProperties: 2, additionalProperties: false }],
    });
    return;
  }
  if (ctx.zodSchema === PredicateSchema || ctx.zodSchema === SelfWhenSchema || ctx.zodSchema === EntryIfSchema || ctx.zodSchema === RefuseWhenSchema || ctx.zodSchema === PerContractRefuseWhenSchema) {
    // recursive: stated as "one operator key" here; the description lists each form and its operands
    Object.assign(ctx.jsonSchema, { type: 'object', propertyNames: { enum: ['eq', 'in', 'subsetOf', 'lt', 'count', 'consecutive', 'exists', 'matches', 'not', 'all', 'any'] }, minProperties: 1, maxProperties: 1 });
    return;
  }
  if (ctx.zodSchema === SelfRulesSchema) {
    const rule = z.toJSONSchema(SelfRuleSchema, { io: 'input', override: recipeJsonSchemaOverride });
    delete rule.$schema;
    Object.assign(ctx.jsonSchema, { anyOf: [rule, { type: 'array', items: rule }] });
    return;
  }
  if (ctx.zodSchema !== DirectRulesSchema) return;
  const rule = z.toJSONSchema(DirectRuleSchema, { io: 'input', override: recipeJsonSchemaOverride });
  delete rule.$schema;
  Object.assign(ctx.jsonSchema, { anyOf: [rule, { type: 'array', items: rule }] });
}

export type DeclarativeRecipeConfig = z.output<typeof DeclarativeRecipeSchema>;

export type DeclarativeRecipeInput = z.input<typeof RecipeObjectSchema>;

export type FactoryContextEntry = DeclarativeRecipeConfig['contextEntries'][number];

export type PerContractKind = 'transferInstructions' | 'allocationInstructions' | 'allocations';

export type PerContractConfig = NonNullable<DeclarativeRecipeConfig[PerContractKind]>;

export type PerContractContextEntry = PerContractConfig['contextEntries'][number];
