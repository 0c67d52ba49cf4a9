/**
 * The declarative constructs that reason over a selection and per element: the `count` and
 * `consecutive` predicates (e.g. Splice Scan's "exactly three consecutive open mining rounds"), and
 * a `forEach` check's `whenMissing` lookup, which looks each element's own contracts up right after
 * its checks, before the next element is checked (as the built-in recipes check each settled
 * allocation, then its locked holdings). Run against an index held in memory.
 */
import { describe, expect, it } from 'vitest';
import { contractMaker, memoryRecipeEnv, registryOutcome } from '../../support/recipe-memory-index.js';
import type { IndexedContract } from '../../../src/contracts/indexed-contract.js';
import type { DeclarativeRecipeInput } from '../../../src/registry/recipes/declarative/schema/document.js';
import { DeclarativeRecipe } from '../../../src/registry/recipes/declarative/declarative-recipe.js';

const ADMIN = 'admin::1220aa';
const T = {
  rules: '#acme-token:Acme.Rules:Rules',
  round: '#acme-token:Acme.Round:Round',
  allocation: '#acme-token:Acme.Allocation:Allocation',
  lock: '#acme-token:Acme.Holding:Lock',
  other: '#acme-token:Acme.Other:Other',
};

const contract = contractMaker();

const envOf = (contracts: IndexedContract[]) => memoryRecipeEnv(ADMIN, contracts);

const recipe = (refuse: DeclarativeRecipeInput['refuse'], contextEntries: DeclarativeRecipeInput['contextEntries'] = []) =>
  DeclarativeRecipe.fromJson({
    name: 'acme-token',
    supportedApis: { 'splice-api-token-allocation-v2': 1 },
    factories: { settlementFactory: { templateId: T.rules, match: { admin: '$admin' } } },
    contextEntries,
    refuse,
  }).recipe;

/** The answer of the settlement factory: 'ok', or the status and message of the refusal. */
async function answer(r: DeclarativeRecipe, contracts: IndexedContract[], allocationCids: string[] = []): Promise<string> {
  return registryOutcome(() => r.settlementFactory({ allocations: allocationCids.map((allocationCid) => ({ allocationCid })) }, envOf(contracts)));
}

describe('count and consecutive predicates', () => {
  const usable = recipe(
    [{ when: { not: { all: [{ count: ['$ref.rounds', '3'] }, { consecutive: '$ref.rounds.round.number' }] } }, status: 404, error: 'No usable round among {$ref.rounds.round.number}' }],
    [{ name: 'rounds', templateId: T.round, match: { admin: '$admin' }, as: 'select', required: false }],
  );
  const rules = contract(T.rules, { admin: ADMIN });
  const rounds = (...numbers: unknown[]) => numbers.map((n) => contract(T.round, { admin: ADMIN, round: n === undefined ? {} : { number: n } }));

  it('hold for exactly three rounds with consecutive numbers, in any order', async () => {
    expect(await answer(usable, [rules, ...rounds('7', '8', '9')])).toBe('ok');
    expect(await answer(usable, [rules, ...rounds('9', '7', '8')])).toBe('ok');
    // a round of another admin is not selected
    expect(await answer(usable, [rules, ...rounds('7', '8', '9'), contract(T.round, { admin: 'other::1220bb', round: { number: '10' } })])).toBe('ok');
  });

  it('fail for two or four rounds, a gap, a repeat, or a number that is not a whole number', async () => {
    expect(await answer(usable, [rules, ...rounds('7', '8')])).toBe('NOT_FOUND: No usable round among ["7","8"]');
    expect(await answer(usable, [rules, ...rounds('7', '8', '9', '10')])).toBe('NOT_FOUND: No usable round among ["7","8","9","10"]');
    expect(await answer(usable, [rules, ...rounds('7', '8', '10')])).toBe('NOT_FOUND: No usable round among ["7","8","10"]');
    expect(await answer(usable, [rules, ...rounds('7', '8', '8')])).toBe('NOT_FOUND: No usable round among ["7","8","8"]');
    expect(await answer(usable, [rules, ...rounds('7', '8', '9.5')])).toBe('NOT_FOUND: No usable round among ["7","8","9.5"]');
    expect(await answer(usable, [rules, ...rounds('7', '8', undefined)])).toBe('NOT_FOUND: No usable round among ["7","8",null]');
    expect(await answer(usable, [rules])).toBe('NOT_FOUND: No usable round among []');
  });

  it('consecutive: whole numbers as Int64 texts or JSON numbers, negative ones too; an empty list and a list of one are consecutive', async () => {
    const consecutive = recipe([{ when: { not: { consecutive: '$args.allocations.*.allocationCid' } }, status: 400, error: 'not consecutive' }]);
    const ok = (cids: unknown[]) => consecutive.settlementFactory({ allocations: cids.map((allocationCid) => ({ allocationCid })) }, envOf([rules])).then(() => 'ok', (e: unknown) => (e as Error).message);
    expect(await ok([])).toBe('ok');
    expect(await ok(['5'])).toBe('ok');
    expect(await ok(['-1', 0, '1'])).toBe('ok');
    expect(await ok(['12345678901234567890', '12345678901234567891'])).toBe('ok');
    expect(await ok(['1', '3'])).toBe('not consecutive');
    expect(await ok(['1', 'x'])).toBe('not consecutive');
  });

  it('count: absent and null elements aside; n may be a value expression', async () => {
    const count = recipe([{ when: { not: { count: ['$args.allocations.*.allocationCid', '$args.settlement.meta.values.[acme.example.com/n]'] } }, status: 400, error: 'not {$args.settlement.meta.values.[acme.example.com/n]}' }]);
    const run = (n: string | undefined, cids: unknown[]) =>
      count
        .settlementFactory({ settlement: { meta: { values: n === undefined ? {} : { 'acme.example.com/n': n } } }, allocations: cids.map((allocationCid) => ({ allocationCid })) }, envOf([rules]))
        .then(() => 'ok', (e: unknown) => (e as Error).message);
    expect(await run('2', ['a', null, 'b'])).toBe('ok');
    expect(await run('3', ['a', null, 'b'])).toBe('not 3');
    expect(await run('0', [])).toBe('ok');
    // n absent or not a whole number: the count is not n
    expect(await run(undefined, [])).toBe('not (absent)');
    expect(await run('two', ['a', 'b'])).toBe('not two');
  });
});

describe('whenMissing: per-element lookups in the order of the elements', () => {
  const rules = contract(T.rules, { admin: ADMIN });
  const live = contract(T.lock, { owner: 'alice' });
  const live2 = contract(T.lock, { owner: 'alice' });
  const goneId = `00${'dead'.repeat(4)}`;
  const goneId2 = `00${'beef'.repeat(4)}`;
  const allocation = (locks: string[] | string | null, admin = ADMIN) => contract(T.allocation, { admin, locks, expiresAt: '2026-05-02T10:00:00Z' });
  const ok1 = allocation([live.contractId, live2.contractId]);
  const gone = allocation([live.contractId, goneId, goneId2]);
  const single = allocation(goneId);
  const unfunded = allocation(null);
  const foreign = allocation([], 'other::1220bb');
  const ledger = [rules, live, live2, ok1, gone, single, unfunded, foreign];

  const checks = [
    { when: { not: { eq: ['$itemContract.payload.admin', '$admin'] } }, status: 404 as const, error: 'Allocation {$item} not found' },
    {
      whenMissing: { templateId: T.lock, match: { $id: '$itemContract.payload.locks.*' } },
      status: 404 as const,
      error: 'Lock {$missing} of allocation {$item}, which expires on {$itemContract.payload.expiresAt}, not found',
    },
  ];
  const perElement = recipe([{ forEach: '$args.allocations.*.allocationCid', checks }]);

  it('looks each element\'s contracts up after its checks and before the next element: the first gone lock answers, naming it', async () => {
    expect(await answer(perElement, ledger, [ok1.contractId])).toBe('ok');
    expect(await answer(perElement, ledger, [ok1.contractId, gone.contractId])).toBe(`NOT_FOUND: Lock ${goneId} of allocation ${gone.contractId}, which expires on 2026-05-02T10:00:00Z, not found`);
    // the gone lock of the first allocation answers before the second is checked; the other order answers the check
    expect(await answer(perElement, ledger, [gone.contractId, foreign.contractId])).toBe(`NOT_FOUND: Lock ${goneId} of allocation ${gone.contractId}, which expires on 2026-05-02T10:00:00Z, not found`);
    expect(await answer(perElement, ledger, [foreign.contractId, gone.contractId])).toBe(`NOT_FOUND: Allocation ${foreign.contractId} not found`);
  });

  it('a single id is looked up as it is; a null or absent one, and an empty list, look up nothing', async () => {
    const one = recipe([{ forEach: '$args.allocations.*.allocationCid', checks: [{ ...checks[1]!, whenMissing: { templateId: T.lock, match: { $id: '$itemContract.payload.locks' } } }] }]);
    expect(await answer(one, ledger, [unfunded.contractId, single.contractId])).toBe(`NOT_FOUND: Lock ${goneId} of allocation ${single.contractId}, which expires on 2026-05-02T10:00:00Z, not found`);
    expect(await answer(one, ledger, [unfunded.contractId])).toBe('ok');
    expect(await answer(perElement, ledger, [unfunded.contractId, foreign.contractId])).toBe(`NOT_FOUND: Allocation ${foreign.contractId} not found`);
  });

  it('a contract of another template is not found; `when` is tested first and rules the lookup out', async () => {
    const notALock = allocation([rules.contractId]);
    expect(await answer(perElement, [...ledger, notALock], [notALock.contractId])).toBe(`NOT_FOUND: Lock ${rules.contractId} of allocation ${notALock.contractId}, which expires on 2026-05-02T10:00:00Z, not found`);
    const guarded = recipe([{ forEach: '$args.allocations.*.allocationCid', checks: [{ ...checks[1]!, when: { exists: '$args.settlement.meta.values.[acme.example.com/check-locks]' } }] }]);
    expect(await answer(guarded, ledger, [gone.contractId])).toBe('ok');
  });

  it('a lookup by field: the check applies when the selector finds nothing for the element', async () => {
    const byField = recipe([
      {
        forEach: '$args.allocations.*.allocationCid',
        checks: [{ whenMissing: { templateId: T.lock, match: { owner: '$itemContract.payload.owner' } }, status: 400, error: 'No lock of {$itemContract.payload.owner} ({$item}); $missing is {$missing}' }],
      },
    ]);
    const ofAlice = contract(T.allocation, { owner: 'alice' });
    const ofBob = contract(T.allocation, { owner: 'bob' });
    expect(await answer(byField, [...ledger, ofAlice, ofBob], [ofAlice.contractId])).toBe('ok');
    expect(await answer(byField, [...ledger, ofAlice, ofBob], [ofAlice.contractId, ofBob.contractId])).toBe(`BAD_REQUEST: No lock of bob (${ofBob.contractId}); $missing is (absent)`);
  });

  it('its templates are cached (looked up by id) or indexed (found by field)', () => {
    expect(perElement.cachedTemplates).toContain(T.lock);
    const byField = recipe([{ forEach: '$args.allocations.*.allocationCid', checks: [{ whenMissing: { templateId: T.other, match: { owner: '$itemContract.payload.owner' } }, status: 400, error: 'x' }] }]);
    expect(byField.indexedTemplates).toContain(T.other);
  });
});
