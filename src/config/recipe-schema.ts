/**
 * The configuration of a *declarative recipe*: how a Daml token model that has no built-in recipe
 * maps registry requests to the admin's contracts. One JSON document per
 * recipe, validated at start-up: every mistake is reported at once, each with its path, what is
 * wrong and what is allowed, so a deployment with a typo fails before it serves a wrong context.
 *
 * Vocabulary:
 *  - a *selector* finds contracts of the admin: `templateId` or `interfaceId`
 *    (`#package-name:Module:Entity`, the package-name reference form of the JSON Ledger API, so
 *    package upgrades keep matching), `match` (payload field path → value expression; the special
 *    key `$id` matches the contract id and looks the contract up by id), `synchronizerId`, `pick`;
 *  - a *value expression* is a literal (string, boolean or null), `$admin` (the registry admin),
 *    `$args.<path>` (into the factory's `choiceArguments`), `$contract.<path>` (into the payload of
 *    the per-contract object: transfer instruction, allocation instruction, allocation), or
 *    `$$...` for a literal string that starts with `$`;
 *  - context keys should be DNS-prefixed like metadata keys (k8s annotation syntax,
 *    CIP-0056 metadata; DA's Utilities registry uses `utility.digitalasset.com/...`); a key that
 *    is not is accepted with a warning, since Splice's own keys (`amulet-rules`) are not either.
 */
import { z } from 'zod';
import { zodProblems } from './errors.js';

export const FACTORY_ENDPOINTS = ['transferFactory.v1', 'transferFactory.v2', 'allocationFactory.v1', 'allocationFactory.v2', 'settlementFactory'] as const;
export type FactoryEndpoint = (typeof FACTORY_ENDPOINTS)[number];
export const TRANSFER_FACTORY_ENDPOINTS = ['transferFactory.v1', 'transferFactory.v2'] as const;

export const TRANSFER_INSTRUCTION_ACTIONS = ['accept', 'reject', 'withdraw'] as const;
export const ALLOCATION_INSTRUCTION_ACTIONS = ['accept', 'withdraw'] as const;
export const ALLOCATION_ACTIONS = ['execute-transfer', 'withdraw', 'cancel'] as const;

/** Names of built-in recipes: a declarative recipe may not shadow them. */
const RESERVED_NAME = /^splice-test-token-/;

/**
 * Top-level fields of each factory choice's argument (Splice `token-standard/splice-api-token-<api>-v<n>/daml`), and the
 * fields of the records below them that are stable across token-standard revisions; `$args`
 * paths are checked against this tree (`'*'`: not checked further).
 */
type FieldTree = { readonly [field: string]: FieldTree | '*' };
const INSTRUMENT_ID: FieldTree = { admin: '*', id: '*' };
const ACCOUNT: FieldTree = { owner: '*', provider: '*', id: '*' };
const TRANSFER_V1: FieldTree = {
  sender: '*',
  receiver: '*',
  amount: '*',
  instrumentId: INSTRUMENT_ID,
  requestedAt: '*',
  executeBefore: '*',
  inputHoldingCids: '*',
  meta: '*',
};
const TRANSFER_V2: FieldTree = { ...TRANSFER_V1, sender: ACCOUNT, receiver: ACCOUNT };
export const CHOICE_ARGUMENT_FIELDS: Readonly<Record<FactoryEndpoint, { choice: string; fields: FieldTree }>> = {
  'transferFactory.v1': { choice: 'TransferFactory_Transfer (v1)', fields: { expectedAdmin: '*', transfer: TRANSFER_V1, extraArgs: '*' } },
  'transferFactory.v2': { choice: 'TransferFactory_Transfer (v2)', fields: { transfer: TRANSFER_V2, actors: '*', extraArgs: '*' } },
  'allocationFactory.v1': {
    choice: 'AllocationFactory_Allocate (v1)',
    fields: {
      expectedAdmin: '*',
      allocation: {
        settlement: '*',
        transferLegId: '*',
        transferLeg: { sender: '*', receiver: '*', amount: '*', instrumentId: INSTRUMENT_ID, meta: '*' },
      },
      requestedAt: '*',
      inputHoldingCids: '*',
      extraArgs: '*',
    },
  },
  'allocationFactory.v2': {
    choice: 'AllocationFactory_Allocate (v2)',
    fields: { settlement: '*', allocation: '*', requestedAt: '*', inputHoldingCids: '*', actors: '*', extraArgs: '*' },
  },
  settlementFactory: {
    choice: 'SettlementFactory_SettleBatch (v2)',
    fields: { settlement: '*', transferLegs: '*', allocations: '*', actors: '*', extraArgs: '*' },
  },
};

// ---- the schema ---------------------------------------------------------------------------------

const NAME = /^[a-z0-9][a-z0-9._:-]*$/;
/** `#package-name:Module.Path:Entity` (Daml module and entity names are dotted identifiers). */
const QUALIFIED_NAME = /^#[A-Za-z0-9][A-Za-z0-9._-]*:[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const PATH = /^[^.\s]+(\.[^.\s]+)*$/;

function strict<S extends z.core.$ZodLooseShape>(shape: S) {
  const allowed = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (iss) => (iss.code === 'unrecognized_keys' ? `unknown key${iss.keys.length > 1 ? 's' : ''} ${iss.keys.map((k) => `"${k}"`).join(', ')}; allowed: ${allowed}` : undefined),
  });
}

const QualifiedIdSchema = z.string().superRefine((s, ctx) => {
  if (QUALIFIED_NAME.test(s)) return;
  const pkgIdForm = /^#?[0-9a-f]{64}:/.test(s);
  ctx.addIssue({
    code: 'custom',
    message: pkgIdForm
      ? `"${s}" uses a package id; use the package name ("#<package-name>:<Module>:<Entity>") so that package upgrades keep matching`
      : `"${s}" is not of the form "#<package-name>:<Module>:<Entity>" (e.g. "#acme-token:Acme.Rules:TransferRules")`,
  });
});

const PathSchema = z.string().regex(PATH, 'a payload field path is dot-separated field names, e.g. "instrumentId.id"');

/** A value expression; its root is checked here, its use (which roots are allowed where) in the second pass. */
const ValueExprSchema = z.union(
  [
    z.string().superRefine((v, ctx) => {
      const e = parseValueExpr(v);
      if (typeof e === 'string') ctx.addIssue({ code: 'custom', message: e });
    }),
    z.boolean(),
    z.null(),
  ],
  {
    error: (iss) =>
      iss.code === 'invalid_union' && typeof iss.input === 'number'
        ? `${String(iss.input)}: write numbers as strings ("${String(iss.input)}"), as the JSON Ledger API encodes Int64 and Numeric`
        : 'a value expression is a string (literal, $admin, $args.<path>, $contract.<path>), a boolean or null',
  },
);

/** Keys are payload field paths, or `$id` (the contract id: the contract is looked up by id). */
const MATCH_KEY = /^(\$id|[^$.\s][^.\s]*(\.[^.\s]+)*)$/;
const MatchSchema = z.record(z.string().regex(MATCH_KEY), ValueExprSchema, {
  error: (iss) =>
    iss.code === 'invalid_key'
      ? 'a match key is a payload field path (dot-separated field names, e.g. "instrumentId.id") or "$id" (the contract id)'
      : undefined,
});

const selectorShape = {
  templateId: QualifiedIdSchema.optional().describe(
    'The template of the contracts to find, as `#<package-name>:<Module>:<Entity>` (the package name, not the package id, so that package upgrades keep matching). Give exactly one of `templateId` and `interfaceId`.',
  ),
  interfaceId: QualifiedIdSchema.optional().describe(
    'Find the contracts of any template that implements this interface (`#<package-name>:<Module>:<Interface>`), e.g. a token-standard factory interface. Give exactly one of `templateId` and `interfaceId`.',
  ),
  match: MatchSchema.default({}).describe(
    'Conditions on the contract: payload field path (dot-separated, e.g. `instrumentId.id`) → value expression that the field must equal. The key `$id` matches the contract id instead (the contract is then looked up by id, e.g. `"$id": "$contract.lockedHoldingCid"`; a list of ids finds each). Empty: every active contract of the template that the admin sees.',
  ),
  synchronizerId: z.string().min(1).optional().describe('Only contracts on this synchronizer.'),
  pick: z
    .enum(['unique', 'newest', 'oldest'])
    .default('unique')
    .describe('When several contracts match where one is expected: `unique` answers 500 naming them (the ledger disagrees with the recipe); `newest` / `oldest` take one by creation time.'),
};

function checkTemplateOrInterface(v: { templateId?: string | undefined; interfaceId?: string | undefined }, ctx: z.RefinementCtx): void {
  if ((v.templateId === undefined) === (v.interfaceId === undefined)) {
    ctx.addIssue({ code: 'custom', message: 'give exactly one of "templateId" and "interfaceId"' });
  }
}

const SelectorSchema = strict(selectorShape).superRefine(checkTemplateOrInterface);

function entrySchema<E extends readonly [string, ...string[]]>(endpoints: E) {
  return strict({
    ...selectorShape,
    key: z
      .string()
      .min(1, 'a context key must not be empty')
      .optional()
      .describe(
        'The key of the entry in `choiceContextData.values`; DNS-prefixed like metadata keys (e.g. `acme.example.com/instrument-configuration`), as the Daml code reads it. Required unless `as` is `disclose`. `list` entries of one endpoint may share a key: their matches form one list.',
      ),
    required: z.boolean().default(true).describe('`true`: no matching contract is a 404 naming the entry. `false`: the entry is left out (or an empty list).'),
    as: z
      .enum(['contractId', 'list', 'disclose'])
      .default('contractId')
      .describe(
        '`contractId`: the value is `AV_ContractId` of the one match. `list`: `AV_List` of `AV_ContractId` of every match (possibly empty; entries sharing the key add to one list, each contract once). `disclose`: every match is disclosed but not put into the context (e.g. locked holdings a choice archives on behalf of a party that is not their stakeholder).',
      ),
    endpoints: z
      .array(z.enum(endpoints))
      .min(1, 'omit "endpoints" to apply the entry everywhere')
      .optional()
      .describe('The endpoints (factories) or choices (per-contract contexts) whose context gets this entry. Omitted: all of them.'),
  })
    .superRefine(checkTemplateOrInterface)
    .superRefine((e, ctx) => {
      if (e.key === undefined && e.as !== 'disclose') ctx.addIssue({ code: 'custom', path: ['key'], message: 'a context entry needs a "key" (unless "as" is "disclose")' });
      if (e.key !== undefined && e.as === 'disclose') ctx.addIssue({ code: 'custom', path: ['key'], message: '"as": "disclose" puts nothing into the context: remove "key"' });
    })
    .describe('One context entry: a contract (or list of contracts) put into the choice context under `key`, and disclosed.');
}

export type DirectRule = z.output<typeof DirectRuleSchema>;
const DirectRuleSchema = strict({
  ...selectorShape,
  key: z.string().min(1).optional().describe('Also put the matching contract (e.g. the receiver\'s pre-approval) into the context under this key, and disclose it.'),
  endpoints: z.array(z.enum(TRANSFER_FACTORY_ENDPOINTS)).min(1).optional().describe('The transfer factories the rule applies to. Omitted: both configured ones.'),
})
  .superRefine(checkTemplateOrInterface)
  .describe('A transfer is `direct` when this selector finds a contract (e.g. a transfer pre-approval of the receiver).');

const DirectRuleListSchema = z.array(DirectRuleSchema);
/**
 * One rule or a list of rules. Dispatched on the input's shape rather than with a union, so that
 * a mistake inside a rule is reported at its own path instead of as "no union branch matched".
 */
const DirectRulesSchema = z.unknown().transform((v, ctx): DirectRule | DirectRule[] => {
  const isRule = v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isRule && !Array.isArray(v)) {
    ctx.addIssue({ code: 'custom', message: 'expected a rule { templateId | interfaceId, match, key?, endpoints? } or a list of rules' });
    return z.NEVER;
  }
  const r = isRule ? DirectRuleSchema.safeParse(v) : DirectRuleListSchema.safeParse(v);
  if (r.success) return r.data;
  for (const i of r.error.issues) ctx.addIssue({ code: 'custom', message: i.message, path: i.path as PropertyKey[] });
  return z.NEVER;
});

function perContractSchema<E extends readonly [string, ...string[]]>(actions: E) {
  return strict({
    templateIds: z
      .array(QualifiedIdSchema)
      .min(1, 'list at least one template')
      .describe('The templates of these objects (`#<package-name>:<Module>:<Entity>`): a contract id the wallet names must be of one of them.'),
    instrumentIdPath: PathSchema.describe(
      'Payload path to the `{admin, id}` InstrumentId of the object (e.g. `transfer.instrumentId`), or to the instrument id text (then give `instrumentAdminPath`). The registry answers only for its own instruments.',
    ),
    instrumentAdminPath: PathSchema.optional().describe('Payload path to the admin party, when `instrumentIdPath` points to the id text alone.'),
    contextEntries: z.array(entrySchema(actions)).default([]).describe(`Context entries, per choice (${actions.join(', ')}); value expressions read the object with \`$contract.<path>\`.`),
  });
}

export const DeclarativeRecipeSchema = strict({
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
    'transferFactory.v1': SelectorSchema.optional().describe('The factory of `POST /registry/transfer-instruction/v1/transfer-factory` (TransferFactory V1).'),
    'transferFactory.v2': SelectorSchema.optional().describe('The factory of `POST /registry/transfer-instruction/v2/transfer-factory` (TransferFactory V2).'),
    'allocationFactory.v1': SelectorSchema.optional().describe('The factory of `POST /registry/allocation-instruction/v1/allocation-factory`.'),
    'allocationFactory.v2': SelectorSchema.optional().describe('The factory of `POST /registry/allocation-instruction/v2/allocation-factory`.'),
    settlementFactory: SelectorSchema.optional().describe('The factory of `POST /registry/allocation/v2/settlement-factory`.'),
  })
    .default({})
    .describe('Which contract is the factory of each endpoint (value expressions read the choice arguments with `$args.<path>`). An endpoint left out answers 400. The factory is always disclosed.'),
  contextEntries: z.array(entrySchema(FACTORY_ENDPOINTS)).default([]).describe('The choice-context entries of the factory endpoints.'),
  transferKind: strict({
    direct: DirectRulesSchema.optional().describe(
      'One rule or a list of rules, tried in order: the first that finds a contract makes the transfer `direct`. Without a match the transfer is an `offer`; sender = receiver is always `self`.',
    ),
  })
    .optional()
    .describe('How the transfer factory reports `transferKind`.'),
  transferInstructions: perContractSchema(TRANSFER_INSTRUCTION_ACTIONS).optional().describe('Transfer instructions (offers): the contexts of `/registry/transfer-instruction/{v1,v2}/{id}/choice-contexts/{accept,reject,withdraw}`.'),
  allocationInstructions: perContractSchema(ALLOCATION_INSTRUCTION_ACTIONS).optional().describe('Allocation instructions: the contexts of `/registry/allocation-instruction/v2/{id}/choice-contexts/{accept,withdraw}`.'),
  allocations: perContractSchema(ALLOCATION_ACTIONS).optional().describe('Allocations: the contexts of `/registry/allocations/{v1,v2}/{id}/choice-contexts/{execute-transfer,withdraw,cancel}` (execute-transfer is V1 only).'),
}).describe('A declarative recipe: how a Daml token model maps registry requests to the admin\'s contracts.');

/**
 * The recipe's JSON Schema (input side: what an admin writes), for `config schema serve` and the
 * generated reference of docs/recipes.md. `transferKind.direct` is dispatched by hand (see
 * DirectRulesSchema), so its schema is stated here: one rule or a list of rules.
 */
export function recipeJsonSchemaOverride(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  if (ctx.zodSchema !== DirectRulesSchema) return;
  const rule = z.toJSONSchema(DirectRuleSchema, { io: 'input' });
  delete rule.$schema;
  Object.assign(ctx.jsonSchema, { anyOf: [rule, { type: 'array', items: rule }] });
}

export type DeclarativeRecipeConfig = z.output<typeof DeclarativeRecipeSchema>;
export type DeclarativeRecipeInput = z.input<typeof DeclarativeRecipeSchema>;
export type ContractSelector = z.output<typeof SelectorSchema>;
export type FactoryContextEntry = DeclarativeRecipeConfig['contextEntries'][number];
export type PerContractKind = 'transferInstructions' | 'allocationInstructions' | 'allocations';
export type PerContractConfig = NonNullable<DeclarativeRecipeConfig[PerContractKind]>;
export type PerContractContextEntry = PerContractConfig['contextEntries'][number];

// ---- value expressions --------------------------------------------------------------------------

export type ValueExpr =
  | { kind: 'literal'; value: string | boolean | null }
  | { kind: 'admin' }
  | { kind: 'args'; path: string[] }
  | { kind: 'contract'; path: string[] };

/** Parses a value expression; returns an error text (what is wrong and what is allowed) on failure. */
export function parseValueExpr(v: string | boolean | null): ValueExpr | string {
  if (typeof v !== 'string' || !v.startsWith('$')) return { kind: 'literal', value: v };
  if (v.startsWith('$$')) return { kind: 'literal', value: v.slice(1) };
  if (v === '$admin') return { kind: 'admin' };
  const m = /^\$(args|contract)(?:\.(.*))?$/.exec(v);
  if (m) {
    const path = m[2];
    if (path === undefined || !PATH.test(path)) return `"${v}": $${m[1]} needs a field path, e.g. "$${m[1]}.${m[1] === 'args' ? 'transfer.receiver' : 'transfer.instrumentId'}"`;
    return { kind: m[1] as 'args' | 'contract', path: path.split('.') };
  }
  const root = /^\$[^.]*/.exec(v)![0];
  return `"${v}": unknown value expression root "${root}"; use a literal, $admin, $args.<path>, $contract.<path>, or "$$..." for a literal starting with "$"`;
}

// ---- validation ---------------------------------------------------------------------------------

export class RecipeConfigError extends Error {
  constructor(
    readonly recipe: string,
    readonly problems: readonly string[],
  ) {
    super(`declarative recipe ${recipe} is invalid (${problems.length} problem${problems.length > 1 ? 's' : ''}):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

export interface ValidatedRecipe {
  config: DeclarativeRecipeConfig;
  /** Allowed but doubtful (e.g. a context key that is not DNS-prefixed). */
  warnings: string[];
}

/** DNS-prefixed key: `<dns-subdomain with a dot>/<name>`, the k8s annotation syntax. */
const DNS_PREFIXED = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+\/([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;

/**
 * Validates one declarative recipe document. Throws `RecipeConfigError` listing every problem
 * (structure first; then, if the structure is sound, how the parts fit together).
 */
export function validateDeclarativeRecipe(json: unknown): ValidatedRecipe {
  const label = (json !== null && typeof json === 'object' && typeof (json as { name?: unknown }).name === 'string' ? `"${(json as { name: string }).name}"` : '(unnamed)');
  const parsed = DeclarativeRecipeSchema.safeParse(json);
  if (!parsed.success) {
    throw new RecipeConfigError(
      label,
      zodProblems(parsed.error),
    );
  }
  const config = parsed.data;
  const problems: string[] = [];
  const warnings: string[] = [];
  const configured = FACTORY_ENDPOINTS.filter((e) => config.factories[e] !== undefined);

  const checkKey = (key: string, at: string) => {
    if (!DNS_PREFIXED.test(key)) {
      warnings.push(`${at}: context key "${key}" is not DNS-prefixed (e.g. "acme.example.com/${key.replace(/^.*\//, '') || 'name'}"); prefixed keys avoid clashes with other token implementations`);
    }
  };
  /** Checks a selector's value expressions for an endpoint (`$args` shapes) or a per-contract kind. */
  const checkMatch = (
    match: Record<string, string | boolean | null>,
    at: string,
    where: { endpoints: readonly FactoryEndpoint[]; restrictable: boolean } | { perContract: true },
  ) => {
    for (const [field, raw] of Object.entries(match)) {
      const e = parseValueExpr(raw);
      const here = `${at}.match.${field}`;
      if (typeof e === 'string') {
        problems.push(`${here}: ${e}`);
        continue;
      }
      if (e.kind === 'args') {
        if ('perContract' in where) {
          problems.push(`${here}: "${String(raw)}": per-contract choice contexts have no choice arguments; use $contract.<path> (the contract's payload), $admin or a literal`);
          continue;
        }
        for (const ep of where.endpoints) {
          const err = checkArgsPath(ep, e.path);
          if (err) problems.push(`${here}: "${String(raw)}" (for ${ep}) ${err}${where.restrictable ? '; if the entry is not meant for this endpoint, restrict it with "endpoints"' : ''}`);
        }
      }
      if (e.kind === 'contract' && !('perContract' in where)) {
        problems.push(`${here}: "${String(raw)}": $contract is only available in the contextEntries of transferInstructions, allocationInstructions and allocations; factory requests use $args.<path>`);
      }
      if (field === '$id' && e.kind === 'literal' && typeof e.value !== 'string') {
        problems.push(`${here}: the contract id to match must be a string expression`);
      }
    }
  };

  if (configured.length === 0 && !config.transferInstructions && !config.allocationInstructions && !config.allocations) {
    problems.push('factories: the recipe configures no factory and no per-contract object; configure at least one of factories.' + FACTORY_ENDPOINTS.join(', factories.'));
  }
  for (const ep of configured) checkMatch(config.factories[ep]!.match, `factories.${ep}`, { endpoints: [ep], restrictable: false });

  // Factory context entries: endpoints must be configured; keys unique per endpoint.
  const keysByEndpoint = new Map<string, Map<string, string>>();
  const claimKey = (endpoint: string, key: string | undefined, at: string, list = false) => {
    if (key === undefined) return;
    let m = keysByEndpoint.get(endpoint);
    if (!m) keysByEndpoint.set(endpoint, (m = new Map()));
    const prev = m.get(key);
    // `list` entries may share a key (one list); the prefix marks them.
    if (list && prev?.startsWith('list:')) return;
    if (prev) problems.push(`${at}.key: duplicate key "${key}" for ${endpoint} (also ${prev.replace(/^list:/, '')}); give each entry of an endpoint its own key, or split them with "endpoints"`);
    else m.set(key, list ? `list:${at}` : at);
  };
  config.contextEntries.forEach((entry, i) => {
    const at = `contextEntries[${i}]`;
    if (entry.key !== undefined) checkKey(entry.key, `${at}.key`);
    const unknown = (entry.endpoints ?? []).filter((e) => !configured.includes(e));
    if (unknown.length > 0) {
      problems.push(
        `${at}.endpoints: ${unknown.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not configured in "factories" (configured: ${configured.join(', ') || 'none'})`,
      );
    }
    const endpoints = (entry.endpoints ?? configured).filter((e) => configured.includes(e));
    checkMatch(entry.match, at, { endpoints, restrictable: entry.endpoints === undefined });
    for (const ep of endpoints) claimKey(ep, entry.key, at, entry.as === 'list');
    checkIdMatch(entry, at, problems);
  });

  const direct = config.transferKind?.direct === undefined ? [] : Array.isArray(config.transferKind.direct) ? config.transferKind.direct : [config.transferKind.direct];
  const transferConfigured = TRANSFER_FACTORY_ENDPOINTS.filter((e) => configured.includes(e));
  if (direct.length > 0 && transferConfigured.length === 0) {
    problems.push('transferKind.direct: no transfer factory is configured (factories.transferFactory.v1 or .v2)');
  }
  direct.forEach((rule, i) => {
    const at = Array.isArray(config.transferKind!.direct) ? `transferKind.direct[${i}]` : 'transferKind.direct';
    const unknown = (rule.endpoints ?? []).filter((e) => !transferConfigured.includes(e));
    if (unknown.length > 0) problems.push(`${at}.endpoints: ${unknown.join(', ')} not configured in "factories" (configured: ${transferConfigured.join(', ') || 'none'})`);
    const endpoints = (rule.endpoints ?? transferConfigured).filter((e) => transferConfigured.includes(e));
    checkMatch(rule.match, at, { endpoints, restrictable: rule.endpoints === undefined });
    if (rule.key !== undefined) {
      checkKey(rule.key, `${at}.key`);
      for (const ep of endpoints) claimKey(ep, rule.key, at);
    }
    checkIdMatch(rule, at, problems);
  });

  // Per-contract objects: a template belongs to one kind; entry keys unique per action.
  const kindOfTemplate = new Map<string, string>();
  for (const kind of ['transferInstructions', 'allocationInstructions', 'allocations'] as const) {
    const pc = config[kind];
    if (!pc) continue;
    pc.templateIds.forEach((t, i) => {
      const prev = kindOfTemplate.get(t);
      if (prev) problems.push(`${kind}.templateIds[${i}]: ${t} is already listed in ${prev}; a template is one kind of per-contract object`);
      else kindOfTemplate.set(t, `${kind}.templateIds`);
    });
    const actions = kind === 'transferInstructions' ? TRANSFER_INSTRUCTION_ACTIONS : kind === 'allocationInstructions' ? ALLOCATION_INSTRUCTION_ACTIONS : ALLOCATION_ACTIONS;
    const seen = new Map<string, string>();
    pc.contextEntries.forEach((entry, i) => {
      const at = `${kind}.contextEntries[${i}]`;
      if (entry.key !== undefined) checkKey(entry.key, `${at}.key`);
      checkMatch(entry.match, at, { perContract: true });
      checkIdMatch(entry, at, problems);
      for (const action of entry.endpoints ?? actions) {
        if (entry.key === undefined) continue;
        const prev = seen.get(`${action}|${entry.key}`);
        if (prev && !(entry.as === 'list' && prev.startsWith('list:'))) {
          problems.push(`${at}.key: duplicate key "${entry.key}" for ${action} (also ${prev.replace(/^list:/, '')}); split the entries with "endpoints"`);
        } else if (!prev) seen.set(`${action}|${entry.key}`, entry.as === 'list' ? `list:${at}` : at);
      }
    });
  }

  // supportedApis vs what is configured: a mismatch is allowed (the admin knows the token) but suspicious.
  const apiOf: Record<FactoryEndpoint, string> = {
    'transferFactory.v1': 'splice-api-token-transfer-instruction-v1',
    'transferFactory.v2': 'splice-api-token-transfer-instruction-v2',
    'allocationFactory.v1': 'splice-api-token-allocation-instruction-v1',
    'allocationFactory.v2': 'splice-api-token-allocation-instruction-v2',
    settlementFactory: 'splice-api-token-allocation-v2',
  };
  for (const ep of configured) {
    if (config.supportedApis[apiOf[ep]] === undefined) warnings.push(`supportedApis: factories.${ep} is configured but ${apiOf[ep]} is not listed, so wallets will not use it`);
  }

  if (problems.length > 0) throw new RecipeConfigError(label, problems);
  return { config, warnings };
}

/** A `$id` match looks contracts up by id: the answer carries the template, not the interfaces. */
function checkIdMatch(entry: { match: Record<string, unknown>; templateId?: string | undefined; interfaceId?: string | undefined }, at: string, problems: string[]): void {
  if ('$id' in entry.match && entry.interfaceId !== undefined) {
    problems.push(`${at}.match.$id: contracts looked up by id must be selected by "templateId" (the ledger reports no interface for a lookup by id)`);
  }
}

/** Checks an `$args` path against the choice argument's known fields; returns the error or undefined. */
function checkArgsPath(endpoint: FactoryEndpoint, path: readonly string[]): string | undefined {
  const { choice, fields } = CHOICE_ARGUMENT_FIELDS[endpoint];
  let tree: FieldTree | '*' = fields;
  for (let i = 0; i < path.length; i++) {
    if (tree === '*') return undefined;
    const seg = path[i]!;
    if (!(seg in tree)) {
      const where = i === 0 ? `the ${choice} choice argument` : `${path.slice(0, i).join('.')} of ${choice}`;
      return `names no field of ${where} (fields: ${Object.keys(tree).join(', ')})`;
    }
    tree = tree[seg]!;
  }
  return undefined;
}

