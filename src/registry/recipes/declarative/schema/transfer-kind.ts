/** How a transfer factory reports `transferKind`: the `self` rules (predicates) and the `direct` rules (selectors). */
import { z } from 'zod';
import { TRANSFER_FACTORY_ENDPOINTS } from './endpoints.js';
import { OperandSchema, PredicateSchema } from './predicates.js';
import { checkTemplateOrInterface, SelectionNameSchema, selectorShape } from './selectors.js';
import { strict } from './strict-object.js';

export const SelfWhenSchema = PredicateSchema.describe(
    'The transfer is `self` when this predicate holds. A predicate is one of `{"eq": [a, b]}` (equal values), `{"in": [a, b]}` (a is an element of the list b; a single value counts as a list of one; an absent a is in nothing), `{"subsetOf": [a, b]}` (every element of the list a is in b; absent and null elements aside), `{"exists": a}` (present and not null), `{"matches": [a, "regex"]}` (some element of the list a is a text the regex, JavaScript syntax, matches whole; e.g. a metadata key of a pattern: `{"matches": ["$args.transfer.meta.values.~", "cip-112/sender[.].*"]}`), `{"lt": [a, b]}` (a orders before b, as `match` comparisons compare: numbers, times, else texts; e.g. which of two parties a sorted list names first), `{"count": [a, "n"]}` (the list a has exactly n elements, absent and null ones aside; n a whole number written as a string, or a value expression giving one), `{"consecutive": a}` (the elements of the list a are whole numbers, as Int64 texts or numbers, that in ascending order each follow the one before by 1: no gap, no repeat; e.g. Splice Scan\'s usable mining rounds, exactly three consecutive open rounds: `{"all": [{"count": ["$ref.rounds", "3"]}, {"consecutive": "$ref.rounds.round.number"}]}`), `{"not": p}`, `{"all": [p, ...]}`, `{"any": [p, ...]}`, where a and b are value expressions. They read `$args.<path>`, `$admin` and the named context entries of the endpoint (`$ref.<name>.<path>`, `$found.<name>`; a `list` or `select` entry reads as a list, so test a field of its contract with `{"in": [true, "$ref.config.ownerConfig.canInitiate"]}`). E.g. the actors are the sender account\'s owner and provider: `{"subsetOf": ["$args.transfer.sender.{owner,provider}", "$args.actors"]}`.');

export type SelfRule = z.output<typeof SelfRuleSchema>;

export const SelfRuleSchema = strict({
  endpoints: z.array(z.enum(TRANSFER_FACTORY_ENDPOINTS)).min(1).optional().describe('The transfer factories the rule applies to. Omitted: both configured ones.'),
  let: z
    .record(SelectionNameSchema, OperandSchema)
    .optional()
    .describe('Named values computed before `when` is tested, read there as `$let.<name>` (the forms of `refuse[].let`), e.g. the parties authorised once the sender\'s step is done.'),
  when: SelfWhenSchema,
}).describe('When the transfer factory reports `self`.');

const SelfRuleListSchema = z.array(SelfRuleSchema);

export const SelfRulesSchema = z.unknown().transform((v, ctx): SelfRule[] => {
  const r = Array.isArray(v) ? SelfRuleListSchema.safeParse(v) : SelfRuleSchema.safeParse(v);
  if (r.success) return Array.isArray(r.data) ? r.data : [r.data];
  for (const i of r.error.issues) ctx.addIssue({ code: 'custom', message: i.message, path: i.path as PropertyKey[] });
  return z.NEVER;
});

export type DirectRule = z.output<typeof DirectRuleSchema>;

export const DirectRuleSchema = strict({
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
export const DirectRulesSchema = z.unknown().transform((v, ctx): DirectRule | DirectRule[] => {
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
