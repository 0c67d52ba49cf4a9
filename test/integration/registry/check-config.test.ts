/**
 * `token-registry check-config` as an operator runs it (a real child process) against a ledger
 * node (the emulator, demo world, on a loopback port): a good configuration (the TestTokenV1
 * example of docs/recipes.md) and four broken ones, each with its one-line message and exit code.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { isObject } from '../../../src/canton/json-shape.js';
import { startMain } from '../../support/processes.js';

const EXAMPLE = fileURLToPath(new URL('../../../docs/examples/test-token-v1.registry.json', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tr-check-config-'));
let emu: RunningEmulator;
let admin = '';

beforeAll(async () => {
  emu = await startEmulator({ config: { port: 0, logLevel: 'silent' } });
  admin = emu.seeded!.parties.find((p) => p.hint === 'token-admin')!.party;
});
afterAll(async () => {
  await emu?.close();
});

type Doc = Record<string, unknown> & { recipes: Array<Record<string, unknown>>; instruments: Array<Record<string, unknown>> };
/** The example, pointed at the emulator, with `edit` applied. */
function config(name: string, edit: (doc: Doc) => void = () => undefined): string {
  const doc: unknown = JSON.parse(readFileSync(EXAMPLE, 'utf8'));
  if (!isObject(doc) || !Array.isArray(doc.recipes) || !Array.isArray(doc.instruments)) throw new Error('unexpected example shape');
  const d = { ...doc, adminParty: admin, ledger: { url: emu.ledgerUrl }, recipes: doc.recipes as Doc['recipes'], instruments: doc.instruments as Doc['instruments'] };
  edit(d);
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(d));
  return file;
}

async function checkConfig(file: string): Promise<{ code: number | null; lines: string[] }> {
  const p = startMain(['check-config', file], {});
  const code = await p.exited(60_000);
  return { code, lines: p.output().split('\n').filter((l) => l !== '') };
}

describe('token-registry config schema serve', () => {
  it('prints the full recipe schema (not `items: {}`), field descriptions included', async () => {
    const p = startMain(['config', 'schema', 'serve'], {});
    expect(await p.exited(60_000)).toBe(0);
    const schema: unknown = JSON.parse(p.output());
    const recipes = isObject(schema) && isObject(schema.properties) ? schema.properties.recipes : undefined;
    const items = isObject(recipes) ? recipes.items : undefined;
    const props = isObject(items) && isObject(items.properties) ? items.properties : {};
    expect(Object.keys(props)).toEqual(['name', 'description', 'supportedApis', 'factories', 'contextEntries', 'refuse', 'transferKind', 'transferInstructions', 'allocationInstructions', 'allocations', 'definitions']);
    expect(isObject(items) && Array.isArray(items.required) ? items.required : []).toEqual(['name', 'supportedApis']);
    const direct = JSON.stringify(props.transferKind);
    expect(direct).toContain('"anyOf"');
    expect(direct).toContain('One rule or a list of rules');
    // factory refusals: the placeholder functions and forEach are described
    const refuse = JSON.stringify(props.refuse);
    expect(refuse).toContain('join(list, \\"sep\\")');
    expect(refuse).toContain('$itemContract');
  }, 90_000);
});

describe('token-registry check-config', () => {
  it('a good configuration: every endpoint the token offers answers; the others are reported as not offered; exit 0', async () => {
    const { code, lines } = await checkConfig(config('good'));
    expect(lines).toContainEqual(expect.stringMatching(/^ok +instrument TT1 \(test-token-v1\): POST \/registry\/transfer-instruction\/v1\/transfer-factory: factory [0-9a-f]+$/));
    expect(lines).toContainEqual(expect.stringMatching(/^ok +instrument TT1 \(test-token-v1\): POST \/registry\/allocation-instruction\/v1\/allocation-factory: factory [0-9a-f]+$/));
    expect(lines).toContainEqual(
      '--    instrument TT1 (test-token-v1): POST /registry/transfer-instruction/v2/transfer-factory: not offered: splice-api-token-transfer-instruction-v2 is not in supportedApis (answers 400: splice-test-token-v1 implements only the V1 transfer instruction API; use /v1)',
    );
    expect(lines.filter((l) => l.startsWith('error'))).toEqual([]);
    expect(lines.at(-1)).toMatch(/^configuration ok: 1 instrument\(s\) checked against http:\/\/127\.0\.0\.1:\d+$/);
    expect(code).toBe(0);
  }, 90_000);

  it('an unknown template: the recipe names a template the ledger node does not know', async () => {
    const { code, lines } = await checkConfig(
      config('unknown-template', (d) => {
        d.recipes[0]!.allocations = { templateIds: ['#splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:NoSuchAllocation'], instrumentIdPath: 'allocation.transferLeg.instrumentId' };
      }),
    );
    expect(lines).toContainEqual(
      `error recipe test-token-v1: template #splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:NoSuchAllocation is not known to the ledger node ${emu.ledgerUrl}: upload the DAR that defines it, or correct the id`,
    );
    expect(code).toBe(1);
  }, 90_000);

  it('a wrong admin path: the factory is matched on a field the template does not have', async () => {
    const { code, lines } = await checkConfig(
      config('wrong-admin-path', (d) => {
        const factories = d.recipes[0]!.factories as Record<string, { match: Record<string, string> }>;
        factories['transferFactory.v1']!.match = { issuer: '$admin' };
      }),
    );
    expect(lines).toContainEqual(
      `error instrument TT1 (test-token-v1): POST /registry/transfer-instruction/v1/transfer-factory: splice-api-token-transfer-instruction-v1 is in supportedApis, but the registry answers 404: No transferFactory.v1 factory found: the registry admin sees no active #splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:TokenRules with issuer = "${admin}" ($admin)`,
    );
    expect(lines.filter((l) => l.startsWith('error'))).toHaveLength(1);
    expect(code).toBe(1);
  }, 90_000);

  it('a recipe without supportedApis: a configuration error, one line, no stack trace', async () => {
    const { code, lines } = await checkConfig(config('no-supported-apis', (d) => delete d.recipes[0]!.supportedApis));
    expect(lines).toEqual(['configuration error: recipes[0].supportedApis: Invalid input: expected record, received undefined']);
    expect(code).toBe(1);
  }, 90_000);

  it('an unknown recipe name: a configuration error listing the known recipes', async () => {
    const { code, lines } = await checkConfig(config('unknown-recipe', (d) => (d.instruments[0]!.recipe = 'declarative:test-token-v1')));
    expect(lines).toEqual([
      'configuration error: instruments[0].recipe: unknown recipe "declarative:test-token-v1" for instrument TT1 (did you mean "test-token-v1"? a recipe is named by its "name" alone); known recipes: splice-test-token-v1, splice-test-token-v2, splice-amulet, test-token-v1',
    ]);
    expect(code).toBe(1);
  }, 90_000);
});
