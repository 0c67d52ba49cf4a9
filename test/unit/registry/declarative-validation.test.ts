/**
 * Start-up validation of declarative recipes: each class of mistake gets a message with its path,
 * what is wrong and what is allowed, and all of them are reported at once.
 */
import { describe, expect, it } from 'vitest';
import { DeclarativeRecipe } from '../../../src/registry/recipes/declarative/declarative-recipe.js';
import { type DeclarativeRecipeInput, DeclarativeRecipeSchema } from '../../../src/registry/recipes/declarative/schema/document.js';
import { RecipeConfigError, validateDeclarativeRecipe } from '../../../src/registry/recipes/declarative/validation.js';

import ACME_EXAMPLE from '../../../docs/examples/acme-token.registry.json' with { type: 'json' };

const README_EXAMPLE = ACME_EXAMPLE.recipes[0]!;

const RULES = '#acme-token:Acme.Rules:TransferRules';
const CONFIG = '#acme-token:Acme.Config:InstrumentConfig';

type Factories = NonNullable<DeclarativeRecipeInput['factories']>;
type Selector = NonNullable<Factories['transferFactory.v1']>;
type Entry = NonNullable<DeclarativeRecipeInput['contextEntries']>[number];
/**
 * The recipe JSON of `base()` as a valid input: the sections the tests edit are present (the
 * transfer factory, one context entry with its match). Mistakes the type rules out are written
 * with `@ts-expect-error`: they are the point of the test.
 */
interface BaseRecipe extends DeclarativeRecipeInput {
  factories: Factories & { 'transferFactory.v1': Selector };
  contextEntries: [Entry & { match: NonNullable<Entry['match']> }, ...Entry[]];
  supportedApis: Record<string, number>;
}

function base(): BaseRecipe {
  return {
    name: 'acme-token',
    supportedApis: { 'splice-api-token-transfer-instruction-v1': 1 },
    factories: { 'transferFactory.v1': { templateId: RULES, match: { admin: '$admin' } } },
    contextEntries: [
      {
        key: 'acme.example.com/instrument-configuration',
        templateId: CONFIG,
        match: { admin: '$admin', instrumentId: '$args.transfer.instrumentId.id' },
        required: true,
      },
    ],
  };
}

function problems(mut: (c: BaseRecipe) => void): string[] {
  const c = base();
  mut(c);
  try {
    validateDeclarativeRecipe(c);
  } catch (e) {
    expect(e).toBeInstanceOf(RecipeConfigError);
    return [...(e as RecipeConfigError).problems];
  }
  throw new Error('expected the recipe to be rejected');
}

describe('validateDeclarativeRecipe', () => {
  it('accepts a sound recipe, with defaults filled in and no warnings', () => {
    const { config, warnings } = validateDeclarativeRecipe(base());
    expect(warnings).toEqual([]);
    expect(config.contextEntries[0]).toMatchObject({ as: 'contractId', required: true, pick: 'unique' });
    expect(DeclarativeRecipeSchema.safeParse(base()).success).toBe(true);
  });

  it('rejects a template id that is not #package-name:Module:Entity, and says why', () => {
    expect(problems((c) => (c.factories['transferFactory.v1'].templateId = 'acme-token:Acme.Rules:TransferRules'))).toEqual([
      'factories.transferFactory.v1.templateId: "acme-token:Acme.Rules:TransferRules" is not of the form "#<package-name>:<Module>:<Entity>" (e.g. "#acme-token:Acme.Rules:TransferRules")',
    ]);
    const pkgId = `${'ab'.repeat(32)}:Acme.Rules:TransferRules`;
    expect(problems((c) => (c.contextEntries[0].templateId = pkgId))[0]).toMatch(/^contextEntries\[0\]\.templateId: .* uses a package id; use the package name/);
    expect(problems((c) => (c.factories['transferFactory.v1'].interfaceId = '#a:B:C'))[0]).toBe(
      'factories.transferFactory.v1: give exactly one of "templateId" and "interfaceId"',
    );
  });

  it('rejects unknown keys (typos), naming the allowed ones', () => {
    // @ts-expect-error a misspelt key: what the validation must name
    expect(problems((c) => (c.contextEntries[0].requried = true))).toEqual([
      'contextEntries[0]: unknown key "requried"; allowed: templateId, interfaceId, match, orTemplateIds, synchronizerId, pick, missingError, key, name, value, if, when, required, as, endpoints',
    ]);
    // @ts-expect-error an unknown factory name: what the validation must name
    expect(problems((c) => (c.factories.transferFactoryV1 = {}))[0]).toMatch(
      /^factories: unknown key "transferFactoryV1"; allowed: transferFactory\.v1, transferFactory\.v2, allocationFactory\.v1, allocationFactory\.v2, settlementFactory$/,
    );
    // @ts-expect-error not one of the allowed values: what the validation must list
    expect(problems((c) => (c.contextEntries[0].as = 'one'))[0]).toMatch(/^contextEntries\[0\]\.as: .*"contractId"\|"list"/);
  });

  it('rejects unknown value-expression roots and paths, and numbers', () => {
    expect(problems((c) => (c.contextEntries[0].match.instrumentId = '$arg.transfer.instrumentId.id'))).toEqual([
      'contextEntries[0].match.instrumentId: "$arg.transfer.instrumentId.id": unknown value expression root "$arg"; use a literal, $admin, $now, $args.<path>, $contract.<path>, $contractId, $ref.<name>.<path>, $found.<name>, $item (in missingError and forEach refusals), $itemContract.<path> (in forEach refusals), $missing (in the error of a check with whenMissing), or "$$..." for a literal starting with "$"',
    ]);
    expect(problems((c) => (c.contextEntries[0].match.instrumentId = '$args'))[0]).toMatch(/\$args needs a field path/);
    expect(problems((c) => (c.contextEntries[0].match.decimals = 2))[0]).toMatch(/^contextEntries\[0\]\.match\.decimals: 2: write numbers as strings \("2"\)/);
    // $args paths are checked against the choice argument
    expect(problems((c) => (c.contextEntries[0].match.receiver = '$args.transfer.reciever'))[0]).toMatch(
      /^contextEntries\[0\]\.match\.receiver: "\$args\.transfer\.reciever" \(for transferFactory\.v1\) names no field of transfer of TransferFactory_Transfer \(v1\) \(fields: sender, receiver, amount, instrumentId/,
    );
    // $contract is for per-contract contexts; $args is for factories
    expect(problems((c) => (c.contextEntries[0].match.x = '$contract.transfer'))[0]).toMatch(/\$contract and \$contractId are only available in the contextEntries of transferInstructions/);
    expect(
      problems(
        (c) =>
          (c.transferInstructions = {
            templateIds: ['#acme-token:Acme.Transfer:TransferOffer'],
            instrumentIdPath: 'transfer.instrumentId',
            contextEntries: [{ key: 'acme.example.com/x', templateId: CONFIG, match: { id: '$args.transfer' } }],
          }),
      ),
    ).toEqual([
      'transferInstructions.contextEntries[0].match.id: "$args.transfer": per-contract choice contexts have no choice arguments; use $contract.<path> (the contract\'s payload), $admin or a literal',
    ]);
    // a literal starting with $ is written $$
    expect(() => validateDeclarativeRecipe({ ...base(), contextEntries: [{ ...base().contextEntries[0], match: { code: '$$USD' } }] })).not.toThrow();
  });

  it('rejects match keys that are not payload paths or $id, and malformed direct rules', () => {
    expect(problems((c) => (c.contextEntries[0].match = { $receiver: '$admin', 'a..b': 'x' }))).toEqual([
      'contextEntries[0].match.$receiver: a match key is a payload field path (dot-separated field names, e.g. "instrumentId.id") or "$id" (the contract id)',
      'contextEntries[0].match.a..b: a match key is a payload field path (dot-separated field names, e.g. "instrumentId.id") or "$id" (the contract id)',
    ]);
    expect(problems((c) => (c.transferKind = { direct: 'preapproval' }))).toEqual([
      'transferKind.direct: expected a rule { templateId | interfaceId, match, key?, endpoints? } or a list of rules',
    ]);
    expect(problems((c) => (c.transferKind = { direct: [{ templateId: CONFIG, endpoints: ['allocationFactory.v1'] }] }))[0]).toMatch(
      /^transferKind\.direct\[0\]\.endpoints\[0\]: .*"transferFactory\.v1"\|"transferFactory\.v2"/,
    );
  });

  it('accepts the README example without warnings', () => {
    const { config, warnings } = validateDeclarativeRecipe(README_EXAMPLE);
    expect(warnings).toEqual([]);
    const recipe = new DeclarativeRecipe(config);
    expect(recipe.indexedInterfaces).toEqual(['#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory']);
    expect(recipe.cachedTemplates).toContain('#acme-token:Acme.Holding:LockedHolding');
  });

  it('rejects endpoints that are unknown or not configured', () => {
    // @ts-expect-error an unknown endpoint: what the validation must name
    expect(problems((c) => (c.contextEntries[0].endpoints = ['transferFactory.v3']))[0]).toMatch(
      /^contextEntries\[0\]\.endpoints\[0\]: .*"transferFactory\.v1"\|"transferFactory\.v2"\|"allocationFactory\.v1"\|"allocationFactory\.v2"\|"settlementFactory"/,
    );
    expect(problems((c) => (c.contextEntries[0].endpoints = ['transferFactory.v1', 'allocationFactory.v2']))).toEqual([
      'contextEntries[0].endpoints: allocationFactory.v2 is not configured in "factories" (configured: transferFactory.v1)',
    ]);
    // an entry that reads $args.transfer cannot apply to the allocation factory by default
    const p = problems((c) => (c.factories['allocationFactory.v1'] = { templateId: RULES }));
    expect(p).toHaveLength(1);
    expect(p[0]).toMatch(/\(for allocationFactory\.v1\) names no field of the AllocationFactory_Allocate \(v1\) choice argument .*restrict it with "endpoints"/);
    // @ts-expect-error a per-contract endpoint of allocations, not of transfer instructions
    expect(problems((c) => (c.transferInstructions = { templateIds: [CONFIG], instrumentIdPath: 'x', contextEntries: [{ key: 'a.b/c', templateId: CONFIG, endpoints: ['execute-transfer'] }] }))[0]).toMatch(
      /^transferInstructions\.contextEntries\[0\]\.endpoints\[0\]: .*"accept"\|"reject"\|"withdraw"/,
    );
  });

  it('rejects duplicate keys on an endpoint, but not on disjoint endpoints', () => {
    expect(problems((c) => c.contextEntries.push({ ...c.contextEntries[0] }))).toEqual([
      'contextEntries[1].key: duplicate key "acme.example.com/instrument-configuration" for transferFactory.v1 (also contextEntries[0]); give each entry of an endpoint its own key, or split them with "endpoints"',
    ]);
    const c = base();
    c.factories['transferFactory.v2'] = { templateId: RULES };
    c.contextEntries[0].endpoints = ['transferFactory.v1'];
    c.contextEntries.push({ ...c.contextEntries[0], endpoints: ['transferFactory.v2'] });
    c.supportedApis['splice-api-token-transfer-instruction-v2'] = 1;
    expect(validateDeclarativeRecipe(c).warnings).toEqual([]);
    // the pre-approval's key counts too
    expect(
      problems((x) => (x.transferKind = { direct: { templateId: CONFIG, key: 'acme.example.com/instrument-configuration', match: { receiver: '$args.transfer.receiver' } } })),
    ).toEqual([
      'transferKind.direct.key: duplicate key "acme.example.com/instrument-configuration" for transferFactory.v1 (also contextEntries[0]); give each entry of an endpoint its own key, or split them with "endpoints"',
    ]);
  });

  it('list entries may share a key (one list); "disclose" entries have no key; other entries need one', () => {
    const list = (holder: string): Entry => ({
      key: 'acme.example.com/credentials',
      templateId: '#acme-token:Acme.Credential:Credential',
      match: { holder },
      as: 'list',
      required: false,
    });
    const shared = base();
    shared.contextEntries.push(list('$args.transfer.sender'), list('$args.transfer.receiver'));
    expect(validateDeclarativeRecipe(shared).warnings).toEqual([]);
    expect(problems((c) => c.contextEntries.push({ ...list('$args.transfer.sender'), key: c.contextEntries[0].key }))).toEqual([
      'contextEntries[1].key: duplicate key "acme.example.com/instrument-configuration" for transferFactory.v1 (also contextEntries[0]); give each entry of an endpoint its own key, or split them with "endpoints"',
    ]);
    const disclose = base();
    disclose.contextEntries.push({ templateId: '#acme-token:Acme.Holding:LockedHolding', match: { owner: '$args.transfer.sender' }, as: 'disclose' });
    expect(validateDeclarativeRecipe(disclose).warnings).toEqual([]);
    expect(problems((c) => delete c.contextEntries[0].key)).toEqual(['contextEntries[0].key: a context entry needs a "key" (unless "as" is "disclose" or "select")']);
    expect(problems((c) => (c.contextEntries[0].as = 'disclose'))).toEqual(['contextEntries[0].key: "as": "disclose" puts nothing into the context: remove "key"']);
  });

  it('accepts keys that are not DNS-prefixed, with a warning', () => {
    const c = base();
    c.contextEntries[0].key = 'instrument-configuration';
    const { warnings } = validateDeclarativeRecipe(c);
    expect(warnings).toEqual([
      'contextEntries[0].key: context key "instrument-configuration" is not DNS-prefixed (e.g. "acme.example.com/instrument-configuration"); prefixed keys avoid clashes with other token implementations',
    ]);
  });

  it('warns when a configured factory API is not among supportedApis', () => {
    const c = base();
    c.supportedApis = { 'splice-api-token-metadata-v1': 1 };
    expect(validateDeclarativeRecipe(c).warnings).toEqual([
      'supportedApis: factories.transferFactory.v1 is configured but splice-api-token-transfer-instruction-v1 is not listed, so wallets will not use it',
    ]);
  });

  it('reports every problem at once, and the recipe name', () => {
    try {
      validateDeclarativeRecipe({ name: 'splice-test-token-v9', supportedApis: { x: -1 }, factories: { 'transferFactory.v1': { templateId: 'nope' } }, typo: 1 });
      expect.unreachable();
    } catch (e) {
      const err = e as RecipeConfigError;
      expect(err.problems).toEqual([
        'name: names starting with "splice-test-token-" are reserved for the built-in recipes',
        'supportedApis.x: Too small: expected number to be >=0',
        'factories.transferFactory.v1.templateId: "nope" is not of the form "#<package-name>:<Module>:<Entity>" (e.g. "#acme-token:Acme.Rules:TransferRules")',
        '(root): unknown key "typo"; allowed: name, description, supportedApis, factories, contextEntries, refuse, transferKind, transferInstructions, allocationInstructions, allocations, definitions',
      ]);
      expect(err.message).toMatch(/^declarative recipe "splice-test-token-v9" is invalid \(4 problems\):\n {2}- name: /);
    }
    expect(() => validateDeclarativeRecipe({ name: 'empty', supportedApis: {} })).toThrow(/configures no factory and no per-contract object/);
  });

  it('rejects a template listed under two per-contract kinds, and interface selection by id', () => {
    const p = problems((c) => {
      c.transferInstructions = { templateIds: [CONFIG], instrumentIdPath: 'instrumentId' };
      c.allocations = {
        templateIds: [CONFIG],
        instrumentIdPath: 'instrumentId',
        contextEntries: [{ key: 'a.example.com/lock', interfaceId: '#x:Y:Z', match: { $id: '$contract.lockCid' } }],
      };
    });
    expect(p).toEqual([
      'allocations.templateIds[0]: #acme-token:Acme.Config:InstrumentConfig is already listed in transferInstructions.templateIds; a template is one kind of per-contract object',
      'allocations.contextEntries[0].match.$id: contracts looked up by id must be selected by "templateId" (the ledger reports no interface for a lookup by id)',
    ]);
  });

  it('builds a recipe from JSON with its index needs', () => {
    const c = base();
    c.factories['allocationFactory.v1'] = { interfaceId: '#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory' };
    c.contextEntries[0].endpoints = ['transferFactory.v1'];
    c.supportedApis['splice-api-token-allocation-instruction-v1'] = 1;
    c.transferInstructions = {
      templateIds: ['#acme-token:Acme.Transfer:TransferOffer'],
      instrumentIdPath: 'transfer.instrumentId',
      contextEntries: [{ key: 'acme.example.com/lock', templateId: '#acme-token:Acme.Holding:LockedHolding', match: { $id: '$contract.lockCid' } }],
    };
    const { recipe, warnings } = DeclarativeRecipe.fromJson(c);
    expect(warnings).toEqual([]);
    expect(recipe.name).toBe('acme-token');
    expect(recipe.indexedTemplates).toEqual([RULES, CONFIG]);
    expect(recipe.indexedInterfaces).toEqual(['#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory']);
    expect(recipe.cachedTemplates).toEqual(['#acme-token:Acme.Transfer:TransferOffer', '#acme-token:Acme.Holding:LockedHolding']);
  });

  it('checks the names, roots and shapes of named selections, conditions, value entries, comparisons and refusals', () => {
    const push = (c: BaseRecipe, e: Entry) => c.contextEntries.push(e);
    const accepts = (mut: (c: BaseRecipe) => void) => {
      const c = base();
      mut(c);
      expect(() => validateDeclarativeRecipe(c)).not.toThrow();
    };
    // $ref / $found / when / discloseAfter name an entry or rule of the same section
    expect(problems((c) => (c.contextEntries[0].match.x = '$ref.nope.provider'))).toEqual(['contextEntries[0].match.x: "$ref.nope.provider": no entry or transferKind.direct rule here is named "nope"']);
    expect(problems((c) => push(c, { key: 'acme.example.com/flag', value: '$found.nope' }))[0]).toMatch(/^contextEntries\[1\]\.value: "\$found\.nope": no entry/);
    expect(problems((c) => (c.contextEntries[0].when = { found: 'nope' }))).toEqual(['contextEntries[0].when: no entry here is named "nope"']);
    expect(problems((c) => (c.factories['transferFactory.v1'].discloseAfter = 'nope'))).toEqual(['factories.transferFactory.v1.discloseAfter: no context entry or transferKind.direct rule is named "nope"']);
    // a named entry can be read; a value entry is valid
    accepts((c) => {
      c.contextEntries[0].name = 'config';
      push(c, { key: 'acme.example.com/configured', value: '$found.config' });
      c.factories['transferFactory.v1'].discloseAfter = 'config';
    });
    // a selection may not read itself, directly or through another
    expect(problems((c) => {
      c.contextEntries[0].name = 'a';
      c.contextEntries[0].when = { found: 'b' };
      push(c, { name: 'b', templateId: CONFIG, key: 'acme.example.com/b', match: { x: '$ref.a.x' } });
    })).toEqual([
      'contextEntries[0]: the selection "a" reads itself through "b" ($ref, $found or when); a selection may only read others',
      'contextEntries[1]: the selection "b" reads itself through "a" ($ref, $found or when); a selection may only read others',
    ]);
    // roots where they do not belong
    expect(problems((c) => (c.contextEntries[0].match.x = '$contractId'))[0]).toMatch(/\$contract and \$contractId are only available in the contextEntries of transferInstructions/);
    expect(problems((c) => (c.contextEntries[0].match.x = '$item'))).toEqual(['contextEntries[0].match.x: $item is only available in missingError and in the checks of a refusal with forEach']);
    expect(problems((c) => (c.contextEntries[0].missingError = 'No {$args.transfer.nope} found'))[0]).toMatch(/^contextEntries\[0\]\.missingError: "\$args\.transfer\.nope" \(for transferFactory\.v1\) names no field/);
    // a value entry has a key and a value only; exactly one of templateId, interfaceId, value
    expect(problems((c) => push(c, { key: 'acme.example.com/v', value: true, match: { a: 'b' } }))).toEqual(['contextEntries[1].value: a value entry has a "key" and a "value" only (no "match", "as" or "required": "each")']);
    expect(problems((c) => push(c, { key: 'acme.example.com/v', value: true, templateId: CONFIG }))).toEqual(['contextEntries[1]: give exactly one of "templateId", "interfaceId" and "value"']);
    // comparisons and pick
    accepts((c) => (c.contextEntries[0].match.opensAt = { lte: '$now' }));
    expect(problems((c) => (c.contextEntries[0].match.opensAt = { lte: '$now', gt: '1' }))).toEqual(['contextEntries[0].match.opensAt: a condition has exactly one of "eq", "lt", "lte", "gt", "gte" (and optionally "default")']);
    // equality with a default for an absent path; the default is a value expression checked where it is used
    accepts((c) => (c.contextEntries[0].match['account.id'] = { eq: '$args.transfer.meta.values.[cip-112/sender.id]', default: '' }));
    expect(problems((c) => (c.contextEntries[0].match.x = { default: '' }))).toEqual(['contextEntries[0].match.x: a condition has exactly one of "eq", "lt", "lte", "gt", "gte" (and optionally "default")']);
    expect(problems((c) => (c.contextEntries[0].match.x = { eq: '$admin', default: '$args.nope' }))[0]).toMatch(/^contextEntries\[0\]\.match\.x\.default: "\$args\.nope" \(for transferFactory\.v1\) names no field/);
    expect(problems((c) => (c.contextEntries[0].match.x = { eq: '$admin', fallback: '' }))[0]).toMatch(/^contextEntries\[0\]\.match\.x: unknown key "fallback"; allowed: eq, lt, lte, gt, gte, default/);
    accepts((c) => (c.contextEntries[0].pick = { max: 'round.number' }));
    expect(problems((c) => (c.contextEntries[0].pick = 'largest'))).toEqual(['contextEntries[0].pick: pick is "unique", "newest", "oldest", {"max": "<payload path>"} or {"min": "<payload path>"}']);
    // list steps and quoted steps are paths
    accepts((c) => (c.contextEntries[0].match.account = '$args.transfer.meta.values.[cip-112/sender.provider]'));
    // transferKind.self: predicates over $args, $admin and named context entries, checked where used
    const self = (when: unknown, extra: object = {}) => (c: BaseRecipe) => {
      c.contextEntries[0].name = 'config';
      (c as { transferKind?: unknown }).transferKind = { self: { when, ...extra } };
    };
    accepts(self({ all: [{ subsetOf: ['$args.transfer.{sender,receiver}', '$args.expectedAdmin'] }, { not: { exists: '$args.transfer.meta.values.[acme/x]' } }, { any: [{ eq: ['$admin', true] }, { in: [true, '$ref.config.enabled'] }] }] }));
    expect(problems(self({ same: ['$admin', '$admin'] }))).toEqual([
      'transferKind.self.when: unknown predicate "same"; a predicate is one of {"eq": [a, b]} (equal values), {"in": [a, b]} (a is an element of the list b; a single value counts as a list of one), {"subsetOf": [a, b]} (every element of the list a, absent and null ones aside, is in b), {"exists": a} (present and not null), {"matches": [a, "regex"]} (some element of the list a is a text the regex matches whole, JavaScript syntax), {"lt": [a, b]} (a orders before b, compared as match comparisons compare), {"count": [a, "n"]} (the list a has n elements, absent and null ones aside), {"consecutive": a} (the elements of the list a are whole numbers that, in ascending order, each follow the one before by 1), {"not": p}, {"all": [p, ...]}, {"any": [p, ...]}, where a and b are value expressions',
    ]);
    expect(problems(self({ all: [{ eq: ['$admin'] }] }))).toEqual(['transferKind.self.when.all[0].eq: "eq" takes a list of two value expressions']);
    expect(problems(self({ any: [] }))).toEqual(['transferKind.self.when.any: "any" takes a non-empty list of predicates']);
    expect(problems(self({ not: { exists: 3 } }))[0]).toMatch(/^transferKind\.self\.when\.not\.exists: 3: write numbers as strings/);
    expect(problems(self({ in: ['$args.transfer.nope', '$ref.nope.x'] }))).toEqual([
      'transferKind.self.when.in[0]: "$args.transfer.nope" (for transferFactory.v1) names no field of transfer of TransferFactory_Transfer (v1) (fields: sender, receiver, amount, instrumentId, requestedAt, executeBefore, inputHoldingCids, meta); if the entry is not meant for this endpoint, restrict it with "endpoints"',
      'transferKind.self.when.in[1]: "$ref.nope.x": no entry or transferKind.direct rule here is named "nope" (names: config)',
    ]);
    expect(problems(self({ exists: '$contractId' }))[0]).toMatch(/^transferKind\.self\.when\.exists: "\$contractId": \$contract and \$contractId are only available/);
    expect(problems(self({ exists: '$admin' }, { endpoints: ['transferFactory.v2'] }))).toEqual(['transferKind.self.endpoints: transferFactory.v2 not configured in "factories" (configured: transferFactory.v1)']);
    // an entry's `if` predicate: checked as its match is
    accepts((c) => (c.contextEntries[0].if = { not: { eq: ['$args.transfer.receiver', 'acme-special::1220'] } }));
    expect(problems((c) => (c.contextEntries[0].if = { eq: ['$args.transfer.nope', ''] }))[0]).toMatch(/^contextEntries\[0\]\.if\.eq\[0\]: "\$args\.transfer\.nope" \(for transferFactory\.v1\) names no field/);
    expect(problems((c) => (c.contextEntries[0].if = { exists: '$ref.nope' }))).toEqual(['contextEntries[0].if.exists: "$ref.nope": no entry or transferKind.direct rule here is named "nope"']);
    expect(problems((c) => (c.contextEntries[0].if = { maybe: true }))[0]).toMatch(/^contextEntries\[0\]\.if: unknown predicate "maybe"/);
    // a `(a.b|c)` step: each alternative is checked against the choice argument
    accepts((c) => (c.contextEntries[0].match.x = '$args.transfer.(instrumentId.id|sender)'));
    expect(problems((c) => (c.contextEntries[0].match.x = '$args.transfer.(instrumentId.nope|sender)'))[0]).toMatch(/names no field of transfer\.instrumentId of TransferFactory_Transfer \(v1\) \(fields: admin, id\)/);
    expect(problems((c) => (c.contextEntries[0].match.x = '$args.transfer.(sender'))[0]).toMatch(/needs a field path/);
    // `~`: a map's keys; in an alternative too
    accepts((c) => (c.contextEntries[0].match.x = '$args.transfer.meta.values.~.0'));
    accepts((c) => (c.contextEntries[0].match.x = '$args.transfer.(instrumentId.id|meta.values.~.0)'));
    expect(problems((c) => (c.contextEntries[0].match.x = '$args.transfer.(nope.~|sender)'))[0]).toMatch(/names no field of transfer of TransferFactory_Transfer \(v1\)/);
    expect(problems((c) => (c.contextEntries[0].match.x = '$args.transfer.{sender,reciever}'))[0]).toMatch(/names no field of transfer of TransferFactory_Transfer \(v1\)/);
  });

  it('per-contract sections: templates, instrumentByTemplate and refuse name the section\'s templates and valid expressions', () => {
    const offer = '#acme-token:Acme.Transfer:TransferOffer';
    const other = '#acme-token:Acme.Transfer:OtherOffer';
    const withOffers = (extra: object) => ({ ...base(), transferInstructions: { templateIds: [offer], instrumentIdPath: 'transfer.instrumentId', ...extra } });
    const problemsOf = (json: unknown) => {
      try {
        validateDeclarativeRecipe(json);
        return [];
      } catch (e) {
        if (e instanceof RecipeConfigError) return [...e.problems];
        throw e;
      }
    };
    expect(problemsOf(withOffers({ contextEntries: [{ templateId: CONFIG, match: { admin: '$admin' }, key: 'acme.example.com/c', templates: [other] }] }))).toEqual([
      `transferInstructions.contextEntries[0].templates[0]: ${other} is not in transferInstructions.templateIds`,
    ]);
    expect(problemsOf(withOffers({ instrumentByTemplate: { [other]: { instrumentId: 'X' } } }))).toEqual([`transferInstructions.instrumentByTemplate: ${other} is not in transferInstructions.templateIds`]);
    expect(problemsOf(withOffers({ refuse: [{ versions: [2], status: 400, error: 'no {$nope}' }] }))[0]).toMatch(/^transferInstructions\.refuse\[0\]\.error: "\$nope": unknown value expression root/);
    expect(problemsOf(withOffers({ refuse: [{ versions: [2], status: 400, error: '{$contractId} is V1 only' }] }))).toEqual([]);
  });

  it('factory refusals: endpoints configured, transfer kinds on transfer factories only, predicates and message placeholders checked', () => {
    const refuse = (r: object) => (c: BaseRecipe) => Object.assign(c, { refuse: [r] });
    const accepts = (mut: (c: BaseRecipe) => void) => {
      const c = base();
      mut(c);
      expect(() => validateDeclarativeRecipe(c)).not.toThrow();
    };
    accepts(refuse({ transferKinds: ['offer'], when: { matches: ['$args.transfer.meta.values.~', 'cip-112/.*'] }, status: 400, error: 'keys {join(matching($args.transfer.meta.values.~, "cip-112/.*"), ", ")}' }));
    accepts(refuse({ status: 404, error: '{join(sort($args.transfer.{sender,receiver}), " and ")} {default($args.transfer.meta.values.[a.b], "None")}' }));
    expect(problems(refuse({ endpoints: ['settlementFactory'], status: 400, error: 'x' }))).toEqual(['refuse[0].endpoints: settlementFactory is not configured in "factories" (configured: transferFactory.v1)']);
    expect(problems((c) => Object.assign(c, { factories: { ...c.factories, settlementFactory: { templateId: RULES } }, contextEntries: [{ ...c.contextEntries[0], endpoints: ['transferFactory.v1'] }], refuse: [{ transferKinds: ['self'], status: 400, error: 'x' }] }))).toEqual([
      'refuse[0].transferKinds: only transfer factories have a transfer kind; restrict the rule with "endpoints": ["transferFactory.v1" and/or "transferFactory.v2"]',
    ]);
    expect(problems(refuse({ status: 409, error: 'x' }))[0]).toMatch(/^refuse\.0\.status|^refuse\[0\]\.status/);
    expect(problems(refuse({ when: { matches: ['$args.transfer.meta', '('] }, status: 400, error: 'x' }))[0]).toMatch(/^refuse\[0\]\.when\.matches\[1\]: not a regular expression|^refuse\.0\.when\.matches\.1: not a regular expression/);
    expect(problems(refuse({ when: { exists: '$args.transfer.nope' }, status: 400, error: 'x' }))[0]).toMatch(/^refuse\[0\]\.when\.exists: "\$args\.transfer\.nope" \(for transferFactory\.v1\) names no field of transfer/);
    expect(problems(refuse({ status: 400, error: 'no {$ref.nope.x}' }))[0]).toMatch(/^refuse\[0\]\.error: "\$ref\.nope\.x": no entry or transferKind\.direct rule here is named "nope"/);
    expect(problems(refuse({ status: 400, error: '{joint($args.transfer.sender, ", ")}' }))[0]).toMatch(/^refuse\[0\]\.error: "\{joint\(.*\)\}": unknown function "joint"; functions: join, sort, matching, default$/);
    expect(problems(refuse({ status: 400, error: '{join($args.transfer.sender)}' }))[0]).toMatch(/join\(list, "sep"\).*\(2 arguments, not 1\)/);
    expect(problems(refuse({ status: 400, error: '{join($args.transfer.sender, $admin)}' }))[0]).toMatch(/argument 2 of join is a quoted text/);
    expect(problems(refuse({ status: 400, error: '{matching($args.transfer.sender, "(")}' }))[0]).toMatch(/not a regular expression/);
    expect(problems(refuse({ status: 400, error: '{sort($args.transfer.sender}' }))[0]).toMatch(/expected "," or "\)" after argument 1 of sort/);
    accepts(refuse({ when: { lt: ['$args.transfer.sender', '$args.transfer.receiver'] }, status: 400, error: 'x' }));
    expect(problems(refuse({ when: { lt: ['$args.transfer.sender'] }, status: 400, error: 'x' }))[0]).toMatch(/^refuse\[0\]\.when\.lt: "lt" takes a list of two value expressions|^refuse\.0\.when\.lt: "lt" takes a list of two value expressions/);
    // `{a.b,c}`: sub-paths in a field list, each checked
    accepts(refuse({ when: { subsetOf: ['$args.transfer.{sender,instrumentId.admin}', '$args.transfer.{receiver,instrumentId.admin}'] }, status: 400, error: 'x' }));
    expect(problems(refuse({ when: { exists: '$args.transfer.{sender,instrumentId.nope}' }, status: 400, error: 'x' }))[0]).toMatch(/names no field of transfer\.instrumentId of TransferFactory_Transfer \(v1\) \(fields: admin, id\)/);
    // forEach: checks per element, $item and $itemContract only there
    accepts(refuse({ forEach: '$args.transfer.inputHoldingCids.*', checks: [{ when: { not: { exists: '$itemContract' } }, status: 404, error: 'Holding {$item} not found' }, { status: 400, error: '{$item} is a {$itemContract.templateId}' }] }));
    expect(problems(refuse({ forEach: '$args.transfer.inputHoldingCids.*', status: 400, error: 'x' }))).toEqual([
      'refuse[0].checks: a rule with "forEach" has "checks" (each with "when", "status" and "error")',
      'refuse[0].status: a rule with "forEach" puts "status" in each of its "checks"',
      'refuse[0].error: a rule with "forEach" puts "error" in each of its "checks"',
    ]);
    expect(problems(refuse({ when: { exists: '$args.transfer.sender' } }))).toEqual(['refuse[0].status: a refusal needs "status" (or "forEach" with "checks")', 'refuse[0].error: a refusal needs "error" (or "forEach" with "checks")']);
    expect(problems(refuse({ status: 400, error: '{$itemContract.templateId}' }))).toEqual(['refuse[0].error: $itemContract is only available in the checks of a refusal with forEach']);
    expect(problems(refuse({ status: 400, error: '{$item}' }))).toEqual(['refuse[0].error: $item is only available in missingError and in the checks of a refusal with forEach']);
    expect(problems(refuse({ forEach: '$args.transfer.nope.*', checks: [{ status: 400, error: 'x' }] }))[0]).toMatch(/^refuse\[0\]\.forEach: "\$args\.transfer\.nope\.\*" \(for transferFactory\.v1\) names no field/);
    expect(problems(refuse({ forEach: '$args.transfer.inputHoldingCids.*', checks: [{ when: { exists: '$ref.nope' }, status: 400, error: 'x' }] }))[0]).toMatch(/^refuse\[0\]\.checks\[0\]\.when\.exists: "\$ref\.nope": no entry/);
    // missingError placeholders take the same functions
    expect(problems((c) => (c.contextEntries[0].missingError = '{sort($nope)}'))[0]).toMatch(/^contextEntries\[0\]\.missingError: "\$nope": unknown value expression root/);
  });

  it('count and consecutive predicates: a list and a whole number written as a string; one list', () => {
    const refuse = (when: unknown) => (c: BaseRecipe) => {
      c.contextEntries[0].name = 'config';
      Object.assign(c, { refuse: [{ when, status: 404, error: 'x' }] });
    };
    const accepts = (mut: (c: BaseRecipe) => void) => {
      const c = base();
      mut(c);
      expect(() => validateDeclarativeRecipe(c)).not.toThrow();
    };
    accepts(refuse({ not: { all: [{ count: ['$ref.config', '3'] }, { consecutive: '$ref.config.round.number' }] } }));
    accepts(refuse({ count: ['$args.transfer.inputHoldingCids', '$args.transfer.amount'] }));
    expect(problems(refuse({ count: ['$ref.config', 3] }))).toEqual(['refuse[0].when.count[1]: 3: write numbers as strings ("3"), as the JSON Ledger API encodes Int64 and Numeric']);
    expect(problems(refuse({ count: ['$ref.config', 'three'] }))).toEqual(['refuse[0].when.count[1]: "three": "count" compares with a whole number written as a string, e.g. "3"']);
    expect(problems(refuse({ count: ['$ref.config', '-1'] }))).toEqual(['refuse[0].when.count[1]: "-1": "count" compares with a whole number written as a string, e.g. "3"']);
    expect(problems(refuse({ count: ['$ref.config'] }))).toEqual(['refuse[0].when.count: "count" takes a list expression and the number of its elements, e.g. ["$ref.rounds", "3"]']);
    expect(problems(refuse({ count: ['$ref.nope', '1'] }))).toEqual(['refuse[0].when.count[0]: "$ref.nope": no entry or transferKind.direct rule here is named "nope" (names: config)']);
    expect(problems(refuse({ consecutive: ['$ref.config.a', '$ref.config.b'] }))[0]).toMatch(/^refuse\[0\]\.when\.consecutive: a value is a value expression \(a string, a boolean or null\) or a computed value/);
    // computed values are operands too
    accepts(refuse({ all: [{ count: [{ list: ['$args.transfer.sender', '$args.transfer.receiver'] }, '2'] }, { consecutive: { union: ['$ref.config.round.number'] } }] }));
    expect(problems(refuse({ consecutive: '$args.transfer.nope' }))[0]).toMatch(/^refuse\[0\]\.when\.consecutive: "\$args\.transfer\.nope" \(for transferFactory\.v1\) names no field/);
  });

  it('whenMissing: a selector in a forEach check, read where the checks read; $missing only in its error', () => {
    const refuse = (check: object) => (c: BaseRecipe) => Object.assign(c, { refuse: [{ forEach: '$args.transfer.inputHoldingCids.*', checks: [check] }] });
    const accepts = (mut: (c: BaseRecipe) => void) => {
      const c = base();
      mut(c);
      expect(() => validateDeclarativeRecipe(c)).not.toThrow();
    };
    const LOCK = '#acme-token:Acme.Holding:LockedHolding';
    accepts(refuse({ when: { exists: '$itemContract.payload.lock' }, whenMissing: { templateId: LOCK, match: { $id: '$itemContract.payload.lock' } }, status: 404, error: 'Lock {$missing} of {$item} not found' }));
    accepts(refuse({ whenMissing: { templateId: LOCK, orTemplateIds: [CONFIG], match: { owner: '$args.transfer.sender', id: '$item' }, synchronizerId: 'sync::1' }, status: 400, error: 'x' }));
    expect(problems(refuse({ whenMissing: { match: {} }, status: 404, error: 'x' }))).toEqual(['refuse[0].checks[0].whenMissing: give exactly one of "templateId" and "interfaceId"']);
    expect(problems(refuse({ whenMissing: { templateId: LOCK, match: {}, pick: 'newest' }, status: 404, error: 'x' }))).toEqual([
      'refuse[0].checks[0].whenMissing: unknown key "pick"; allowed: templateId, interfaceId, orTemplateIds, match, synchronizerId',
    ]);
    expect(problems(refuse({ whenMissing: { templateId: LOCK, match: { $id: '$args.transfer.nope' } }, status: 404, error: 'x' }))[0]).toMatch(
      /^refuse\[0\]\.checks\[0\]\.whenMissing\.match\.\$id: "\$args\.transfer\.nope" \(for transferFactory\.v1\) names no field/,
    );
    expect(problems(refuse({ whenMissing: { templateId: LOCK, match: { $id: '$contract.lock' } }, status: 404, error: 'x' }))[0]).toMatch(/^refuse\[0\]\.checks\[0\]\.whenMissing\.match\.\$id: "\$contract\.lock": \$contract and \$contractId are only available/);
    expect(problems(refuse({ whenMissing: { interfaceId: '#acme-token:Acme.Holding:Lock', match: { $id: '$item' } }, status: 404, error: 'x' }))).toEqual([
      'refuse[0].checks[0].whenMissing.match.$id: contracts looked up by id must be selected by "templateId" (the ledger reports no interface for a lookup by id)',
    ]);
    expect(problems(refuse({ whenMissing: { templateId: LOCK, match: { $id: '$missing' } }, status: 404, error: 'x' }))).toEqual([
      'refuse[0].checks[0].whenMissing.match.$id: $missing is only available in the error of a check with whenMissing (the element it found nothing for)',
    ]);
    expect(problems(refuse({ when: { exists: '$missing' }, status: 404, error: '{$missing}' }))).toEqual([
      'refuse[0].checks[0].when.exists: $missing is only available in the error of a check with whenMissing (the element it found nothing for)',
      'refuse[0].checks[0].error: $missing is only available in the error of a check with whenMissing (the element it found nothing for)',
    ]);
    expect(problems((c) => Object.assign(c, { refuse: [{ status: 400, error: '{$missing}' }] }))).toEqual([
      'refuse[0].error: $missing is only available in the error of a check with whenMissing (the element it found nothing for)',
    ]);
    expect(problems((c) => (c.contextEntries[0].missingError = '{$missing}'))).toEqual([
      'contextEntries[0].missingError: $missing is only available in the error of a check with whenMissing (the element it found nothing for)',
    ]);
  });
});
