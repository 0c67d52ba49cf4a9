/** Factory refusals (`refuse`): requests a factory answers with a 400 or 404 before it looks the factory up, and the parts per-contract refusals share. */
import { z } from 'zod';
import { FACTORY_ENDPOINTS } from './endpoints.js';
import { parseValueExpr } from './paths-and-values.js';
import { OperandSchema, PredicateSchema } from './predicates.js';
import { checkTemplateOrInterface, SelectionNameSchema, selectorShape } from './selectors.js';
import { strict } from './strict-object.js';

export const RefuseWhenSchema = PredicateSchema.describe(
  'Refuse only when this predicate holds (the forms of `transferKind.self[].when`). It reads `$args.<path>`, `$admin` and the named context entries of the endpoint (`$ref.<name>.<path>`, `$found.<name>`), e.g. the actors are not the sender account\'s owner: `{"not": {"subsetOf": ["$args.actors", "$args.transfer.sender.owner"]}}`. Omitted: always.',
);

export const RefuseAfterSchema = z
  .array(SelectionNameSchema)
  .min(1)
  .describe(
    'Names of context entries (of the rule\'s endpoints or choices) whose lookups are made, in this order, before the rule is checked: a required entry that finds nothing answers its 404 first. This orders the refusals among the lookups as a token\'s own registry orders its checks, e.g. Splice Scan looks up AmuletRules and the open round before it checks the rounds: `"after": ["rules", "open-round"]`; and the factory before the allocations of a settlement: a `select` entry of the factory\'s template, named and listed here. Omitted: the rule is checked before any entry it does not read.',
  );

export const PerContractRefuseWhenSchema = PredicateSchema.describe(
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

export const FactoryRefusalSchema = strict({
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
