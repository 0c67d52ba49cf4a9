/**
 * Reuse in declarative recipes: named definitions (`definitions`, used as `{"$def", "with"}`),
 * computed values (`list`, `union`, `record`, `if`) and a rule's `let` values. Definitions are
 * expanded when the recipe is loaded: each mistake is one `<path>: <what>` problem, and so one
 * `configuration error:` line of `serve` / `check-config`.
 */
import { describe, expect, it } from 'vitest';
import { recipeProblems } from '../../support/recipe-memory-index.js';
import { DeclarativeRecipe } from '../../../src/registry/recipes/declarative/declarative-recipe.js';
import { validateDeclarativeRecipe } from '../../../src/registry/recipes/declarative/validation.js';
import { ConfigError } from '../../../src/canton/config-error.js';
import { parseRegistryConfig } from '../../../src/serve.js';
import type { IndexedContract } from '../../../src/contracts/indexed-contract.js';
import type { RecipeEnv } from '../../../src/registry/recipes/recipe.js';
import { RegistryError, statusOf } from '../../../src/registry/errors.js';
import { readFileSync } from 'node:fs';
import TT2_EXAMPLE from '../../../docs/examples/test-token-v2.registry.json' with { type: 'json' };

const RULES = '#acme-token:Acme.Rules:TransferRules';
const ADMIN = 'admin::1220aa';

/** A V2 transfer recipe: the factory, and whatever the test adds (refuse rules, definitions, ...). */
function recipe(extra: Record<string, unknown>): Record<string, unknown> {
  return {
    name: 'acme-token',
    supportedApis: { 'splice-api-token-transfer-instruction-v2': 1 },
    factories: { 'transferFactory.v2': { templateId: RULES, match: { admin: '$admin' } } },
    ...extra,
  };
}

const problems = recipeProblems;

/** The refusal a V2 transfer request gets from the recipe (over a ledger with the admin's factory only). */
async function refusal(json: unknown, args: Record<string, unknown>): Promise<{ status: number; message: string } | 'none'> {
  const { recipe: r } = DeclarativeRecipe.fromJson(json);
  const factory: IndexedContract = { contractId: '00aa', templateId: 'pkg:Acme.Rules:TransferRules', packageName: 'acme-token', payload: { admin: ADMIN }, createdAt: '2026-05-01T00:00:00Z', createdEventBlob: 'blob', synchronizerId: 'sync' };
  const env: RecipeEnv = {
    admin: ADMIN,
    nowMicros: () => 0n,
    index: { find: (key, where) => (key === 'acme-token:Acme.Rules:TransferRules' ? [factory].filter((c) => !where || where(c)) : []), getById: () => Promise.resolve(undefined), catchUp: () => Promise.resolve() },
  };
  try {
    await r.transferFactory(2, args, env);
    return 'none';
  } catch (e) {
    if (!(e instanceof RegistryError)) throw e;
    return { status: statusOf(e.code), message: e.message };
  }
}

const transfer = (sender: Record<string, unknown>, receiver: Record<string, unknown>, actors: string[] = []) => ({
  transfer: { sender, receiver, amount: '1', instrumentId: { admin: ADMIN, id: 'X' }, requestedAt: '2026-05-01T00:00:00Z', executeBefore: '2026-05-02T00:00:00Z', inputHoldingCids: [], meta: { values: {} } },
  actors,
  extraArgs: { context: { values: {} }, meta: { values: {} } },
});

describe('definitions', () => {
  const isProvider = { params: ['account'], predicate: { exists: '$account.provider' } };
  const refuseProvider = {
    definitions: { isProvider, providerMessage: { params: ['who', 'account'], message: '$who {$account.owner} has provider {$account.provider}' } },
    refuse: [
      {
        when: { $def: 'isProvider', with: { account: '$args.transfer.sender' } },
        status: 400,
        error: { $def: 'providerMessage', with: { who: 'sender', account: '$args.transfer.sender' } },
      },
    ],
  };

  it('are expanded where they are used: the same configuration as written out, and the same answers', async () => {
    const inline = recipe({ refuse: [{ when: { exists: '$args.transfer.sender.provider' }, status: 400, error: 'sender {$args.transfer.sender.owner} has provider {$args.transfer.sender.provider}' }] });
    const { config } = validateDeclarativeRecipe(recipe(refuseProvider));
    expect(config.refuse).toEqual(validateDeclarativeRecipe(inline).config.refuse);
    expect(await refusal(recipe(refuseProvider), transfer({ owner: 'alice', provider: 'bank', id: '' }, { owner: 'bob' }))).toEqual({ status: 400, message: 'sender alice has provider bank' });
    expect(await refusal(recipe(refuseProvider), transfer({ owner: 'alice' }, { owner: 'bob' }))).toBe('none');
  });

  it('may use other definitions, and take predicates and computed values as arguments', () => {
    const json = recipe({
      definitions: {
        isProvider,
        both: { params: ['p', 'q'], predicate: { all: ['$p', '$q'] } },
        parties: { params: ['account'], value: { union: ['$account.owner', '$account.provider'] } },
      },
      refuse: [
        {
          when: { $def: 'both', with: { p: { $def: 'isProvider', with: { account: '$args.transfer.sender' } }, q: { in: ['$admin', { $def: 'parties', with: { account: '$args.transfer.receiver' } }] } } },
          status: 400,
          error: 'x',
        },
      ],
    });
    expect(validateDeclarativeRecipe(json).config.refuse[0]!.when).toEqual({
      all: [{ exists: '$args.transfer.sender.provider' }, { in: ['$admin', { union: ['$args.transfer.receiver.owner', '$args.transfer.receiver.provider'] }] }],
    });
  });

  it('an unknown name is one problem at its use', () => {
    expect(problems(recipe({ definitions: { isProvider }, refuse: [{ when: { $def: 'isProvide', with: { account: '$args.transfer.sender' } }, status: 400, error: 'x' }] }))).toEqual([
      'refuse[0].when: unknown definition "isProvide" (definitions: isProvider)',
    ]);
    expect(problems(recipe({ refuse: [{ when: { $def: 'isProvider' }, status: 400, error: 'x' }] }))).toEqual(['refuse[0].when: unknown definition "isProvider" (the recipe has no "definitions")']);
  });

  it('a definition that uses itself, directly or through others, is one problem', () => {
    const json = recipe({
      definitions: { a: { predicate: { not: { $def: 'b' } } }, b: { predicate: { any: [{ $def: 'a' }] } }, c: { predicate: { not: { $def: 'c' } } } },
      refuse: [{ when: { $def: 'a' }, status: 400, error: 'x' }],
    });
    expect(problems(json)).toEqual([
      'definitions.a: the definition uses itself (a → b → a); a definition may use others, not itself',
      'definitions.c: the definition uses itself (c → c); a definition may use others, not itself',
    ]);
  });

  it('a definition of the wrong kind is one problem at its use', () => {
    const defs = { isProvider, parties: { params: ['account'], value: { union: ['$account.owner', '$account.provider'] } }, msg: { message: 'no' } };
    expect(problems(recipe({ definitions: defs, refuse: [{ when: { in: [{ $def: 'isProvider', with: { account: '$args.transfer.sender' } }, '$args.actors'] }, status: 400, error: 'x' }] }))).toEqual([
      'refuse[0].when.in[0]: "isProvider" is a predicate definition, but a value goes here',
    ]);
    expect(problems(recipe({ definitions: defs, refuse: [{ when: { $def: 'parties', with: { account: '$args.transfer.sender' } }, status: 400, error: 'x' }] }))).toEqual([
      'refuse[0].when: "parties" is a value definition, but a predicate goes here',
    ]);
    expect(problems(recipe({ definitions: defs, refuse: [{ status: 400, error: { $def: 'isProvider', with: { account: '$args.transfer.sender' } } }] }))).toEqual([
      'refuse[0].error: "isProvider" is a predicate definition, but a message goes here',
    ]);
    expect(problems(recipe({ definitions: defs, factories: { 'transferFactory.v2': { templateId: RULES, match: { admin: { $def: 'msg' } } } } }))).toEqual([
      'factories.transferFactory.v2.match.admin: the message definition "msg" cannot be used here; a definition is used as a predicate (when, if, not, all, any, a computed if), a value (a predicate operand, a let value, list, union, record, then, else) or a message (error, missingError)',
    ]);
  });

  it('arguments: each parameter given, no other, and a path only into a value expression', () => {
    const use = (w: unknown) => recipe({ definitions: { isProvider }, refuse: [{ when: { $def: 'isProvider', with: w }, status: 400, error: 'x' }] });
    expect(problems(use({}))).toEqual(['refuse[0].when.with: missing the argument of parameter "account" of "isProvider"']);
    expect(problems(use({ account: '$args.transfer.sender', acount: 'x' }))).toEqual(['refuse[0].when.with.acount: "isProvider" has no parameter "acount" (parameters: account)']);
    expect(problems(use({ account: { list: [] } }))).toEqual([
      'refuse[0].when.with.account: the definition reads "$account.provider", a path into its argument, so the argument is a value expression such as "$args.transfer.sender", not {"list":[]}',
    ]);
  });

  it('the malformed definition itself is reported, with what is allowed', () => {
    expect(problems(recipe({ definitions: { two: { predicate: { exists: '$admin' }, message: 'x' } } }))).toEqual(['definitions.two: a definition has exactly one of "predicate", "value" and "message"']);
    expect(problems(recipe({ definitions: { p: { params: ['args'], predicate: { exists: '$args' } } } }))[0]).toMatch(/^definitions\.p\.params\[0\]: a parameter may not be named after a value expression root/);
  });

  it('what an expansion says wrong is reported where the definition is used (here: an $args path of the V2 choice)', () => {
    expect(problems(recipe({ definitions: { isProvider }, refuse: [{ when: { $def: 'isProvider', with: { account: '$args.transfer.payer' } }, status: 400, error: 'x' }] }))[0]).toMatch(
      /^refuse\[0\]\.when\.exists: "\$args\.transfer\.payer\.provider" \(for transferFactory\.v2\) names no field of transfer/,
    );
  });

  it('a value definition may stand in a computed value: in list, union, if and record fields', () => {
    const json = recipe({
      definitions: { me: { value: '$admin' } },
      refuse: [{ let: { a: { record: { owner: { if: { exists: '$args.actors.0' }, then: { $def: 'me' }, else: { list: [{ $def: 'me' }] } } } } }, status: 400, error: 'x' }],
    });
    expect(validateDeclarativeRecipe(json).config.refuse[0]!.let).toEqual({ a: { record: { owner: { if: { exists: '$args.actors.0' }, then: '$admin', else: { list: ['$admin'] } } } } });
  });

  it('a definition used nowhere (not even by a used one) is a warning: it is not checked', () => {
    const { warnings } = validateDeclarativeRecipe(
      recipe({ definitions: { isProvider, viaOther: { predicate: { not: { $def: 'isProvider', with: { account: '$args.transfer.sender' } } } }, spare: { value: '$nope' } }, refuse: [{ when: { $def: 'viaOther' }, status: 400, error: 'x' }] }),
    );
    expect(warnings).toEqual(['definitions.spare: not used anywhere in the recipe, so not checked either (a definition is checked where it is used)']);
  });

  it('the registry configuration reports each as one configuration problem, under its recipe', () => {
    const doc = {
      adminParty: ADMIN,
      ledger: { url: 'http://ledger.example.com' },
      instruments: [{ id: 'X', name: 'X', symbol: 'X', recipe: 'acme-token' }],
      recipes: [recipe({ refuse: [{ when: { $def: 'nope' }, status: 400, error: 'x' }] })],
    };
    try {
      parseRegistryConfig(doc);
      throw new Error('expected a configuration error');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).problems).toEqual(['recipes[0].refuse[0].when: unknown definition "nope" (the recipe has no "definitions")']);
    }
  });
});

describe('computed values and let', () => {
  /** The groups of parties that may act for the sender's account: the owner alone, and owner and provider together. */
  const groups = { union: [{ list: [{ list: ['$args.transfer.sender.owner'] }, { union: ['$args.transfer.sender.owner', '$args.transfer.sender.provider'] }] }] };
  const json = recipe({
    refuse: [
      {
        let: { groups, actors: { union: ['$args.actors'] } },
        when: { not: { in: ['$let.actors', '$let.groups'] } },
        status: 400,
        error: 'actors [{join($args.actors, ", ")}]: one of {join($let.groups, " or ")}',
      },
    ],
  });

  it('union sorts and removes duplicates (lists element by element, a prefix first); in compares a sorted set of actors with each group', async () => {
    const sender = { owner: 'bob', provider: 'anna', id: '' };
    expect(await refusal(json, transfer(sender, { owner: 'x' }, ['bob']))).toBe('none');
    expect(await refusal(json, transfer(sender, { owner: 'x' }, ['bob', 'anna', 'bob']))).toBe('none');
    expect(await refusal(json, transfer(sender, { owner: 'x' }, ['anna']))).toEqual({ status: 400, message: 'actors [anna]: one of [anna, bob] or [bob]' });
    // a group that is a prefix of another comes first (as the built-in TestTokenV2 recipe sorts them)
    expect(await refusal(json, transfer({ owner: 'anna', provider: 'bob' }, { owner: 'x' }, ['bob']))).toEqual({ status: 400, message: 'actors [bob]: one of [anna] or [anna, bob]' });
    // owner = provider: one group
    expect(await refusal(json, transfer({ owner: 'bob', provider: 'bob' }, { owner: 'x' }, ['anna']))).toEqual({ status: 400, message: 'actors [anna]: one of [bob]' });
  });

  it('list leaves absent values out; if chooses; record builds an object read with a path', async () => {
    const j = recipe({
      refuse: [
        {
          let: {
            account: { record: { owner: { if: { exists: '$args.transfer.sender.owner' }, then: '$args.transfer.sender.owner', else: '$admin' }, provider: '$args.transfer.sender.provider' } },
            parties: { list: ['$let.account.owner', '$let.account.provider', null] },
          },
          status: 400,
          error: '{join($let.parties, ",")} {default($let.account.provider, "None")}',
        },
      ],
    });
    expect(await refusal(j, transfer({ provider: 'bank' }, { owner: 'x' }))).toEqual({ status: 400, message: `${ADMIN},bank bank` });
    expect(await refusal(j, transfer({ owner: 'alice' }, { owner: 'x' }))).toEqual({ status: 400, message: 'alice None' });
  });

  it('transferKind.self rules have let values too', async () => {
    const j = recipe({ transferKind: { self: { let: { parties: { union: ['$args.transfer.sender.owner', '$args.transfer.receiver.owner'] } }, when: { subsetOf: ['$let.parties', '$args.actors'] } } } });
    const { recipe: r } = DeclarativeRecipe.fromJson(j);
    const factory: IndexedContract = { contractId: '00aa', templateId: 'p:Acme.Rules:TransferRules', packageName: 'acme-token', payload: { admin: ADMIN }, createdAt: '2026-05-01T00:00:00Z', createdEventBlob: 'b', synchronizerId: 's' };
    const env: RecipeEnv = { admin: ADMIN, nowMicros: () => 0n, index: { find: () => [factory], getById: () => Promise.resolve(undefined), catchUp: () => Promise.resolve() } };
    expect((await r.transferFactory(2, transfer({ owner: 'a' }, { owner: 'b' }, ['b', 'a']), env)).transferKind).toBe('self');
    expect((await r.transferFactory(2, transfer({ owner: 'a' }, { owner: 'b' }, ['a']), env)).transferKind).toBe('offer');
  });

  it('$let reads only a value of the rule\'s own let, before it', () => {
    expect(problems(recipe({ refuse: [{ status: 400, error: '{$let.groups}' }] }))).toEqual([
      'refuse[0].error: "$let.groups": no let value is named "groups"; $let.<name> reads a value of the refusal\'s own "let"',
    ]);
    expect(problems(recipe({ refuse: [{ let: { a: '$let.b', b: '$admin' }, status: 400, error: 'x' }] }))).toEqual([
      'refuse[0].let.a: "$let.b": no let value is named "b"; $let.<name> reads a value of the refusal\'s own "let"',
    ]);
    expect(problems(recipe({ refuse: [{ let: { a: '$admin', b: '$let.c' }, status: 400, error: 'x' }] }))).toEqual([
      'refuse[0].let.b: "$let.c": no let value before it is named "c" (let: a); $let.<name> reads a value of the refusal\'s own "let"',
    ]);
  });

  it('a malformed computed value says what the forms are', () => {
    expect(problems(recipe({ refuse: [{ when: { in: ['$admin', { lists: [] }] }, status: 400, error: 'x' }] }))[0]).toMatch(/^refuse\[0\]\.when\.in\[1\]: a value is a value expression \(a string, a boolean or null\) or a computed value: \{"list"/);
  });
});

describe('docs/recipes.md, the walk-through of definitions', () => {
  const doc = readFileSync(new URL('../../../docs/recipes.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('## Walk-through: writing a rule once'), doc.indexOf('## What a declarative recipe cannot express'));
  const blocks = [...section.matchAll(/^```json\n([\s\S]*?)^```$/gm)].map((m) => m[1]!.trim());
  const example = TT2_EXAMPLE.recipes[0]!;
  const definitions: Record<string, unknown> = example.definitions;

  it('shows the definitions, the rule and the account record of docs/examples/test-token-v2.registry.json as they are', () => {
    expect(blocks).toHaveLength(4);
    const [sender, groups, refusal, rule] = blocks.map((b) => JSON.parse(b.startsWith('"') ? `{${b}}` : b) as Record<string, unknown>);
    for (const shown of [groups!, refusal!]) for (const [name, d] of Object.entries(shown)) expect(d, name).toEqual(definitions[name]);
    expect(rule).toEqual(example.refuse[0]);
    // the V1 sender, written out: what the example's definition v1Account makes of the V1 transfer factory's arguments
    const expanded = (let_: unknown) => validateDeclarativeRecipe({ ...example, refuse: [{ endpoints: ['transferFactory.v1'], let: let_, status: 400, error: 'x' }] }).config.refuse[0]!.let;
    expect(expanded(sender)).toEqual(expanded({ sender: example.refuse[2]!.let!.sender }));
  });
});
