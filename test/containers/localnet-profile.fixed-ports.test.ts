/**
 * The image with `EmulatedStackContainer.withProfile('localnet')`: LocalNet's addresses answer on
 * the host under LocalNet's own port numbers, so a client configured for LocalNet (the wallet
 * SDK's `localNetStaticConfig`) reaches the container unchanged:
 *  - the app-user participant's ledger on 2975 and the app-provider's on 3975 (`/v2/version` with
 *    a LocalNet token; `ledger-api-user` read with it, 401 without it);
 *  - the validator on 2000 (`/api/validator/v0/validator-user`: LocalNet's `ledger-api-user`);
 *  - scan on 4000 as `scan.localhost:4000/api/scan` (`/v0/dso-party-id`);
 *  - the example test-token registry on 5634 (info, and its three instruments);
 *  - the emulator's own admin API (a free host port) with LocalNet's auth: the container's client
 *    sends the LocalNet token.
 * It binds those host ports: vitest.config.ts runs it in the `fixed-ports` project, one file at a
 * time (never beside test/e2e/localnet-profile.fixed-ports.test.ts or a LocalNet on this host).
 *
 * Runs wherever a Docker-compatible runtime is reachable; in CI (CI=true) a missing runtime fails
 * the suite, elsewhere the suite is skipped with the reason printed (as test/containers/stack.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCALNET_LEDGER_AUTH, LOCALNET_PORTS, LOCALNET_VALIDATOR_USER } from '../../src/canton/localnet.js';
import { selfSignedHs256 } from '../../src/ledger-client/auth.js';
import { EmulatedStackContainer, type StartedEmulatedStackContainer } from '../../src/testcontainers/index.js';
import { resolveLocalhostNames } from '../support/localhost-names.js';
import { IN_CI, TEST_IMAGE, buildImage, runtimeMissing } from './support.js';

const missing = runtimeMissing();
if (missing && !IN_CI) console.warn(`[containers] SKIPPED: ${missing}`);

/** A LocalNet self-signed token (HS256 `unsafe`, LocalNet's audience) for `ledger-api-user`. */
const localNetToken = selfSignedHs256({ secret: LOCALNET_LEDGER_AUTH.hs256Secret, audience: LOCALNET_LEDGER_AUTH.targetAudience, userId: LOCALNET_VALIDATOR_USER });

describe.skipIf(missing !== undefined && !IN_CI)("token-registry image with withProfile('localnet'): LocalNet's addresses on the host", () => {
  let stack: StartedEmulatedStackContainer | undefined;
  const timings: Record<string, string> = {};

  beforeAll(async () => {
    if (missing) throw new Error(`CI=true but ${missing}`);
    resolveLocalhostNames();
    timings['image build (layer cache)'] = `${Math.round(await buildImage())} ms`;
    const t0 = performance.now();
    stack = await new EmulatedStackContainer(TEST_IMAGE).withProfile('localnet').start();
    timings['localnet stack: start() to ready'] = `${Math.round(performance.now() - t0)} ms`;
  }, 900_000);

  afterAll(async () => {
    await stack?.stop();
    if (Object.keys(timings).length > 0) console.info(`[containers] timings\n${Object.entries(timings).map(([k, v]) => `  ${k}: ${v}`).join('\n')}`);
  }, 120_000);

  it("the started container names LocalNet's ports as its URLs", () => {
    const s = stack!;
    const port = (url: string | undefined) => Number(new URL(url!).port);
    expect(port(s.ledgerUrl)).toBe(LOCALNET_PORTS.appUserLedger);
    expect(port(s.participant2Url)).toBe(LOCALNET_PORTS.appProviderLedger);
    expect(port(s.validatorUrl)).toBe(LOCALNET_PORTS.appUserValidator);
    expect(port(s.scanUrl)).toBe(LOCALNET_PORTS.scan);
    expect(port(s.exampleRegistryUrl)).toBe(LOCALNET_PORTS.exampleRegistry);
  });

  it('2975 and 3975: the ledgers answer /v2/version with a LocalNet token; they check it (a user read without one is 401)', async () => {
    const auth = { Authorization: `Bearer ${await localNetToken.token()}` };
    for (const port of [2975, 3975]) {
      const version = await fetch(`http://localhost:${port}/v2/version`, { headers: auth });
      expect(version.status, `port ${port}`).toBe(200);
      expect(await version.json()).toMatchObject({ version: expect.any(String) });
      const user = await fetch(`http://localhost:${port}/v2/users/${LOCALNET_VALIDATOR_USER}`, { headers: auth });
      expect(user.status, `port ${port}`).toBe(200);
      expect(await user.json()).toMatchObject({ user: { id: LOCALNET_VALIDATOR_USER } });
      expect((await fetch(`http://localhost:${port}/v2/users/${LOCALNET_VALIDATOR_USER}`)).status, `port ${port}`).toBe(401);
    }
  });

  it("2000: the validator's validator-user is LocalNet's ledger-api-user", async () => {
    const r = await fetch('http://localhost:2000/api/validator/v0/validator-user');
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ user_name: LOCALNET_VALIDATOR_USER, party_id: expect.stringMatching(/::1220[0-9a-f]{64}$/) });
  });

  it('4000: scan answers as scan.localhost:4000/api/scan (dso-party-id)', async () => {
    const r = await fetch('http://scan.localhost:4000/api/scan/v0/dso-party-id');
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ dso_party_id: expect.stringMatching(/^DSO::1220[0-9a-f]{64}$/) });
  });

  it('5634: the example test-token registry answers its info and lists its three instruments', async () => {
    const info = (await fetch('http://localhost:5634/registry/metadata/v1/info').then((r) => r.json())) as { adminId: string };
    expect(info.adminId).toMatch(/::1220[0-9a-f]{64}$/);
    const list = (await fetch('http://localhost:5634/registry/metadata/v1/instruments').then((r) => r.json())) as { instruments: Array<{ id: string }> };
    expect(list.instruments.map((i) => i.id).sort()).toEqual(['test-token-paused', 'test-token-v1', 'test-token-v2']);
  });

  it("the admin API (the emulator's own, a free host port) takes the container client's LocalNet token", async () => {
    const s = stack!;
    expect((await fetch(`${s.adminUrl}/admin/v1/clock`)).status).toBe(401);
    const clock = await s.adminApi.clock();
    expect(Date.parse(clock.now)).toBeGreaterThan(0);
  });
});
