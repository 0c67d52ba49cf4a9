/**
 * `emulate` with a DEMO_WORLD_FILE declaring further users: a bad file is one `configuration
 * error: <path>: <what>` line per problem and exit 1, before anything listens; a good one starts
 * and its user is on the ledger with the declared rights.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort, startMain, until, type NodeProcess } from '../../support/processes.js';

const dir = mkdtempSync(join(tmpdir(), 'tr-world-users-'));
const file = (name: string, content: unknown) => {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(content));
  return p;
};
const parties = [{ hint: 'app-provider' }, { hint: 'alice' }];

let p: NodeProcess | undefined;
afterEach(async () => {
  await p?.kill();
  p = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('emulate: the world file\'s users', () => {
  it('a bad users entry: one configuration error line per problem, exit 1', async () => {
    const world = { parties, users: [{ id: 'operator2', primaryParty: 'app-provider', rights: { actAs: ['app-providr'], participantAdmin: 'yes' } }] };
    p = startMain(['emulate'], { DEMO_WORLD_FILE: file('bad.json', world), PORT: '0', REGISTRY_PORT: '0', SCAN_PORT: '0', VALIDATOR_PORT: '0', ADMIN_PORT: '0', LOG_LEVEL: 'warn' });
    expect(await p.exited(60_000)).toBe(1);
    expect(p.output().trim().split('\n')).toEqual(['configuration error: world.users[0].rights.participantAdmin: Invalid input: expected boolean, received string']);

    const refs = { parties, users: [{ id: 'operator2', primaryParty: 'app-provider', rights: { actAs: ['app-providr'], readAs: ['bob'] } }] };
    p = startMain(['emulate'], { DEMO_WORLD_FILE: file('refs.json', refs), PORT: '0', REGISTRY_PORT: '0', SCAN_PORT: '0', VALIDATOR_PORT: '0', ADMIN_PORT: '0', LOG_LEVEL: 'warn' });
    expect(await p.exited(60_000)).toBe(1);
    expect(p.output().trim().split('\n')).toEqual([
      'configuration error: world.users[0].rights.actAs[0]: unknown party hint "app-providr"',
      'configuration error: world.users[0].rights.readAs[0]: unknown party hint "bob"',
    ]);
  }, 90_000);

  it('a good one: the declared user is on the ledger with its primary party and rights', async () => {
    const world = { parties, users: [{ id: 'operator2', primaryParty: 'app-provider', rights: { actAs: ['app-provider'], readAs: ['alice'] } }] };
    const port = await freePort();
    p = startMain(['emulate'], { DEMO_WORLD_FILE: file('good.json', world), PORT: String(port), REGISTRY_PORT: '0', SCAN_PORT: '0', VALIDATOR_PORT: '0', ADMIN_PORT: '0', LOG_LEVEL: 'warn' });
    const base = `http://127.0.0.1:${port}`;
    await until(async () => (await fetch(`${base}/livez`)).ok, 30_000, 'the emulated ledger to listen');
    const allocated = ((await (await fetch(`${base}/v2/parties`)).json()) as { partyDetails: Array<{ party: string }> }).partyDetails.map((d) => d.party);
    const party = (hint: string) => allocated.find((x) => x.startsWith(`${hint}::`))!;
    const user = (await (await fetch(`${base}/v2/users/operator2`)).json()) as { user: { id: string; primaryParty: string } };
    expect(user.user).toMatchObject({ id: 'operator2', primaryParty: party('app-provider') });
    const rights = (await (await fetch(`${base}/v2/users/operator2/rights`)).json()) as { rights: unknown[] };
    expect(rights.rights).toEqual([{ kind: { CanActAs: { value: { party: party('app-provider') } } } }, { kind: { CanReadAs: { value: { party: party('alice') } } } }]);
  }, 90_000);
});
