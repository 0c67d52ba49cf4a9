/**
 * Selectors: which contracts of the admin an entry, a factory or a rule finds (`templateId` or
 * `interfaceId`, `match` conditions, `pick`, `missingError`), and the names selections go by.
 */
import { z } from 'zod';
import { templateParts, termExpressions } from './messages.js';
import { parseValueExpr, PATH, QualifiedIdSchema, type ValueExpr, ValueExprSchema } from './paths-and-values.js';
import { strict } from './strict-object.js';

const COMPARISONS = ['lt', 'lte', 'gt', 'gte'] as const;

export type Comparison = (typeof COMPARISONS)[number];

export const MATCH_OPS = ['eq', ...COMPARISONS] as const;

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
export const MatchValueSchema = z.unknown().transform((v, ctx): string | boolean | null | Condition => {
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

export const SelectionNameSchema = z.string().regex(NAME_OF_SELECTION, 'a selection name is letters, digits, _ and -, starting with a letter or _');

export const PickSchema = z.unknown().transform((v, ctx): 'unique' | 'newest' | 'oldest' | { max: string } | { min: string } => {
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

export const selectorShape = {
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

export function checkTemplateOrInterface(v: { templateId?: string | undefined; interfaceId?: string | undefined; orTemplateIds?: string[] | undefined }, ctx: z.RefinementCtx): void {
  if ((v.templateId === undefined) === (v.interfaceId === undefined)) {
    ctx.addIssue({ code: 'custom', message: 'give exactly one of "templateId" and "interfaceId"' });
  }
  if (v.orTemplateIds !== undefined && v.templateId === undefined) ctx.addIssue({ code: 'custom', path: ['orTemplateIds'], message: '"orTemplateIds" adds to "templateId"' });
}

const SelectorSchema = strict(selectorShape).superRefine(checkTemplateOrInterface);

export const FactorySchema = strict({
  ...selectorShape,
  discloseAfter: SelectionNameSchema.optional().describe(
    'Where the factory goes in `disclosedContracts`: after the contracts of the context entry (or `transferKind.direct` rule) of this name, whether or not it found any. Omitted: first.',
  ),
}).superRefine(checkTemplateOrInterface);

export const WhenSchema = strict({
  found: SelectionNameSchema.optional().describe('The entry applies only when the selection of this name found a contract.'),
  missing: SelectionNameSchema.optional().describe('The entry applies only when the selection of this name found nothing.'),
}).refine((w) => (w.found === undefined) !== (w.missing === undefined), 'give exactly one of "found" and "missing"');

export type ContractSelector = z.output<typeof SelectorSchema>;

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
