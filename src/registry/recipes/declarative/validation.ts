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
import { zodProblems } from '../../../canton/config-error.js';

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
/**
 * A path step: a field name, `*` (every element of a list or value of a map), `{a,b}` (the fields
 * a and b, in this order; each may be a sub-path, `{admin,account.provider}`), `(a.b|c)` (the first of these sub-paths that is present: not absent,
 * not null; e.g. the same data of a V2 record and of the V1 record that wraps one), `~` (the keys
 * of a map, as one list value in the payload's order, so that `~.0` is its first key) or `[text]`
 * (a field whose name has dots, e.g. a metadata key).
 */
const FIELDS = String.raw`(?:[A-Za-z0-9_-]+|~)(?:\.(?:[A-Za-z0-9_-]+|~))*`;
const SUBPATH = String.raw`[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*`;
const SEGMENT = String.raw`(?:\(${FIELDS}(?:\|${FIELDS})+\)|\[[^\]]+\]|\{${SUBPATH}(?:,${SUBPATH})+\}|[^.\s\[\]{}()|]+)`;
const PATH = new RegExp(`^${SEGMENT}(?:\\.${SEGMENT})*$`);
const SEGMENTS = new RegExp(SEGMENT, 'g');
/** The steps of a path that PATH accepts. */
export function splitPath(p: string): string[] {
  return p.match(SEGMENTS) ?? [];
}

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

const PathSchema = z.string().regex(PATH, 'a payload field path is dot-separated field names, e.g. "instrumentId.id" (steps may also be *, {a,b} or {a.b,c}, (a.b|c), ~ or [name.with.dots])');

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
        : 'a value expression is a string (literal, $admin, $now, $args.<path>, $contract.<path>, $contractId, $ref.<name>.<path>, $found.<name>), a boolean or null',
  },
);

const COMPARISONS = ['lt', 'lte', 'gt', 'gte'] as const;
export type Comparison = (typeof COMPARISONS)[number];
const MATCH_OPS = ['eq', ...COMPARISONS] as const;
export type MatchOp = (typeof MATCH_OPS)[number];
/**
 * `{ "lte": "$now" }`: an ordered comparison instead of equality; `{ "eq": "$args.x", "default": "" }`:
 * equality with the value to use when the expression's path is absent (e.g. an optional metadata key).
 */
const ConditionSchema = strict({
  eq: ValueExprSchema.optional(),
  lt: ValueExprSchema.optional(),
  lte: ValueExprSchema.optional(),
  gt: ValueExprSchema.optional(),
  gte: ValueExprSchema.optional(),
  default: ValueExprSchema.optional(),
}).refine((o) => MATCH_OPS.filter((k) => o[k] !== undefined).length === 1, 'a condition has exactly one of "eq", "lt", "lte", "gt", "gte" (and optionally "default")');
type Condition = { [K in MatchOp | 'default']?: string | boolean | null };
/** Dispatched on the input's shape, so that a mistake is reported at its own path. */
const MatchValueSchema = z.unknown().transform((v, ctx): string | boolean | null | Condition => {
  const r = v !== null && typeof v === 'object' && !Array.isArray(v) ? ConditionSchema.safeParse(v) : ValueExprSchema.safeParse(v);
  if (r.success) return r.data;
  for (const i of r.error.issues) ctx.addIssue({ code: 'custom', message: i.message, path: i.path as PropertyKey[] });
  return z.NEVER;
});
/** The operator, its value expression and the default of a match value. */
export function matchCondition(mv: MatchValue): { op: MatchOp; value: string | boolean | null; default?: string | boolean | null } {
  if (mv === null || typeof mv !== 'object') return { op: 'eq', value: mv };
  const op = MATCH_OPS.find((k) => mv[k] !== undefined) ?? 'eq';
  return { op, value: mv[op] ?? null, ...(mv.default !== undefined ? { default: mv.default } : {}) };
}
export type MatchValue = z.output<typeof MatchValueSchema>;

/** Keys are payload field paths, or `$id` (the contract id: the contract is looked up by id). */
const MATCH_KEY = /^(\$id|[^$.\s][^.\s]*(\.[^.\s]+)*)$/;
const MatchSchema = z.record(z.string().regex(MATCH_KEY), MatchValueSchema, {
  error: (iss) =>
    iss.code === 'invalid_key'
      ? 'a match key is a payload field path (dot-separated field names, e.g. "instrumentId.id") or "$id" (the contract id)'
      : undefined,
});

const NAME_OF_SELECTION = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const SelectionNameSchema = z.string().regex(NAME_OF_SELECTION, 'a selection name is letters, digits, _ and -, starting with a letter or _');

const PickSchema = z.unknown().transform((v, ctx): 'unique' | 'newest' | 'oldest' | { max: string } | { min: string } => {
  if (v === 'unique' || v === 'newest' || v === 'oldest') return v;
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const keys = Object.keys(v);
    const path = (v as Record<string, unknown>)[keys[0] ?? ''];
    if (keys.length === 1 && (keys[0] === 'max' || keys[0] === 'min') && typeof path === 'string' && PATH.test(path)) {
      return keys[0] === 'max' ? { max: path } : { min: path };
    }
  }
  ctx.addIssue({ code: 'custom', message: 'pick is "unique", "newest", "oldest", {"max": "<payload path>"} or {"min": "<payload path>"}' });
  return z.NEVER;
});

const selectorShape = {
  templateId: QualifiedIdSchema.optional().describe(
    'The template of the contracts to find, as `#<package-name>:<Module>:<Entity>` (the package name, not the package id, so that package upgrades keep matching). Give exactly one of `templateId` and `interfaceId`.',
  ),
  interfaceId: QualifiedIdSchema.optional().describe(
    'Find the contracts of any template that implements this interface (`#<package-name>:<Module>:<Interface>`), e.g. a token-standard factory interface. Give exactly one of `templateId` and `interfaceId`.',
  ),
  match: MatchSchema.default({}).describe(
    'Conditions on the contract: payload field path (dot-separated, e.g. `instrumentId.id`) → value expression that the field must equal, or a condition `{"eq" | "lt" | "lte" | "gt" | "gte": <value expression>}` (e.g. `"opensAt": {"lte": "$now"}`; numbers written as strings compare as numbers, timestamps as times, other text as text), optionally with `"default": <value expression>`, the value to use when the expression\'s path is absent (e.g. a metadata key a wallet may leave out: `"account.id": {"eq": "$args.transfer.meta.values.[cip-112/sender.id]", "default": ""}`). The key `$id` matches the contract id instead (the contract is then looked up by id, e.g. `"$id": "$contract.lockedHoldingCid"`; a list of ids finds each). A value expression whose path has a `*` step is a list: the selector finds the contracts for each of its elements in turn. A path step `(a.b|c)` takes the first of these sub-paths that is present (neither absent nor null), e.g. `$ref.allocations.(lockedTokens|allocationV2.lockedTokens).*`: the locks of each allocation, whether a V2 one or a V1 one wrapping its V2 record, in the order of the allocations. Empty: every active contract of the template that the admin sees.',
  ),
  orTemplateIds: z
    .array(QualifiedIdSchema)
    .min(1)
    .optional()
    .describe('Further templates the contracts may be of (with `templateId`), e.g. a V2 template and the V1 template it succeeds: a `$id` lookup accepts a contract of any of them, a search finds those of each in turn.'),
  synchronizerId: z.string().min(1).optional().describe('Only contracts on this synchronizer.'),
  pick: PickSchema.default('unique').describe(
    'When several contracts match where one is expected (default `unique`): `unique` answers 500 naming them (the ledger disagrees with the recipe); `newest` / `oldest` take one by creation time; `{"max": "<path>"}` / `{"min": "<path>"}` the one whose payload field is greatest / least (compared as in `match` comparisons: e.g. the latest open round, `{"max": "round.number"}`).',
  ),
  missingError: z
    .string()
    .min(1)
    .optional()
    .describe(
      'The text of the 404 when nothing matches (a factory, or a required entry), instead of the default one naming the selector. `{<value expression>}` inserts a value, e.g. `"No open round of {$admin} found"`; with `required: "each"`, `{$item}` is the element that found nothing.',
    ),
};

function checkTemplateOrInterface(v: { templateId?: string | undefined; interfaceId?: string | undefined; orTemplateIds?: string[] | undefined }, ctx: z.RefinementCtx): void {
  if ((v.templateId === undefined) === (v.interfaceId === undefined)) {
    ctx.addIssue({ code: 'custom', message: 'give exactly one of "templateId" and "interfaceId"' });
  }
  if (v.orTemplateIds !== undefined && v.templateId === undefined) ctx.addIssue({ code: 'custom', path: ['orTemplateIds'], message: '"orTemplateIds" adds to "templateId"' });
}

const SelectorSchema = strict(selectorShape).superRefine(checkTemplateOrInterface);
const FactorySchema = strict({
  ...selectorShape,
  discloseAfter: SelectionNameSchema.optional().describe(
    'Where the factory goes in `disclosedContracts`: after the contracts of the context entry (or `transferKind.direct` rule) of this name, whether or not it found any. Omitted: first.',
  ),
}).superRefine(checkTemplateOrInterface);

const WhenSchema = strict({
  found: SelectionNameSchema.optional().describe('The entry applies only when the selection of this name found a contract.'),
  missing: SelectionNameSchema.optional().describe('The entry applies only when the selection of this name found nothing.'),
}).refine((w) => (w.found === undefined) !== (w.missing === undefined), 'give exactly one of "found" and "missing"');

function entrySchema<E extends readonly [string, ...string[]]>(endpoints: E, perContract: boolean) {
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

// ---- predicates ---------------------------------------------------------------------------------

/**
 * A predicate operand: a value expression, or a *computed value* built from operands
 * (COMPUTED_FORMS), e.g. the sorted groups of parties an account lets initiate.
 */
export type Operand = string | boolean | null | ComputedValue;
export type ComputedValue = { list: Operand[] } | { union: Operand[] } | { record: Record<string, Operand> } | { if: Predicate; then: Operand; else?: Operand };
const COMPUTED_FORMS =
  '{"list": [a, ...]} (the present values, absent and null ones left out, in order; a list stays one element), {"union": [a, ...]} (the elements of each, a single value counting as a list of one, without duplicates, in ascending order: texts by code unit, lists element by element), {"record": {"field": a, ...}} (an object of these fields, absent ones left out, e.g. an account put together from V1 arguments, read with a path: $let.sender.owner), {"if": p, "then": a, "else": b} (a when the predicate p holds, else b, absent without "else")';
/** A condition on value expressions (see PREDICATE_FORMS). */
export type Predicate =
  | { eq: [Operand, Operand] }
  | { in: [Operand, Operand] }
  | { subsetOf: [Operand, Operand] }
  | { exists: Operand }
  | { matches: [Operand, string] }
  | { lt: [Operand, Operand] }
  | { count: [Operand, Operand] }
  | { consecutive: Operand }
  | { not: Predicate }
  | { all: Predicate[] }
  | { any: Predicate[] };

const PREDICATE_FORMS =
  '{"eq": [a, b]} (equal values), {"in": [a, b]} (a is an element of the list b; a single value counts as a list of one), {"subsetOf": [a, b]} (every element of the list a, absent and null ones aside, is in b), {"exists": a} (present and not null), {"matches": [a, "regex"]} (some element of the list a is a text the regex matches whole, JavaScript syntax), {"lt": [a, b]} (a orders before b, compared as match comparisons compare), {"count": [a, "n"]} (the list a has n elements, absent and null ones aside), {"consecutive": a} (the elements of the list a are whole numbers that, in ascending order, each follow the one before by 1), {"not": p}, {"all": [p, ...]}, {"any": [p, ...]}, where a and b are value expressions';

/** A non-negative whole number, as a `count` predicate compares with. */
export const WHOLE_NUMBER = /^(0|[1-9][0-9]*)$/;

/** Parses a predicate, reporting each mistake at its own path. */
function parsePredicate(v: unknown, path: PropertyKey[], ctx: z.RefinementCtx): Predicate | undefined {
  const fail = (message: string, at: PropertyKey[] = path) => {
    ctx.addIssue({ code: 'custom', message, path: at });
    return undefined;
  };
  if (v === null || typeof v !== 'object' || Array.isArray(v) || Object.keys(v).length !== 1) return fail(`a predicate is one of ${PREDICATE_FORMS}`);
  const [op, arg] = Object.entries(v)[0]!;
  const operand = (x: unknown, at: PropertyKey[]): Operand | undefined => {
    if (x !== null && typeof x === 'object') return parseComputed(x, at, ctx);
    const r = ValueExprSchema.safeParse(x);
    if (r.success) return r.data;
    for (const i of r.error.issues) fail(i.message, at);
    return undefined;
  };
  switch (op) {
    case 'eq':
    case 'in':
    case 'lt':
    case 'subsetOf': {
      if (!Array.isArray(arg) || arg.length !== 2) return fail(`"${op}" takes a list of two value expressions`, [...path, op]);
      const a = operand(arg[0], [...path, op, 0]);
      const b = operand(arg[1], [...path, op, 1]);
      return a === undefined || b === undefined ? undefined : op === 'eq' ? { eq: [a, b] } : op === 'in' ? { in: [a, b] } : op === 'lt' ? { lt: [a, b] } : { subsetOf: [a, b] };
    }
    case 'exists':
    case 'consecutive': {
      const a = operand(arg, [...path, op]);
      return a === undefined ? undefined : op === 'exists' ? { exists: a } : { consecutive: a };
    }
    case 'count': {
      if (!Array.isArray(arg) || arg.length !== 2) return fail('"count" takes a list expression and the number of its elements, e.g. ["$ref.rounds", "3"]', [...path, op]);
      const a = operand(arg[0], [...path, op, 0]);
      const n = operand(arg[1], [...path, op, 1]);
      if (n === undefined) return undefined;
      const e = n === null || typeof n !== 'object' ? parseValueExpr(n) : undefined;
      if (e !== undefined && typeof e !== 'string' && e.kind === 'literal' && !(typeof e.value === 'string' && WHOLE_NUMBER.test(e.value))) {
        return fail(`${JSON.stringify(n)}: "count" compares with a whole number written as a string, e.g. "3"`, [...path, op, 1]);
      }
      return a === undefined ? undefined : { count: [a, n] };
    }
    case 'matches': {
      if (!Array.isArray(arg) || arg.length !== 2 || typeof arg[1] !== 'string') return fail('"matches" takes a value expression and a regular expression (a string)', [...path, op]);
      try {
        new RegExp(arg[1]);
      } catch (err) {
        return fail(`not a regular expression: ${(err as Error).message}`, [...path, op, 1]);
      }
      const a = operand(arg[0], [...path, op, 0]);
      return a === undefined ? undefined : { matches: [a, arg[1]] };
    }
    case 'not': {
      const p = parsePredicate(arg, [...path, op], ctx);
      return p === undefined ? undefined : { not: p };
    }
    case 'all':
    case 'any': {
      if (!Array.isArray(arg) || arg.length === 0) return fail(`"${op}" takes a non-empty list of predicates`, [...path, op]);
      const ps = arg.map((x, i) => parsePredicate(x, [...path, op, i], ctx));
      if (ps.some((p) => p === undefined)) return undefined;
      const ok = ps.filter((p): p is Predicate => p !== undefined);
      return op === 'all' ? { all: ok } : { any: ok };
    }
    default:
      return fail(`unknown predicate "${op}"; a predicate is one of ${PREDICATE_FORMS}`);
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
/** Parses a computed value (COMPUTED_FORMS), reporting each mistake at its own path. */
function parseComputed(v: object, path: PropertyKey[], ctx: z.RefinementCtx): ComputedValue | undefined {
  const fail = (message: string, at: PropertyKey[] = path) => {
    ctx.addIssue({ code: 'custom', message, path: at });
    return undefined;
  };
  const operand = (x: unknown, at: PropertyKey[]): Operand | undefined => {
    if (x !== null && typeof x === 'object') return parseComputed(x, at, ctx);
    const r = ValueExprSchema.safeParse(x);
    if (r.success) return r.data;
    for (const i of r.error.issues) fail(i.message, at);
    return undefined;
  };
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (!Array.isArray(v) && keys.length === 1 && (keys[0] === 'list' || keys[0] === 'union')) {
    const k = keys[0];
    const xs = o[k];
    if (!Array.isArray(xs)) return fail(`"${k}" takes a list of values`, [...path, k]);
    const out = xs.map((x, i) => operand(x, [...path, k, i]));
    if (out.some((x) => x === undefined)) return undefined;
    const ok = out.filter((x): x is Operand => x !== undefined);
    return k === 'list' ? { list: ok } : { union: ok };
  }
  if (!Array.isArray(v) && keys.length === 1 && keys[0] === 'record') {
    if (!isPlainObject(o.record)) return fail('"record" takes an object {"field": <value>, ...}', [...path, 'record']);
    const fields = Object.entries(o.record).map(([k, x]) => [k, operand(x, [...path, 'record', k])] as const);
    if (fields.some(([, x]) => x === undefined)) return undefined;
    return { record: Object.fromEntries(fields) as Record<string, Operand> };
  }
  if (!Array.isArray(v) && 'if' in o && 'then' in o && keys.every((k) => k === 'if' || k === 'then' || k === 'else')) {
    const p = parsePredicate(o.if, [...path, 'if'], ctx);
    const then = operand(o.then, [...path, 'then']);
    const otherwise = 'else' in o ? operand(o.else, [...path, 'else']) : null;
    if (p === undefined || then === undefined || otherwise === undefined) return undefined;
    return 'else' in o ? { if: p, then, else: otherwise as Operand } : { if: p, then };
  }
  return fail(`a value is a value expression (a string, a boolean or null) or a computed value: ${COMPUTED_FORMS}`);
}

const PredicateSchema = z.unknown().transform((v, ctx): Predicate => parsePredicate(v, [], ctx) ?? z.NEVER);

/** A value expression or a computed value (a refusal's `let`). */
const OperandSchema = z.unknown().transform((v, ctx): Operand => {
  if (v !== null && typeof v === 'object') return parseComputed(v, [], ctx) ?? z.NEVER;
  const r = ValueExprSchema.safeParse(v);
  if (r.success) return r.data;
  for (const i of r.error.issues) ctx.addIssue({ code: 'custom', message: i.message, path: i.path as PropertyKey[] });
  return z.NEVER;
});

/** The value expressions of an operand (those inside a computed value, and of its `if` predicates). */
export function operandExpressions(o: Operand, at: string): Array<{ at: string; raw: string | boolean | null; expr: ValueExpr | string }> {
  if (o === null || typeof o !== 'object') return [{ at, raw: o, expr: parseValueExpr(o) }];
  if ('list' in o) return o.list.flatMap((x, i) => operandExpressions(x, `${at}.list[${i}]`));
  if ('union' in o) return o.union.flatMap((x, i) => operandExpressions(x, `${at}.union[${i}]`));
  if ('record' in o) return Object.entries(o.record).flatMap(([k, x]) => operandExpressions(x, `${at}.record.${k}`));
  return [...predicateExpressions(o.if, `${at}.if`), ...operandExpressions(o.then, `${at}.then`), ...(o.else !== undefined ? operandExpressions(o.else, `${at}.else`) : [])];
}

/** The value expressions of a predicate, with their paths. */
export function predicateExpressions(p: Predicate, at: string): Array<{ at: string; raw: string | boolean | null; expr: ValueExpr | string }> {
  const one = operandExpressions;
  if ('eq' in p) return p.eq.flatMap((x, i) => one(x, `${at}.eq[${i}]`));
  if ('in' in p) return p.in.flatMap((x, i) => one(x, `${at}.in[${i}]`));
  if ('subsetOf' in p) return p.subsetOf.flatMap((x, i) => one(x, `${at}.subsetOf[${i}]`));
  if ('lt' in p) return p.lt.flatMap((x, i) => one(x, `${at}.lt[${i}]`));
  if ('count' in p) return p.count.flatMap((x, i) => one(x, `${at}.count[${i}]`));
  if ('exists' in p) return one(p.exists, `${at}.exists`);
  if ('consecutive' in p) return one(p.consecutive, `${at}.consecutive`);
  if ('matches' in p) return one(p.matches[0], `${at}.matches[0]`);
  if ('not' in p) return predicateExpressions(p.not, `${at}.not`);
  if ('all' in p) return p.all.flatMap((q, i) => predicateExpressions(q, `${at}.all[${i}]`));
  return p.any.flatMap((q, i) => predicateExpressions(q, `${at}.any[${i}]`));
}

const EntryIfSchema = PredicateSchema.describe(
  'Apply the entry only when this predicate holds (the forms are those of `transferKind.self[].when`), e.g. only for a real owner: `{"not": {"eq": ["$args.transfer.receiver", "cip-112_no-owner::1220…"]}}`. Its value expressions may read what the entry\'s `match` may read, named selections included. With `when`, both must hold.',
);
const SelfWhenSchema = PredicateSchema.describe(
    'The transfer is `self` when this predicate holds. A predicate is one of `{"eq": [a, b]}` (equal values), `{"in": [a, b]}` (a is an element of the list b; a single value counts as a list of one; an absent a is in nothing), `{"subsetOf": [a, b]}` (every element of the list a is in b; absent and null elements aside), `{"exists": a}` (present and not null), `{"matches": [a, "regex"]}` (some element of the list a is a text the regex, JavaScript syntax, matches whole; e.g. a metadata key of a pattern: `{"matches": ["$args.transfer.meta.values.~", "cip-112/sender[.].*"]}`), `{"lt": [a, b]}` (a orders before b, as `match` comparisons compare: numbers, times, else texts; e.g. which of two parties a sorted list names first), `{"count": [a, "n"]}` (the list a has exactly n elements, absent and null ones aside; n a whole number written as a string, or a value expression giving one), `{"consecutive": a}` (the elements of the list a are whole numbers, as Int64 texts or numbers, that in ascending order each follow the one before by 1: no gap, no repeat; e.g. Splice Scan\'s usable mining rounds, exactly three consecutive open rounds: `{"all": [{"count": ["$ref.rounds", "3"]}, {"consecutive": "$ref.rounds.round.number"}]}`), `{"not": p}`, `{"all": [p, ...]}`, `{"any": [p, ...]}`, where a and b are value expressions. They read `$args.<path>`, `$admin` and the named context entries of the endpoint (`$ref.<name>.<path>`, `$found.<name>`; a `list` or `select` entry reads as a list, so test a field of its contract with `{"in": [true, "$ref.config.ownerConfig.canInitiate"]}`). E.g. the actors are the sender account\'s owner and provider: `{"subsetOf": ["$args.transfer.sender.{owner,provider}", "$args.actors"]}`.');
export type SelfRule = z.output<typeof SelfRuleSchema>;
const SelfRuleSchema = strict({
  endpoints: z.array(z.enum(TRANSFER_FACTORY_ENDPOINTS)).min(1).optional().describe('The transfer factories the rule applies to. Omitted: both configured ones.'),
  let: z
    .record(SelectionNameSchema, OperandSchema)
    .optional()
    .describe('Named values computed before `when` is tested, read there as `$let.<name>` (the forms of `refuse[].let`), e.g. the parties authorised once the sender\'s step is done.'),
  when: SelfWhenSchema,
}).describe('When the transfer factory reports `self`.');
const SelfRuleListSchema = z.array(SelfRuleSchema);
const SelfRulesSchema = z.unknown().transform((v, ctx): SelfRule[] => {
  const r = Array.isArray(v) ? SelfRuleListSchema.safeParse(v) : SelfRuleSchema.safeParse(v);
  if (r.success) return Array.isArray(r.data) ? r.data : [r.data];
  for (const i of r.error.issues) ctx.addIssue({ code: 'custom', message: i.message, path: i.path as PropertyKey[] });
  return z.NEVER;
});

export type DirectRule = z.output<typeof DirectRuleSchema>;
const DirectRuleSchema = strict({
  ...selectorShape,
  key: z.string().min(1).optional().describe('Also put the matching contract (e.g. the receiver\'s pre-approval) into the context under this key, and disclose it (after the context entries).'),
  name: SelectionNameSchema.optional().describe(
    'Names the contract the rule found, for the context entries: `$ref.<name>.<path>` reads it (e.g. the pre-approval\'s `provider`, to find the provider\'s featured-app right), `$found.<name>` and `when` test whether the rule matched.',
  ),
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

const RefuseWhenSchema = PredicateSchema.describe(
  'Refuse only when this predicate holds (the forms of `transferKind.self[].when`). It reads `$args.<path>`, `$admin` and the named context entries of the endpoint (`$ref.<name>.<path>`, `$found.<name>`), e.g. the actors are not the sender account\'s owner: `{"not": {"subsetOf": ["$args.actors", "$args.transfer.sender.owner"]}}`. Omitted: always.',
);
const RefuseAfterSchema = z
  .array(SelectionNameSchema)
  .min(1)
  .describe(
    'Names of context entries (of the rule\'s endpoints or choices) whose lookups are made, in this order, before the rule is checked: a required entry that finds nothing answers its 404 first. This orders the refusals among the lookups as a token\'s own registry orders its checks, e.g. Splice Scan looks up AmuletRules and the open round before it checks the rounds: `"after": ["rules", "open-round"]`; and the factory before the allocations of a settlement: a `select` entry of the factory\'s template, named and listed here. Omitted: the rule is checked before any entry it does not read.',
  );
const PerContractRefuseWhenSchema = PredicateSchema.describe(
  'Refuse only when this predicate holds (the forms of `transferKind.self[].when`). It reads `$contract.<path>`, `$contractId`, `$admin`, `$now` and the named context entries of the choice (`$ref.<name>.<path>`, `$found.<name>`), e.g. unless exactly three consecutive rounds are open: `{"not": {"all": [{"count": ["$ref.rounds", "3"]}, {"consecutive": "$ref.rounds.round.number"}]}}`. Omitted: always.',
);
const RefusalStatusSchema = z.union([z.literal(400), z.literal(404)]).describe('400 (the request asks for something the token refuses) or 404 (something it names does not exist).');
const RefusalErrorSchema = z
  .string()
  .min(1)
  .describe(
    'The message. `{...}` inserts a computed value: a value expression (`{$args.transfer.sender}`; a list shows as JSON) or a function of value expressions and quoted texts: `join(list, "sep")` (the elements as text, separated by sep; an element that is itself a list shows as `[a, b]`), `sort(list)` (ascending, as texts), `matching(list, "regex")` (the texts the regex matches whole, in order), `default(value, "text")` (the text when the value is absent or null). E.g. the offending metadata keys in request order: `{join(matching($args.transfer.meta.values.~, "cip-112/.*"), ", ")}`; the actors sorted: `{join(sort($args.actors), ", ")}`.',
  );
/**
 * A lookup made while an element is checked, so that each element's contracts are looked up right
 * after its own checks, before the next element is checked (as the built-in recipes check each
 * settled allocation, then its locked holdings).
 */
const WhenMissingSchema = strict({
  templateId: selectorShape.templateId,
  interfaceId: selectorShape.interfaceId,
  orTemplateIds: selectorShape.orTemplateIds,
  match: selectorShape.match,
  synchronizerId: selectorShape.synchronizerId,
})
  .superRefine(checkTemplateOrInterface)
  .describe(
    'The check applies only when this selector finds no active contract (with `when`: when both hold; `when` is tested first, so it can rule out elements that need no lookup): a lookup of this element\'s own contracts, made right after the checks before it and before the next element is checked. Its `match` reads what the checks read (`$item`, `$itemContract.<path>`, `$args.<path>`, `$admin`, named selections); a value with a `*` step or a `$id` list looks up each of its elements (absent and null ones aside), and the check applies when one finds nothing: that one is `$missing` in `error`. E.g. each settled allocation\'s locked holding: `{"templateId": "#splice-amulet:Splice.Amulet:LockedAmulet", "match": {"$id": "$itemContract.payload.lockedAmulet"}}` with `"error": "LockedAmulet {$missing} of allocation {$item} not found"`.',
  );
export type FactoryRefusal = z.output<typeof FactoryRefusalSchema>;
const FactoryRefusalSchema = strict({
  endpoints: z.array(z.enum(FACTORY_ENDPOINTS)).min(1).optional().describe('The factory endpoints the rule applies to (configured in `factories`). Omitted: all of them.'),
  transferKinds: z
    .array(z.enum(['self', 'direct', 'offer']))
    .min(1)
    .optional()
    .describe('Only transfers of these kinds (transfer factories only: the kind is decided first, by `transferKind`), e.g. `["offer"]` for what the instruction an offer creates would refuse. Omitted: any.'),
  let: z
    .record(SelectionNameSchema, OperandSchema)
    .optional()
    .describe(
      'Named values the rule computes before it checks (in order: a value may read those before it), read as `$let.<name>` in its `when`, `checks` and `error`: a value expression or a computed value, `{"list": [a, ...]}` (the present values, in order), `{"union": [a, ...]}` (the elements of each, without duplicates, ascending: texts by code unit, lists element by element) or `{"if": <predicate>, "then": a, "else": b}`. E.g. the groups of parties an account lets initiate, tested with `{"in": [{"union": ["$args.actors"]}, "$let.groups"]}` and shown with `{join($let.groups, " or ")}` (a list in a list shows as `[a, b]`).',
    ),
  when: RefuseWhenSchema.optional(),
  after: RefuseAfterSchema.optional(),
  status: RefusalStatusSchema.optional(),
  error: RefusalErrorSchema.optional(),
  forEach: z
    .string()
    .superRefine((v, ctx) => {
      const e = parseValueExpr(v);
      if (typeof e === 'string') ctx.addIssue({ code: 'custom', message: e });
    })
    .optional()
    .describe(
      'Check each element of this list expression in turn (e.g. `$args.allocations.*.allocationCid`), with `checks` instead of `status` and `error`: for the first element, every check in order, then for the next. In the checks, `$item` is the element and `$itemContract` the active contract of that id, of any template, as the registry admin sees it (absent when there is none): `$itemContract.templateId` (as the ledger reports it), `$itemContract.template` (`#<package-name>:<Module>:<Entity>`, to compare with), `$itemContract.payload.<path>`. An element of an `$args` list that is not a contract id is a 400 naming the argument, as a `$id` match answers. A check with `whenMissing` looks the element\'s own contracts up in its turn, so an element\'s lookups come after its checks and before the next element\'s.',
    ),
  checks: z
    .array(
      strict({
        when: RefuseWhenSchema.optional(),
        whenMissing: WhenMissingSchema.optional(),
        status: RefusalStatusSchema,
        error: RefusalErrorSchema,
      }),
    )
    .min(1)
    .optional()
    .describe('With `forEach`: the checks of each element, in order; the first whose `when` holds (and whose `whenMissing` finds nothing) answers its status and message. E.g. `{"when": {"not": {"exists": "$itemContract"}}, "status": 404, "error": "Allocation {$item} not found"}`, then a check of its template, then of its admin.'),
})
  .superRefine((r, ctx) => {
    if (r.forEach !== undefined) {
      if (r.checks === undefined) ctx.addIssue({ code: 'custom', path: ['checks'], message: 'a rule with "forEach" has "checks" (each with "when", "status" and "error")' });
      for (const k of ['when', 'status', 'error'] as const) if (r[k] !== undefined) ctx.addIssue({ code: 'custom', path: [k], message: `a rule with "forEach" puts "${k}" in each of its "checks"` });
    } else {
      if (r.checks !== undefined) ctx.addIssue({ code: 'custom', path: ['checks'], message: '"checks" go with "forEach" (the list whose elements they check)' });
      for (const k of ['status', 'error'] as const) if (r[k] === undefined) ctx.addIssue({ code: 'custom', path: [k], message: `a refusal needs "${k}" (or "forEach" with "checks")` });
    }
  })
  .describe('A request a factory refuses before it answers: the first rule (in list order) whose endpoints, transfer kinds and `when` all match answers its status and message; a `forEach` rule checks the elements of a list one by one.');

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

// ---- definitions --------------------------------------------------------------------------------

/**
 * Named definitions: a predicate, a value (a value expression or a computed value) or a message,
 * written once at recipe level and used wherever one of that kind goes, as
 * `{"$def": "<name>", "with": {"<param>": <argument>}}`. They are expanded when the recipe is
 * loaded (before anything else is checked), so an expanded use is checked, and reported, where it
 * is used; a definition's body names its parameters `$<param>` (optionally followed by a path,
 * appended to the argument's), and may use other definitions.
 */
export type DefinitionKind = 'predicate' | 'value' | 'message';
const DEFINITION_KINDS: readonly DefinitionKind[] = ['predicate', 'value', 'message'];
const DEFINITION_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;
/** Value expression roots: a parameter may not take one of these names. */
const RESERVED_PARAMS = new Set(['admin', 'now', 'args', 'contract', 'contractId', 'ref', 'found', 'item', 'itemContract', 'missing', 'let', 'def']);
const WHERE_DEFINITIONS_GO =
  'a definition is used as a predicate (when, if, not, all, any, a computed if), a value (a predicate operand, a let value, list, union, record, then, else) or a message (error, missingError)';

const DefinitionSchema = strict({
  description: z.string().optional().describe('What the definition stands for, for the people who maintain the recipe.'),
  params: z
    .array(z.string().regex(DEFINITION_NAME, 'a parameter name is letters, digits, _ and -, starting with a letter or _').refine((p) => !RESERVED_PARAMS.has(p), 'a parameter may not be named after a value expression root ($admin, $args, $ref, ...)'))
    .optional()
    .describe('The names of its parameters: every use gives each an argument in `with`, and the body reads it as `$<param>` (`$account.owner`: the argument, a value expression such as `$args.transfer.sender`, with `.owner` appended). An argument may be any JSON the place of the parameter takes (a value expression, a computed value, a predicate).'),
  predicate: z.unknown().optional().describe('A predicate (the forms of `transferKind.self[].when`): the definition is used where a predicate goes.'),
  value: z.unknown().optional().describe('A value expression or a computed value (the forms of a refusal\'s `let`): the definition is used where a value goes (a predicate operand, a `let` value, an element of `list` or `union`).'),
  message: z.string().min(1).optional().describe('A message (with `{...}` placeholders, as `refuse[].error`): the definition is used as an `error` or `missingError`; `$<param>` is replaced by its argument anywhere in the text.'),
})
  .refine((d) => DEFINITION_KINDS.filter((k) => d[k] !== undefined).length === 1, 'a definition has exactly one of "predicate", "value" and "message"')
  .describe('One definition: its body (exactly one of `predicate`, `value`, `message`) and its parameters.');

const DefinitionsSchema = z
  .record(z.string().regex(DEFINITION_NAME, 'a definition name is letters, digits, _ and -, starting with a letter or _'), DefinitionSchema)
  .optional()
  .describe(
    'Named predicates, values and messages, written once and used anywhere one of their kind goes as `{"$def": "<name>", "with": {"<param>": <argument>, ...}}` (e.g. one predicate for the V1 and the V2 factory, each passing its own account path). Expanded when the recipe is loaded: a use of an unknown definition, of a definition of another kind, a missing or unknown argument, and definitions that use themselves (directly or through others) are configuration errors.',
  );

type Json = unknown;
const isRecord = (v: Json): v is Record<string, Json> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Where in a recipe a node sits: what a `$def` there must stand for (`values`: a map of values, a rule's `let` or a `record`). */
type Position = DefinitionKind | 'other' | 'values';

/** The position of the children of a node at `pos`, by key (an array's elements keep the key's). */
function childPosition(pos: Position, key: string): Position {
  if (pos === 'predicate') {
    // not, all, any combine predicates; every other operator (eq, in, exists, ...) takes values
    return key === 'not' || key === 'all' || key === 'any' ? 'predicate' : 'value';
  }
  if (pos === 'value') {
    if (key === 'if') return 'predicate';
    if (key === 'list' || key === 'union' || key === 'then' || key === 'else') return 'value';
    if (key === 'record') return 'values';
    return 'other';
  }
  if (pos === 'values') return 'value';
  if (key === 'when' || key === 'if') return 'predicate';
  if (key === 'error' || key === 'missingError') return 'message';
  if (key === 'let') return 'values';
  return 'other';
}

/** `$param` and `$param.<path>` in a body; in a message, anywhere in the text. */
function substitute(body: Json, args: Record<string, Json>, kind: DefinitionKind, problems: string[], at: string): Json {
  const names = Object.keys(args);
  if (typeof body === 'string') {
    if (kind === 'message') {
      if (names.length === 0) return body;
      return body.replace(new RegExp(`\\$(${names.map((n) => n.replace(/[-]/g, '\\-')).join('|')})(?![A-Za-z0-9_-])`, 'g'), (_m, n: string) => {
        const a = args[n];
        if (a !== null && typeof a === 'object') {
          problems.push(`${at}.with.${n}: the message reads $${n} in its text, so its argument is a value expression or a literal, not ${JSON.stringify(a)}`);
          return '';
        }
        return String(a);
      });
    }
    const m = /^\$([A-Za-z_][A-Za-z0-9_-]*)(\..*)?$/.exec(body);
    if (!m || !(m[1]! in args)) return body;
    const arg = args[m[1]!];
    if (m[2] === undefined) return arg;
    if (typeof arg === 'string' && arg.startsWith('$') && !arg.startsWith('$$')) return arg + m[2];
    problems.push(`${at}.with.${m[1]!}: the definition reads "${body}", a path into its argument, so the argument is a value expression such as "$args.transfer.sender", not ${JSON.stringify(arg)}`);
    return body;
  }
  if (Array.isArray(body)) return body.map((x) => substitute(x, args, kind, problems, at));
  if (isRecord(body)) return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, substitute(v, args, kind, problems, at)]));
  return body;
}

/** The names of the definitions a body uses. */
function usesOf(v: Json, out = new Set<string>()): Set<string> {
  if (Array.isArray(v)) for (const x of v) usesOf(x, out);
  else if (isRecord(v)) {
    if (typeof v.$def === 'string') out.add(v.$def);
    for (const x of Object.values(v)) usesOf(x, out);
  }
  return out;
}

/** The definitions of a recipe document that neither the recipe nor a definition it uses uses. */
function unusedDefinitions(json: Json): string[] {
  if (!isRecord(json) || !isRecord(json.definitions)) return [];
  const defs = json.definitions;
  const used = usesOf(Object.fromEntries(Object.entries(json).filter(([k]) => k !== 'definitions')));
  for (let grew = true; grew; ) {
    grew = false;
    for (const n of [...used]) for (const m of usesOf(defs[n])) if (!used.has(m)) (used.add(m), (grew = true));
  }
  return Object.keys(defs).filter((n) => !used.has(n));
}

/**
 * Expands the `$def` uses of a recipe document (recipe level `definitions`); each problem is one
 * `<path>: <what>`. The document is returned unchanged when it has no definitions and no uses.
 */
export function expandDefinitions(json: Json): { json: Json; problems: string[] } {
  const problems: string[] = [];
  if (!isRecord(json)) return { json, problems };
  const defs = new Map<string, { kind: DefinitionKind; params: string[]; body: Json }>();
  const raw = json.definitions;
  if (raw !== undefined) {
    const r = DefinitionsSchema.safeParse(raw);
    if (!r.success) return { json, problems: zodProblems(r.error).map((p) => `definitions${p.startsWith('(root)') ? p.slice('(root)'.length) : p.startsWith('[') ? p : `.${p}`}`) };
  }
  if (isRecord(raw)) {
    for (const [name, d] of Object.entries(raw)) {
      if (!isRecord(d)) continue; // the schema reports it
      const kinds = DEFINITION_KINDS.filter((k) => d[k] !== undefined);
      if (kinds.length !== 1) continue;
      const params = Array.isArray(d.params) ? d.params.filter((p): p is string => typeof p === 'string') : [];
      defs.set(name, { kind: kinds[0]!, params, body: d[kinds[0]!] });
    }
  }
  // A definition may not use itself, directly or through others: report each cycle once.
  const inCycle = new Set<string>();
  const reported = new Set<string>();
  for (const start of defs.keys()) {
    const walk = (name: string, trail: string[]): void => {
      for (const next of usesOf(defs.get(name)?.body)) {
        if (!defs.has(next)) continue;
        if (next === start) {
          const cycle = [...trail, start];
          for (const n of trail) inCycle.add(n);
          const key = [...trail].sort().join(',');
          if (!reported.has(key)) {
            reported.add(key);
            problems.push(`definitions.${start}: the definition uses itself (${cycle.join(' → ')}); a definition may use others, not itself`);
          }
          continue;
        }
        if (!trail.includes(next)) walk(next, [...trail, next]);
      }
    };
    walk(start, [start]);
  }
  let used = false;
  const expand = (node: Json, pos: Position, at: string, depth: number): Json => {
    if (Array.isArray(node)) return node.map((x, i) => expand(x, pos, `${at}[${i}]`, depth));
    if (!isRecord(node)) return node;
    if (!('$def' in node)) {
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, expand(v, childPosition(pos, k), at === '' ? k : `${at}.${k}`, depth)]));
    }
    used = true;
    const here = at === '' ? '(root)' : at;
    const name = node.$def;
    const extra = Object.keys(node).filter((k) => k !== '$def' && k !== 'with');
    if (extra.length > 0) {
      problems.push(`${here}: a use of a definition has "$def" and "with" only, not ${extra.map((k) => `"${k}"`).join(', ')}`);
      return node;
    }
    if (typeof name !== 'string') {
      problems.push(`${here}.$def: the name of a definition (a string)`);
      return node;
    }
    const def = defs.get(name);
    if (!def) {
      problems.push(`${here}: unknown definition "${name}"${defs.size > 0 ? ` (definitions: ${[...defs.keys()].join(', ')})` : ' (the recipe has no "definitions")'}`);
      return node;
    }
    if (pos === 'other' || pos === 'values') {
      problems.push(`${here}: the ${def.kind} definition "${name}" cannot be used here; ${WHERE_DEFINITIONS_GO}`);
      return node;
    }
    if (def.kind !== pos) {
      problems.push(`${here}: "${name}" is a ${def.kind} definition, but a ${pos} goes here`);
      return node;
    }
    if (inCycle.has(name) || depth > 64) return node; // reported under definitions
    const given = node.with === undefined ? {} : node.with;
    if (!isRecord(given)) {
      problems.push(`${here}.with: the arguments of "${name}" are an object {"<param>": <argument>}`);
      return node;
    }
    const before = problems.length;
    for (const k of Object.keys(given)) if (!def.params.includes(k)) problems.push(`${here}.with.${k}: "${name}" has no parameter "${k}"${def.params.length > 0 ? ` (parameters: ${def.params.join(', ')})` : ' (it takes no arguments)'}`);
    for (const p of def.params) if (!(p in given)) problems.push(`${here}.with: missing the argument of parameter "${p}" of "${name}"`);
    if (problems.length > before) return node;
    // arguments are expanded where they are used (a parameter stands where its argument goes)
    const body = substitute(def.body, given, def.kind, problems, here);
    return expand(body, pos, at, depth + 1);
  };
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(json)) out[k] = k === 'definitions' ? v : expand(v, childPosition('other', k), k, 0);
  return { json: used || problems.length > 0 ? out : json, problems };
}

/** Expands definitions before the structure is checked; a problem stops the parse (each reported once, at its use). */
function expandForSchema(v: unknown, ctx: z.RefinementCtx): unknown {
  const { json, problems } = expandDefinitions(v);
  if (problems.length === 0) return json;
  for (const p of problems) {
    const i = p.indexOf(': ');
    const at = p.slice(0, i);
    ctx.addIssue({ code: 'custom', message: p.slice(i + 2), path: at === '(root)' ? [] : pathOf(at) });
  }
  return z.NEVER;
}

/** `refuse[3].when.all[0]` as a zod path. */
function pathOf(at: string): PropertyKey[] {
  return [...at.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]!));
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
export type ContractSelector = z.output<typeof SelectorSchema>;
export type FactoryContextEntry = DeclarativeRecipeConfig['contextEntries'][number];
export type PerContractKind = 'transferInstructions' | 'allocationInstructions' | 'allocations';
export type PerContractConfig = NonNullable<DeclarativeRecipeConfig[PerContractKind]>;
export type PerContractContextEntry = PerContractConfig['contextEntries'][number];

// ---- value expressions --------------------------------------------------------------------------

export type ValueExpr =
  | { kind: 'literal'; value: string | boolean | null }
  | { kind: 'admin' }
  | { kind: 'now' }
  | { kind: 'contractId' }
  | { kind: 'item' }
  | { kind: 'itemContract'; path: string[] }
  | { kind: 'missing' }
  | { kind: 'args'; path: string[] }
  | { kind: 'contract'; path: string[] }
  | { kind: 'ref'; name: string; path: string[] }
  | { kind: 'found'; name: string }
  | { kind: 'let'; name: string; path: string[] };

const ROOTS = 'a literal, $admin, $now, $args.<path>, $contract.<path>, $contractId, $ref.<name>.<path>, $found.<name>, $item (in missingError and forEach refusals), $itemContract.<path> (in forEach refusals), $missing (in the error of a check with whenMissing), or "$$..." for a literal starting with "$"';

/** Parses a value expression; returns an error text (what is wrong and what is allowed) on failure. */
export function parseValueExpr(v: string | boolean | null): ValueExpr | string {
  if (typeof v !== 'string' || !v.startsWith('$')) return { kind: 'literal', value: v };
  if (v.startsWith('$$')) return { kind: 'literal', value: v.slice(1) };
  if (v === '$admin') return { kind: 'admin' };
  if (v === '$now') return { kind: 'now' };
  if (v === '$contractId') return { kind: 'contractId' };
  if (v === '$item') return { kind: 'item' };
  if (v === '$missing') return { kind: 'missing' };
  const ic = /^\$itemContract(?:\.(.*))?$/.exec(v);
  if (ic) {
    if (ic[1] !== undefined && !PATH.test(ic[1])) return `"${v}": not a field path after $itemContract`;
    return { kind: 'itemContract', path: ic[1] === undefined ? [] : splitPath(ic[1]) };
  }
  const m = /^\$(args|contract)(?:\.(.*))?$/.exec(v);
  if (m) {
    const path = m[2];
    if (path === undefined || !PATH.test(path)) return `"${v}": $${m[1]} needs a field path, e.g. "$${m[1]}.${m[1] === 'args' ? 'transfer.receiver' : 'transfer.instrumentId'}"`;
    return { kind: m[1] as 'args' | 'contract', path: splitPath(path) };
  }
  const l = /^\$let\.([A-Za-z_][A-Za-z0-9_-]*)(?:\.(.*))?$/.exec(v);
  if (l) {
    if (l[2] !== undefined && !PATH.test(l[2])) return `"${v}": not a field path after $let.${l[1]!}`;
    return { kind: 'let', name: l[1]!, path: l[2] === undefined ? [] : splitPath(l[2]) };
  }
  const r = /^\$(ref|found)\.([A-Za-z_][A-Za-z0-9_-]*)(?:\.(.*))?$/.exec(v);
  if (r) {
    const [, root, name, path] = r;
    if (root === 'found') return path === undefined ? { kind: 'found', name: name! } : `"${v}": $found.<name> takes no path`;
    if (path !== undefined && !PATH.test(path)) return `"${v}": not a field path after $ref.${name!}`;
    return { kind: 'ref', name: name!, path: path === undefined ? [] : splitPath(path) };
  }
  const root = /^\$[^.]*/.exec(v)![0];
  return `"${v}": unknown value expression root "${root}"; use ${ROOTS}`;
}

/**
 * A term of a message placeholder: a value expression, a quoted text (JSON string syntax), or a
 * function over terms (TEMPLATE_FUNCTIONS), so that a message can show a computed list.
 */
export type TemplateTerm = { kind: 'expr'; expr: ValueExpr; text: string } | { kind: 'text'; value: string } | { kind: 'call'; fn: TemplateFunction; args: TemplateTerm[] };
export const TEMPLATE_FUNCTIONS = {
  join: 'join(list, "sep"): the elements as text, separated by sep',
  sort: 'sort(list): the elements in ascending order (as texts, by code unit)',
  matching: 'matching(list, "regex"): the elements that are texts matched whole by the regex (JavaScript syntax, no braces), in order',
  default: 'default(value, "text"): the value, or the text when it is absent or null',
} as const;
export type TemplateFunction = keyof typeof TEMPLATE_FUNCTIONS;
const ARITY: Record<TemplateFunction, { args: number; textAt?: number }> = { join: { args: 2, textAt: 1 }, sort: { args: 1 }, matching: { args: 2, textAt: 1 }, default: { args: 2 } };

/** Parses one placeholder (without its braces); the term, or an error text. */
export function parseTemplateTerm(src: string): TemplateTerm | string {
  let i = 0;
  const ws = () => {
    while (src[i] === ' ') i++;
  };
  const term = (): TemplateTerm | string => {
    ws();
    if (src[i] === '"') {
      const m = /^"(?:[^"\\]|\\.)*"/.exec(src.slice(i));
      if (!m) return `unterminated text in "{${src}}"`;
      i += m[0].length;
      return { kind: 'text', value: JSON.parse(m[0]) as string };
    }
    if (src[i] === '$') {
      // a value expression runs to the next "," or ")" outside its own (a|b) steps
      let depth = 0;
      const start = i;
      for (; i < src.length; i++) {
        const ch = src[i];
        if (ch === '(') depth++;
        else if (ch === ')' && depth === 0) break;
        else if (ch === ')') depth--;
        else if (ch === ',' && depth === 0) break;
      }
      const text = src.slice(start, i).trim();
      const e = parseValueExpr(text);
      return typeof e === 'string' ? e : { kind: 'expr', expr: e, text };
    }
    const f = /^([A-Za-z]+)\(/.exec(src.slice(i));
    if (!f) return `"{${src}}": a placeholder is a value expression ($...), a quoted text or a function: ${Object.values(TEMPLATE_FUNCTIONS).join('; ')}`;
    const name = f[1]!;
    if (!(name in TEMPLATE_FUNCTIONS)) return `"{${src}}": unknown function "${name}"; functions: ${Object.keys(TEMPLATE_FUNCTIONS).join(', ')}`;
    const fn = name as TemplateFunction;
    i += f[0].length;
    const args: TemplateTerm[] = [];
    for (;;) {
      const a = term();
      if (typeof a === 'string') return a;
      args.push(a);
      ws();
      if (src[i] === ',') {
        i++;
        continue;
      }
      if (src[i] === ')') {
        i++;
        break;
      }
      return `"{${src}}": expected "," or ")" after argument ${args.length} of ${fn}`;
    }
    const { args: n, textAt } = ARITY[fn];
    if (args.length !== n) return `"{${src}}": ${TEMPLATE_FUNCTIONS[fn]} (${n} argument${n > 1 ? 's' : ''}, not ${args.length})`;
    if (textAt !== undefined && args[textAt]!.kind !== 'text') return `"{${src}}": argument ${textAt + 1} of ${fn} is a quoted text (${TEMPLATE_FUNCTIONS[fn]})`;
    if (fn === 'matching') {
      try {
        new RegExp((args[1] as { value: string }).value);
      } catch (err) {
        return `"{${src}}": not a regular expression: ${(err as Error).message}`;
      }
    }
    return { kind: 'call', fn, args };
  };
  const t = term();
  if (typeof t === 'string') return t;
  ws();
  return i === src.length ? t : `"{${src}}": unexpected "${src.slice(i)}"`;
}

/** The value expressions inside a placeholder's term. */
export function termExpressions(t: TemplateTerm): Array<{ expr: ValueExpr; text: string }> {
  return t.kind === 'expr' ? [t] : t.kind === 'call' ? t.args.flatMap(termExpressions) : [];
}

/** The `{...}` placeholders of a message template (a value expression or a function call), each parsed (or its error). */
export function templateParts(text: string): Array<string | { term: TemplateTerm; text: string } | { error: string }> {
  const out: Array<string | { term: TemplateTerm; text: string } | { error: string }> = [];
  let last = 0;
  for (const m of text.matchAll(/\{(\$[^{}]*|[A-Za-z]+\([^{}]*)\}/g)) {
    out.push(text.slice(last, m.index));
    const t = parseTemplateTerm(m[1]!);
    out.push(typeof t === 'string' ? { error: t } : { term: t, text: m[1]! });
    last = m.index + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}

/** The value expressions a selector or entry reads (match values and comparisons, `value`, `missingError`). */
export function expressionsOf(e: { match: Record<string, MatchValue>; value?: string | boolean | null | undefined; missingError?: string | undefined }): Array<{ at: string; raw: string | boolean | null; expr: ValueExpr | string }> {
  const out: Array<{ at: string; raw: string | boolean | null; expr: ValueExpr | string }> = [];
  for (const [field, mv] of Object.entries(e.match)) {
    if (mv !== null && typeof mv === 'object') {
      for (const [op, raw] of Object.entries(mv)) if (raw !== undefined) out.push({ at: `match.${field}.${op}`, raw, expr: parseValueExpr(raw) });
    } else out.push({ at: `match.${field}`, raw: mv, expr: parseValueExpr(mv) });
  }
  if (e.value !== undefined) out.push({ at: 'value', raw: e.value, expr: parseValueExpr(e.value) });
  if (e.missingError !== undefined) {
    for (const p of templateParts(e.missingError)) {
      if (typeof p === 'string') continue;
      if ('error' in p) out.push({ at: 'missingError', raw: e.missingError, expr: p.error });
      else for (const x of termExpressions(p.term)) out.push({ at: 'missingError', raw: x.text, expr: x.expr });
    }
  }
  return out;
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
  /** Checks the value expressions of a selector or entry where it is used (which roots, which names, which `$args` paths). */
  const checkMatch = (
    entry: { match: Record<string, MatchValue>; value?: string | boolean | null | undefined; missingError?: string | undefined; when?: { found?: string | undefined; missing?: string | undefined } | undefined },
    at: string,
    where: { endpoints: readonly FactoryEndpoint[]; restrictable: boolean; names: ReadonlySet<string>; forEach?: boolean; lets?: ReadonlySet<string>; whenMissing?: boolean } | { perContract: true; names: ReadonlySet<string> },
    extra: ReadonlyArray<{ at: string; raw: string | boolean | null; expr: ValueExpr | string }> = [],
  ) => {
    for (const { at: sub, raw, expr: e } of [...expressionsOf(entry), ...extra]) {
      const here = sub === '' ? at : `${at}.${sub}`;
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
      if ((e.kind === 'contract' || e.kind === 'contractId') && !('perContract' in where)) {
        problems.push(`${here}: "${String(raw)}": $contract and $contractId are only available in the contextEntries of transferInstructions, allocationInstructions and allocations; factory requests use $args.<path>`);
      }
      if ((e.kind === 'ref' || e.kind === 'found') && !where.names.has(e.name)) {
        problems.push(`${here}: "${String(raw)}": no entry${'perContract' in where ? '' : ' or transferKind.direct rule'} here is named "${e.name}"${where.names.size > 0 ? ` (names: ${[...where.names].join(', ')})` : ''}`);
      }
      if (e.kind === 'item' && sub !== 'missingError' && !('forEach' in where && where.forEach)) problems.push(`${here}: $item is only available in missingError and in the checks of a refusal with forEach`);
      if (e.kind === 'itemContract' && !('forEach' in where && where.forEach)) problems.push(`${here}: $itemContract is only available in the checks of a refusal with forEach`);
      if (e.kind === 'missing' && !(sub === 'error' && 'whenMissing' in where && where.whenMissing)) problems.push(`${here}: $missing is only available in the error of a check with whenMissing (the element it found nothing for)`);
      if (e.kind === 'let' && !('lets' in where && where.lets?.has(e.name))) {
        const lets = 'lets' in where && where.lets ? [...where.lets] : [];
        problems.push(`${here}: "${String(raw)}": no let value ${lets.length > 0 ? `before it is named "${e.name}" (let: ${lets.join(', ')})` : `is named "${e.name}"`}; $let.<name> reads a value of the refusal's own "let"`);
      }
      if (sub === 'match.$id' && e.kind === 'literal' && typeof e.value !== 'string') {
        problems.push(`${here}: the contract id to match must be a string expression`);
      }
    }
    const named = entry.when?.found ?? entry.when?.missing;
    if (named !== undefined && !where.names.has(named)) problems.push(`${at}.when: no entry here is named "${named}"${where.names.size > 0 ? ` (names: ${[...where.names].join(', ')})` : ''}`);
  };
  const namesOf = (xs: ReadonlyArray<{ name?: string | undefined }>) => new Set(xs.flatMap((x) => (x.name === undefined ? [] : [x.name])));
  /** A refusal's `after`: each name is a context entry of every endpoint or choice the rule applies to. */
  const checkAfter = (after: readonly string[] | undefined, at: string, scopes: ReadonlyArray<{ what: string; names: ReadonlySet<string> }>) => {
    (after ?? []).forEach((name, j) => {
      const without = scopes.filter((x) => !x.names.has(name)).map((x) => x.what);
      if (without.length > 0) problems.push(`${at}.after[${j}]: no context entry of ${without.join(', ')} is named "${name}"; "after" names entries the rule's endpoints (or choices) look up`);
    });
  };
  const direct = config.transferKind?.direct === undefined ? [] : Array.isArray(config.transferKind.direct) ? config.transferKind.direct : [config.transferKind.direct];
  const factoryNames = new Set([...namesOf(config.contextEntries), ...namesOf(direct)]);

  if (configured.length === 0 && !config.transferInstructions && !config.allocationInstructions && !config.allocations) {
    problems.push('factories: the recipe configures no factory and no per-contract object; configure at least one of factories.' + FACTORY_ENDPOINTS.join(', factories.'));
  }
  for (const ep of configured) {
    const f = config.factories[ep]!;
    checkMatch(f, `factories.${ep}`, { endpoints: [ep], restrictable: false, names: factoryNames });
    if (f.discloseAfter !== undefined && !factoryNames.has(f.discloseAfter)) {
      problems.push(`factories.${ep}.discloseAfter: no context entry or transferKind.direct rule is named "${f.discloseAfter}"${factoryNames.size > 0 ? ` (names: ${[...factoryNames].join(', ')})` : ''}`);
    }
  }

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
    checkMatch(entry, at, { endpoints, restrictable: entry.endpoints === undefined, names: factoryNames }, entry.if ? predicateExpressions(entry.if, 'if') : []);
    for (const ep of endpoints) claimKey(ep, entry.key, at, entry.as === 'list');
    checkIdMatch(entry, at, problems);
  });

  config.refuse.forEach((rule, i) => {
    const at = `refuse[${i}]`;
    const unknown = (rule.endpoints ?? []).filter((e) => !configured.includes(e));
    if (unknown.length > 0) problems.push(`${at}.endpoints: ${unknown.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not configured in "factories" (configured: ${configured.join(', ') || 'none'})`);
    const endpoints = (rule.endpoints ?? configured).filter((e) => configured.includes(e));
    if (rule.transferKinds !== undefined && endpoints.some((e) => !(TRANSFER_FACTORY_ENDPOINTS as readonly string[]).includes(e))) {
      problems.push(`${at}.transferKinds: only transfer factories have a transfer kind; restrict the rule with "endpoints": ["transferFactory.v1" and/or "transferFactory.v2"]`);
    }
    type Found = { at: string; raw: string | boolean | null; expr: ValueExpr | string };
    const messageExpressions = (text: string, sub: string): Found[] =>
      templateParts(text).flatMap((p): Found[] => (typeof p === 'string' ? [] : 'error' in p ? [{ at: sub, raw: text, expr: p.error }] : termExpressions(p.term).map((x) => ({ at: sub, raw: x.text, expr: x.expr }))));
    // each let value reads the ones before it; the checks read them all
    const lets = new Set<string>();
    for (const [name, o] of Object.entries(rule.let ?? {})) {
      checkMatch({ match: {} }, `${at}.let.${name}`, { endpoints, restrictable: rule.endpoints === undefined, names: factoryNames, lets: new Set(lets) }, operandExpressions(o, ''));
      lets.add(name);
    }
    const where = { endpoints, restrictable: rule.endpoints === undefined, names: factoryNames, lets };
    checkAfter(rule.after, at, endpoints.map((ep) => ({ what: ep, names: namesOf(config.contextEntries.filter((e) => (e.endpoints ?? configured).includes(ep))) })));
    if (rule.forEach === undefined) {
      checkMatch({ match: {} }, at, where, [...(rule.when ? predicateExpressions(rule.when, 'when') : []), ...messageExpressions(rule.error ?? '', 'error')]);
    } else {
      checkMatch({ match: {} }, at, where, [{ at: 'forEach', raw: rule.forEach, expr: parseValueExpr(rule.forEach) }]);
      (rule.checks ?? []).forEach((c, j) => {
        const check = `${at}.checks[${j}]`;
        checkMatch({ match: {} }, check, { ...where, forEach: true, whenMissing: c.whenMissing !== undefined }, [...(c.when ? predicateExpressions(c.when, 'when') : []), ...messageExpressions(c.error, 'error')]);
        if (c.whenMissing) {
          checkMatch(c.whenMissing, `${check}.whenMissing`, { ...where, forEach: true });
          checkIdMatch(c.whenMissing, `${check}.whenMissing`, problems);
        }
      });
    }
  });

  const transferConfigured = TRANSFER_FACTORY_ENDPOINTS.filter((e) => configured.includes(e));
  if (direct.length > 0 && transferConfigured.length === 0) {
    problems.push('transferKind.direct: no transfer factory is configured (factories.transferFactory.v1 or .v2)');
  }
  direct.forEach((rule, i) => {
    const at = Array.isArray(config.transferKind!.direct) ? `transferKind.direct[${i}]` : 'transferKind.direct';
    const unknown = (rule.endpoints ?? []).filter((e) => !transferConfigured.includes(e));
    if (unknown.length > 0) problems.push(`${at}.endpoints: ${unknown.join(', ')} not configured in "factories" (configured: ${transferConfigured.join(', ') || 'none'})`);
    const endpoints = (rule.endpoints ?? transferConfigured).filter((e) => transferConfigured.includes(e));
    checkMatch(rule, at, { endpoints, restrictable: rule.endpoints === undefined, names: factoryNames });
    if (rule.key !== undefined) {
      checkKey(rule.key, `${at}.key`);
      for (const ep of endpoints) claimKey(ep, rule.key, at);
    }
    checkIdMatch(rule, at, problems);
  });

  const selfRules = config.transferKind?.self ?? [];
  if (selfRules.length > 0 && transferConfigured.length === 0) problems.push('transferKind.self: no transfer factory is configured (factories.transferFactory.v1 or .v2)');
  selfRules.forEach((rule, i) => {
    const at = Array.isArray((json as { transferKind?: { self?: unknown } }).transferKind?.self) ? `transferKind.self[${i}]` : 'transferKind.self';
    const unknown = (rule.endpoints ?? []).filter((e) => !transferConfigured.includes(e));
    if (unknown.length > 0) problems.push(`${at}.endpoints: ${unknown.join(', ')} not configured in "factories" (configured: ${transferConfigured.join(', ') || 'none'})`);
    const endpoints = (rule.endpoints ?? transferConfigured).filter((e) => transferConfigured.includes(e));
    // the transfer kind is decided before the direct rules run: only context entries can be read
    const names = namesOf(config.contextEntries);
    const lets = new Set<string>();
    for (const [name, o] of Object.entries(rule.let ?? {})) {
      checkMatch({ match: {} }, `${at}.let.${name}`, { endpoints, restrictable: rule.endpoints === undefined, names, lets: new Set(lets) }, operandExpressions(o, ''));
      lets.add(name);
    }
    checkMatch({ match: {} }, at, { endpoints, restrictable: rule.endpoints === undefined, names, lets }, predicateExpressions(rule.when, 'when'));
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
    for (const t of Object.keys(pc.instrumentByTemplate ?? {})) {
      if (!pc.templateIds.includes(t)) problems.push(`${kind}.instrumentByTemplate: ${t} is not in ${kind}.templateIds`);
    }
    const actions = kind === 'transferInstructions' ? TRANSFER_INSTRUCTION_ACTIONS : kind === 'allocationInstructions' ? ALLOCATION_INSTRUCTION_ACTIONS : ALLOCATION_ACTIONS;
    pc.refuse.forEach((r, i) => {
      const at = `${kind}.refuse[${i}]`;
      const errorParts = templateParts(r.error);
      for (const p of errorParts) if (typeof p !== 'string' && 'error' in p) problems.push(`${at}.error: ${p.error}`);
      const errorExpressions = errorParts.flatMap((p) => (typeof p === 'string' || 'error' in p ? [] : termExpressions(p.term).map((x) => ({ at: 'error', raw: x.text, expr: x.expr }))));
      checkMatch({ match: {} }, at, { perContract: true, names: namesOf(pc.contextEntries) }, [...(r.when ? predicateExpressions(r.when, 'when') : []), ...errorExpressions]);
      // an entry named in `after` must apply to every choice (and template) the rule does
      const entriesOf = (action: string) => pc.contextEntries.filter((e) => (e.endpoints ?? (actions as readonly string[])).includes(action));
      checkAfter(r.after, at, (r.endpoints ?? actions).map((action) => ({ what: action, names: namesOf(entriesOf(action)) })));
    });
    const seen = new Map<string, string>();
    pc.contextEntries.forEach((entry, i) => {
      const at = `${kind}.contextEntries[${i}]`;
      if (entry.key !== undefined) checkKey(entry.key, `${at}.key`);
      checkMatch(entry, at, { perContract: true, names: namesOf(pc.contextEntries) }, entry.if ? predicateExpressions(entry.if, 'if') : []);
      const templates: unknown = 'templates' in entry ? entry.templates : undefined;
      for (const [j, t] of (Array.isArray(templates) ? templates.filter((x): x is string => typeof x === 'string') : []).entries()) {
        if (!pc.templateIds.includes(t)) problems.push(`${at}.templates[${j}]: ${t} is not in ${kind}.templateIds`);
      }
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

  // Named selections must not read themselves (a cycle through $ref, $found or when).
  checkCycles(config.contextEntries, 'contextEntries', problems);
  for (const kind of ['transferInstructions', 'allocationInstructions', 'allocations'] as const) {
    const pc = config[kind];
    if (pc) checkCycles(pc.contextEntries, `${kind}.contextEntries`, problems);
  }

  // A definition is checked where it is used: one used nowhere is not checked at all.
  for (const name of unusedDefinitions(json)) warnings.push(`definitions.${name}: not used anywhere in the recipe, so not checked either (a definition is checked where it is used)`);

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

/** The names an entry reads: `$ref` / `$found` in its expressions, and its `when`. */
function namesRead(e: { match: Record<string, MatchValue>; value?: string | boolean | null | undefined; missingError?: string | undefined; when?: { found?: string | undefined; missing?: string | undefined } | undefined; if?: Predicate | undefined }): string[] {
  const out = [...expressionsOf(e), ...(e.if ? predicateExpressions(e.if, 'if') : [])].flatMap(({ expr }) => (typeof expr !== 'string' && (expr.kind === 'ref' || expr.kind === 'found') ? [expr.name] : []));
  const w = e.when?.found ?? e.when?.missing;
  return w === undefined ? out : [...out, w];
}

/** Reports entries whose selection depends, through named selections, on itself. */
function checkCycles(entries: ReadonlyArray<Parameters<typeof namesRead>[0] & { name?: string | undefined }>, at: string, problems: string[]): void {
  const reads = new Map<string, Set<string>>();
  for (const e of entries) if (e.name !== undefined) reads.set(e.name, new Set([...(reads.get(e.name) ?? []), ...namesRead(e)]));
  const reaches = (from: string, to: string, seen = new Set<string>()): boolean => {
    for (const n of reads.get(from) ?? []) {
      if (n === to) return true;
      if (!seen.has(n) && (seen.add(n), reaches(n, to, seen))) return true;
    }
    return false;
  };
  entries.forEach((e, i) => {
    const self = namesRead(e).find((n) => n === e.name || (e.name !== undefined && reaches(n, e.name)));
    if (self !== undefined) problems.push(`${at}[${i}]: the selection "${e.name ?? ''}" reads itself through "${self}" ($ref, $found or when); a selection may only read others`);
  });
}

/** A `$id` match looks contracts up by id: the answer carries the template, not the interfaces. */
function checkIdMatch(entry: { match: Record<string, unknown>; templateId?: string | undefined; interfaceId?: string | undefined }, at: string, problems: string[]): void {
  if ('$id' in entry.match && entry.interfaceId !== undefined) {
    problems.push(`${at}.match.$id: contracts looked up by id must be selected by "templateId" (the ledger reports no interface for a lookup by id)`);
  }
}

/** Checks the plain field steps of a `(a.b|c)` alternative below `tree`; the error or undefined. */
function checkFieldPath(tree: FieldTree | '*', steps: readonly string[], choice: string, before: readonly string[]): string | undefined {
  let t = tree;
  for (let j = 0; j < steps.length; j++) {
    if (t === '*' || steps[j] === '~') return undefined;
    if (!(steps[j]! in t)) {
      const at = [...before, ...steps.slice(0, j)];
      return `names no field of ${at.length === 0 ? `the ${choice} choice argument` : `${at.join('.')} of ${choice}`} (fields: ${Object.keys(t).join(', ')})`;
    }
    t = t[steps[j]!]!;
  }
  return undefined;
}
const subtree = (tree: FieldTree | '*', steps: readonly string[]): FieldTree | '*' => steps.reduce<FieldTree | '*'>((t, s) => (t === '*' ? '*' : (t[s] ?? '*')), tree);

/** Checks an `$args` path against the choice argument's known fields; returns the error or undefined. */
function checkArgsPath(endpoint: FactoryEndpoint, path: readonly string[]): string | undefined {
  const { choice, fields } = CHOICE_ARGUMENT_FIELDS[endpoint];
  let tree: FieldTree | '*' = fields;
  for (let i = 0; i < path.length; i++) {
    if (tree === '*') return undefined;
    const step = path[i]!;
    if (step === '~') return undefined;
    if (step.startsWith('(')) {
      // each alternative is a sub-path of the tree here; the rest of the path is checked below the first
      const alternatives = step.slice(1, -1).split('|').map((a) => a.split('.'));
      for (const alt of alternatives) {
        const err = checkFieldPath(tree, alt, choice, path.slice(0, i));
        if (err) return err;
      }
      tree = subtree(tree, alternatives[0]!);
      continue;
    }
    if (step.startsWith('{') && step.includes('.')) {
      // `{a.b,c}`: each sub-path is checked; the rest of the path is checked below the first
      const subpaths = step.slice(1, -1).split(',').map((a) => a.split('.'));
      for (const sp of subpaths) {
        const err = checkFieldPath(tree, sp, choice, path.slice(0, i));
        if (err) return err;
      }
      tree = subtree(tree, subpaths[0]!);
      continue;
    }
    // `{a,b}` checks each field (the tree below is that of the first); `[x]` names the field x
    const alternatives = step.startsWith('{') ? step.slice(1, -1).split(',') : [step.startsWith('[') ? step.slice(1, -1) : step];
    const seg = alternatives.find((a) => !(a in (tree as FieldTree))) ?? alternatives[0]!;
    if (!(seg in tree)) {
      const where = i === 0 ? `the ${choice} choice argument` : `${path.slice(0, i).join('.')} of ${choice}`;
      return `names no field of ${where} (fields: ${Object.keys(tree).join(', ')})`;
    }
    tree = tree[seg]!;
  }
  return undefined;
}

