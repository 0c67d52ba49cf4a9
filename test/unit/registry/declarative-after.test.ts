/**
 * A refusal's `after`: the context entries whose lookups are made (and whose 404s answer) before
 * the refusal is checked, so that a recipe orders its checks among its lookups as a token's own
 * registry does (Splice Scan looks up AmuletRules and the open round before it checks the rounds,
 * and the factory before the allocations of a settlement); and the `when` and `after` of a
 * per-contract refusal. Run against an index held in memory.
 */
import { describe, expect, it } from 'vitest';
import { contractMaker, memoryRecipeEnv, recipeProblems, registryOutcome } from '../../support/recipe-memory-index.js';
import type { IndexedContract } from '../../../src/contracts/indexed-contract.js';
import type { DeclarativeRecipeInput } from '../../../src/registry/recipes/declarative/schema/document.js';
import { DeclarativeRecipe } from '../../../src/registry/recipes/declarative/declarative-recipe.js';
import { validateDeclarativeRecipe } from '../../../src/registry/recipes/declarative/validation.js';

const ADMIN = 'admin::1220aa';
const T = {
  factory: '#acme-token:Acme.Rules:Factory',
  rules: '#acme-token:Acme.Rules:Rules',
  round: '#acme-token:Acme.Round:Round',
  allocation: '#acme-token:Acme.Allocation:Allocation',
  lock: '#acme-token:Acme.Holding:Lock',
};

const contract = contractMaker();

const envOf = (contracts: IndexedContract[]) => memoryRecipeEnv(ADMIN, contracts);

const outcome = registryOutcome;

const usableRounds = { not: { all: [{ count: ['$ref.rounds', '3'] }, { consecutive: '$ref.rounds.round.number' }] } };
const roundEntries: NonNullable<DeclarativeRecipeInput['contextEntries']> = [
  { key: 'acme.example.com/rules', name: 'rules', templateId: T.rules, match: { admin: '$admin' }, missingError: 'No Rules of {$admin}' },
  { name: 'rounds', templateId: T.round, match: { admin: '$admin' }, as: 'select', required: false },
  { key: 'acme.example.com/round', name: 'round', templateId: T.round, match: { admin: '$admin', opensAt: { lte: '$now' } }, pick: { max: 'round.number' }, missingError: 'No usable round' },
];
const allocationFactory = (after?: string[]) =>
  DeclarativeRecipe.fromJson({
    name: 'acme-token',
    supportedApis: { 'splice-api-token-allocation-instruction-v1': 1 },
    factories: { 'allocationFactory.v1': { templateId: T.factory, match: { admin: '$admin' }, missingError: 'No Factory of {$admin}' } },
    contextEntries: roundEntries,
    refuse: [{ ...(after ? { after } : {}), when: usableRounds, status: 404, error: 'No usable round' }],
  }).recipe;

describe('refuse[].after: a factory refusal checked after the lookups it names', () => {
  const rounds = (...numbers: string[]) => numbers.map((n) => contract(T.round, { admin: ADMIN, opensAt: '2026-01-01T00:00:00Z', round: { number: n } }));
  const factory = contract(T.factory, { admin: ADMIN });
  const rules = contract(T.rules, { admin: ADMIN });
  const ask = (r: DeclarativeRecipe, contracts: IndexedContract[]) => outcome(() => r.allocationFactory(1, {}, envOf(contracts)));

  it('without it, the refusal answers before the entries and the factory are looked up', async () => {
    expect(await ask(allocationFactory(), [...rounds('1', '2')])).toBe('NOT_FOUND: No usable round');
    expect(await ask(allocationFactory(), [...rounds('1', '2', '3')])).toBe('NOT_FOUND: No Factory of admin::1220aa');
  });

  it('with it, the named entries are looked up first, in order: the first missing one answers', async () => {
    const after = allocationFactory(['rules', 'round']);
    expect(await ask(after, [...rounds('1', '2')])).toBe('NOT_FOUND: No Rules of admin::1220aa');
    expect(await ask(after, [rules])).toBe('NOT_FOUND: No usable round');
    expect(await ask(after, [rules, ...rounds('1', '2')])).toBe('NOT_FOUND: No usable round');
    expect(await ask(after, [rules, ...rounds('1', '2', '3')])).toBe('NOT_FOUND: No Factory of admin::1220aa');
    expect(await ask(after, [factory, rules, ...rounds('1', '2', '3')])).toBe('ok');
  });

  it('a `select` entry of the factory\'s template orders the factory lookup before the per-element checks', async () => {
    const settlement = (after?: string[]) =>
      DeclarativeRecipe.fromJson({
        name: 'acme-token',
        supportedApis: { 'splice-api-token-allocation-v2': 1 },
        factories: { settlementFactory: { templateId: T.factory, match: { admin: '$admin' }, missingError: 'No Factory of {$admin}' } },
        contextEntries: [{ name: 'factory', templateId: T.factory, match: { admin: '$admin' }, as: 'select', missingError: 'No Factory of {$admin}' }],
        refuse: [
          {
            ...(after ? { after } : {}),
            forEach: '$args.allocations.*.allocationCid',
            checks: [{ when: { not: { exists: '$itemContract' } }, status: 404, error: 'Allocation {$item} not found' }],
          },
        ],
      }).recipe;
    const unknown = `00${'ab'.repeat(8)}`;
    const settle = (r: DeclarativeRecipe, contracts: IndexedContract[]) => outcome(() => r.settlementFactory({ allocations: [{ allocationCid: unknown }] }, envOf(contracts)));
    expect(await settle(settlement(), [])).toBe(`NOT_FOUND: Allocation ${unknown} not found`);
    expect(await settle(settlement(['factory']), [])).toBe('NOT_FOUND: No Factory of admin::1220aa');
    expect(await settle(settlement(['factory']), [factory])).toBe(`NOT_FOUND: Allocation ${unknown} not found`);
  });
});

describe('per-contract refusals: when and after', () => {
  const recipe = DeclarativeRecipe.fromJson({
    name: 'acme-token',
    supportedApis: { 'splice-api-token-allocation-v1': 1 },
    allocations: {
      templateIds: [T.allocation],
      instrumentIdPath: 'instrumentId',
      refuse: [{ after: ['rules', 'round'], when: usableRounds, status: 404, error: 'No usable round for {$contractId}' }],
      contextEntries: [...roundEntries, { name: 'locked', templateId: T.lock, match: { $id: '$contract.lock' }, as: 'disclose', missingError: 'Lock {$contract.lock} not found' }],
    },
  }).recipe;
  const rounds = (...numbers: string[]) => numbers.map((n) => contract(T.round, { admin: ADMIN, opensAt: '2026-01-01T00:00:00Z', round: { number: n } }));
  const rules = contract(T.rules, { admin: ADMIN });
  const lock = contract(T.lock, {});
  const allocation = contract(T.allocation, { instrumentId: { admin: ADMIN, id: 'X' }, lock: lock.contractId });
  const ask = (contracts: IndexedContract[]) => outcome(() => recipe.allocationContext({ version: 1, action: 'withdraw', contract: allocation }, envOf([allocation, ...contracts])));

  it('the named entries answer first, then the predicate decides, then the context is assembled', async () => {
    expect(await ask([...rounds('1', '2', '3')])).toBe('NOT_FOUND: No Rules of admin::1220aa');
    expect(await ask([rules, ...rounds('1', '2')])).toBe(`NOT_FOUND: No usable round for ${allocation.contractId}`);
    expect(await ask([rules, ...rounds('1', '2', '3')])).toBe(`NOT_FOUND: Lock ${lock.contractId} not found`);
    expect(await ask([rules, lock, ...rounds('1', '2', '3')])).toBe('ok');
  });
});

describe('validation of after and of per-contract when', () => {
  const problems = recipeProblems;
  const factories = {
    'allocationFactory.v1': { templateId: T.factory, match: { admin: '$admin' } },
    settlementFactory: { templateId: T.factory, match: { admin: '$admin' } },
  };
  const supportedApis = { 'splice-api-token-allocation-instruction-v1': 1, 'splice-api-token-allocation-v2': 1 };

  it('names an entry of every endpoint the rule applies to', () => {
    const entries = [{ key: 'acme.example.com/rules', name: 'rules', templateId: T.rules, match: { admin: '$admin' }, endpoints: ['allocationFactory.v1'] }];
    expect(problems({ name: 'r', supportedApis, factories, contextEntries: entries, refuse: [{ after: ['rules', 'nope'], status: 400, error: 'no' }] })).toEqual([
      'refuse[0].after[0]: no context entry of settlementFactory is named "rules"; "after" names entries the rule\'s endpoints (or choices) look up',
      'refuse[0].after[1]: no context entry of allocationFactory.v1, settlementFactory is named "nope"; "after" names entries the rule\'s endpoints (or choices) look up',
    ]);
    expect(() => validateDeclarativeRecipe({ name: 'r', supportedApis, factories, contextEntries: entries, refuse: [{ endpoints: ['allocationFactory.v1'], after: ['rules'], status: 400, error: 'no' }] })).not.toThrow();
    expect(problems({ name: 'r', supportedApis, factories, refuse: [{ after: [], status: 400, error: 'no' }] })[0]).toMatch(/^refuse\[0\]\.after: /);
  });

  it('per-contract: `after` names entries of the rule\'s choices; `when` reads what per-contract entries read', () => {
    const allocations = (refuse: unknown[]) => ({
      name: 'r',
      supportedApis,
      allocations: {
        templateIds: [T.allocation],
        instrumentIdPath: 'instrumentId',
        refuse,
        contextEntries: [{ key: 'acme.example.com/rules', name: 'rules', templateId: T.rules, match: { admin: '$admin' }, endpoints: ['withdraw'] }],
      },
    });
    expect(problems(allocations([{ after: ['rules'], status: 404, error: 'no' }]))).toEqual([
      'allocations.refuse[0].after[0]: no context entry of execute-transfer, cancel is named "rules"; "after" names entries the rule\'s endpoints (or choices) look up',
    ]);
    expect(() => validateDeclarativeRecipe(allocations([{ endpoints: ['withdraw'], after: ['rules'], when: { exists: '$ref.rules' }, status: 404, error: '{$contractId}' }]))).not.toThrow();
    expect(problems(allocations([{ when: { eq: ['$args.x', '$ref.other'] }, status: 404, error: 'no {$ref.nope}' }]))).toEqual([
      'allocations.refuse[0].when.eq[0]: "$args.x": per-contract choice contexts have no choice arguments; use $contract.<path> (the contract\'s payload), $admin or a literal',
      'allocations.refuse[0].when.eq[1]: "$ref.other": no entry here is named "other" (names: rules)',
      'allocations.refuse[0].error: "$ref.nope": no entry here is named "nope" (names: rules)',
    ]);
  });
});
