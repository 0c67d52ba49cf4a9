/**
 * The image as people run it: built from docker/Dockerfile (layer cache on), the emulated stack
 * started with the testcontainers module next to a Redis container on one network, a wallet flow
 * through it (registry transfer factory, then the TT1 transfer and its acceptance submitted to the
 * container's ledger API), `serve` started with `RegistryContainer` against the stack's ledger and
 * the same Redis, the admin API driven from outside (snapshot, mint and fund, restore; the clock;
 * its refusals), and both compose files brought up once (waiting on HTTP: podman does not run
 * healthchecks). Timings are printed, never asserted.
 *
 * Runs wherever a Docker-compatible runtime is reachable; in CI (CI=true) a missing runtime or
 * compose command fails the suite, elsewhere the suite is skipped with the reason printed.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GenericContainer, ImageName, Network, Wait, getContainerRuntimeClient, type StartedNetwork, type StartedTestContainer } from 'testcontainers';
import { EmulatedStackContainer, RegistryContainer, type StartedEmulatedStackContainer, type StartedRegistryContainer } from '../../src/testcontainers/index.js';
import { IN_CI, REDIS_IMAGE, ROOT, TEST_IMAGE, buildImage, compose, composeCommand, freePort, runtimeMissing, waitForHttp } from './support.js';

const missing = runtimeMissing();
if (missing && !IN_CI) console.warn(`[containers] SKIPPED: ${missing}`);

const HOLDING_V1 = '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding';
const TRANSFER_FACTORY_V1 = '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory';
const TRANSFER_INSTRUCTION_V1 = '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction';
const noMeta = { values: {} };
const timings: Record<string, string> = {};
const ms = (n: number) => `${Math.round(n)} ms`;
/** The part of a TransferInstructionResult read here. */
interface ExerciseResult {
  output: { tag: string; value: { transferInstructionCid?: string } };
}

afterAll(() => {
  if (Object.keys(timings).length > 0) console.info(`[containers] timings\n${Object.entries(timings).map(([k, v]) => `  ${k}: ${v}`).join('\n')}`);
});

/** A wallet's submission to the container's ledger (submit-and-wait-for-transaction, LEDGER_EFFECTS); the root exercise's result. */
async function submit(s: StartedEmulatedStackContainer, actAs: string[], command: unknown, disclosedContracts: unknown[]): Promise<ExerciseResult> {
  const tx = (await s.ledger.request('POST', '/v2/commands/submit-and-wait-for-transaction', {
    commands: { commands: [command], commandId: `containers-${Date.now()}-${Math.random()}`, actAs, userId: 'wallet', disclosedContracts },
    transactionFormat: {
      eventFormat: { filtersByParty: Object.fromEntries(actAs.map((p) => [p, { cumulative: [] }])), verbose: true },
      transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
    },
  })) as { transaction: { events: Array<{ ExercisedEvent?: { nodeId: number; exerciseResult: ExerciseResult } }> } };
  return tx.transaction.events.find((e) => e.ExercisedEvent?.nodeId === 0)!.ExercisedEvent!.exerciseResult;
}

/** Mints `amount` TT1 to alice and offers it to bob through the stack registry's transfer factory; the offer's contract id. */
async function offerTt1(s: StartedEmulatedStackContainer, amount: string): Promise<string> {
  const admin = s.registryAdmin;
  const minted = await s.mint({ instrument: 'TT1', owner: 'alice', amount });
  const now = Date.now();
  const transfer = {
    sender: s.party('alice'),
    receiver: s.party('bob'),
    amount,
    instrumentId: { admin, id: 'TT1' },
    requestedAt: new Date(now - 60_000).toISOString(),
    executeBefore: new Date(now + 3_600_000).toISOString(),
    inputHoldingCids: [minted],
    meta: noMeta,
  };
  const choiceArguments = { expectedAdmin: admin, transfer, extraArgs: { context: { values: {} }, meta: noMeta } };
  const f = await fetch(`${s.registryUrl}/registry/transfer-instruction/v1/transfer-factory`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ choiceArguments }),
  });
  const factory = (await f.json()) as { factoryId: string; transferKind: string; choiceContext: { choiceContextData: unknown; disclosedContracts: unknown[] } };
  expect(f.status, JSON.stringify(factory)).toBe(200);
  expect(factory.transferKind).toBe('offer');
  expect(factory.choiceContext.disclosedContracts.length).toBeGreaterThan(0);
  const offered = await submit(
    s,
    [s.party('alice')],
    { ExerciseCommand: { templateId: TRANSFER_FACTORY_V1, contractId: factory.factoryId, choice: 'TransferFactory_Transfer', choiceArgument: { ...choiceArguments, extraArgs: { context: factory.choiceContext.choiceContextData, meta: noMeta } } } },
    factory.choiceContext.disclosedContracts,
  );
  expect(offered.output.tag).toBe('TransferInstructionResult_Pending');
  return offered.output.value.transferInstructionCid!;
}

/** The accept choice context a registry at `base` gives for a V1 transfer instruction. */
async function acceptContext(base: string, cid: string): Promise<{ status: number; body: { choiceContextData: unknown; disclosedContracts: unknown[] } }> {
  const r = await fetch(`${base}/registry/transfer-instruction/v1/${cid}/choice-contexts/accept`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  return { status: r.status, body: (await r.json()) as { choiceContextData: unknown; disclosedContracts: unknown[] } };
}

/** Polls `read` (up to 10 s) until it gives a non-empty list. */
async function eventually(read: () => Promise<string[]>): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const v = await read();
    if (v.length > 0 || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(missing !== undefined && !IN_CI)('token-registry image with testcontainers', () => {
  let network: StartedNetwork | undefined;
  let redis: StartedTestContainer | undefined;
  let stack: StartedEmulatedStackContainer | undefined;
  let registry: StartedRegistryContainer | undefined;

  beforeAll(async () => {
    if (missing) throw new Error(`CI=true but ${missing}`);
    const t0 = performance.now();
    timings['image build (layer cache)'] = ms(await buildImage());
    network = await new Network().start();
    redis = await new GenericContainer(REDIS_IMAGE)
      .withNetwork(network)
      .withNetworkAliases('redis')
      .withExposedPorts(6379)
      .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
      .start();
    const t1 = performance.now();
    stack = await new EmulatedStackContainer(TEST_IMAGE).withNetwork(network).withNetworkAliases('stack').withRedisUrl('redis://redis:6379').start();
    timings['stack: start() to /readyz (create + start + ready)'] = ms(performance.now() - t1);
    timings['setup total'] = ms(performance.now() - t0);
  }, 900_000);

  afterAll(async () => {
    await registry?.stop();
    await stack?.stop();
    await redis?.stop();
    await network?.stop();
  }, 120_000);

  it('the image runs as a non-root user, emulate by default, with a healthcheck on /readyz (docker format kept)', async () => {
    const client = await getContainerRuntimeClient();
    const image = await client.image.inspect(ImageName.fromString(TEST_IMAGE));
    timings['image size'] = `${(image.Size / 1e6).toFixed(1)} MB`;
    expect(image.Config.User).toBe('node');
    expect(image.Config.Entrypoint).toEqual(['node', 'dist/main.js']);
    expect(image.Config.Cmd).toEqual(['emulate']);
    expect(image.Config.Env).toContain('HOST=0.0.0.0');
    // read from the container (podman 4.3's image inspect API leaves the healthcheck out, though the image has it)
    const container = await client.container.inspect(client.container.getById(stack!.getId()));
    const check = container.Config.Healthcheck?.Test ?? [];
    expect(check[0]).toBe('CMD');
    expect(JSON.stringify(check)).toContain('/readyz');
    // podman runs no healthchecks here: run the image's own check in the running stack instead
    expect((await stack!.exec(check.slice(1))).exitCode).toBe(0);
    // the app's files belong to root: the process cannot rewrite its own code
    const owner = await stack!.exec(['stat', '-c', '%U', '/app/dist/main.js']);
    expect(owner.output.trim()).toBe('root');
    const whoami = await stack!.exec(['id', '-un']);
    expect(whoami.output.trim()).toBe('node');
  });

  it('the image runs the Node major of the Dockerfile\'s default base, one that package.json `engines` allows', async () => {
    // NODE_IMAGE may name a local stand-in for the official image: it must be the same Node line
    const dockerfile = await readFile(resolve(ROOT, 'docker/Dockerfile'), 'utf8');
    const defaultMajor = /^ARG NODE_IMAGE=node:(\d+)-bookworm-slim$/m.exec(dockerfile)?.[1];
    expect(defaultMajor, 'the Dockerfile names an official node:<major>-bookworm-slim base by default').toBeDefined();
    const engines = (JSON.parse(await readFile(resolve(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    const lowestMajor = /^>=(\d+)$/.exec(engines)?.[1];
    expect(Number(defaultMajor)).toBeGreaterThanOrEqual(Number(lowestMajor));
    const running = await stack!.exec(['node', '-p', 'process.versions.node']);
    expect(running.exitCode).toBe(0);
    timings['node in the image'] = running.output.trim();
    expect(running.output.trim().split('.')[0]).toBe(defaultMajor);
  });

  it('the stack answers /readyz on every mapped port and reports its seeded world', async () => {
    const s = stack!;
    expect((await fetch(`${s.ledgerUrl}/readyz`)).status).toBe(200);
    for (const url of [s.registryUrl, s.scanUrl]) expect((await fetch(`${url}/registry/metadata/v1/info`)).status).toBe(200);
    expect((await fetch(`${s.scanUrl}/api/scan/v0/dso`)).status).toBe(200);
    expect((await fetch(`${s.validatorUrl}/api/validator/version`)).status).toBe(200);
    expect(s.parties.map((p) => p.hint)).toEqual(['token-admin', 'alice', 'bob', 'executor', 'DSO', 'validator']);
    expect(s.registryAdmin).toBe(s.party('token-admin'));
    expect(s.instruments.map((i) => [i.id, i.token])).toEqual([
      ['TT1', 'splice-test-token-v1'],
      ['TT2-USD', 'splice-test-token-v2'],
      ['TT2-EUR', 'splice-test-token-v2'],
    ]);
    // the ledger knows the parties the output names
    const users = (await s.ledger.request('GET', '/v2/users')) as { users: Array<{ id: string; primaryParty: string }> };
    expect(users.users.find((u) => u.id === 'alice')?.primaryParty).toBe(s.party('alice'));
  });

  it('measures container start to /readyz of a fresh stack (printed, target < 2 s)', async () => {
    const t0 = performance.now();
    const fresh = await new EmulatedStackContainer(TEST_IMAGE).start();
    const readyAt = Date.now();
    timings['second stack: start() to ready (create + start + /readyz + start output)'] = ms(performance.now() - t0);
    try {
      const client = await getContainerRuntimeClient();
      const container = client.container.getById(fresh.getId());
      const startedAt = Date.parse((await client.container.inspect(container)).State.StartedAt);
      // an upper bound: start() returns after the HTTP wait's poll and the start output settling
      timings['second stack: container started to ready seen by start() (upper bound)'] = ms(readyAt - startedAt);
      // The emulator's own clock, from the process's start to every port listening (it leaves out
      // the runtime's exec of node). Not the ready line's log timestamp minus StartedAt: the two
      // come from different points of podman's start sequence, and the ready line was once
      // stamped 263 ms before StartedAt, so their difference is no duration.
      expect(fresh.readyInMs, 'the ready line prints the start-up time').toBeGreaterThan(0);
      timings['second stack: process start to every port listening (its own clock; target < 2 s)'] = ms(fresh.readyInMs!);
      expect((await fetch(`${fresh.ledgerUrl}/readyz`)).status).toBe(200);
    } finally {
      await fresh.stop();
    }
  }, 120_000);

  it('wallet flow: mint, registry transfer factory, transfer offer and acceptance on the container ledger; Redis holds the disclosed contracts', async () => {
    const s = stack!;
    const bob = s.party('bob');
    // a V2 instrument mints too (the offer-and-accept path)
    const mintedV2 = await s.mint({ instrument: 'TT2-USD', owner: 'bob', amount: '7.5' });
    expect(mintedV2).toMatch(/^00[0-9a-f]+$/);
    const instructionCid = await offerTt1(s, '10');

    // bob accepts with the context the registry gives for it
    const ctx = await acceptContext(s.registryUrl, instructionCid);
    expect(ctx.status, JSON.stringify(ctx.body)).toBe(200);
    // the registry's cache is the Redis container: the pending instruction it looked up by id is there (an archive deletes it)
    const keys = await eventually(async () => (await redis!.exec(['redis-cli', '--raw', 'keys', `token-registry:*${instructionCid}*`])).output.split('\n').filter((k) => k !== ''));
    expect(keys).toHaveLength(1);
    const accepted = await submit(
      s,
      [bob],
      { ExerciseCommand: { templateId: TRANSFER_INSTRUCTION_V1, contractId: instructionCid, choice: 'TransferInstruction_Accept', choiceArgument: { extraArgs: { context: ctx.body.choiceContextData, meta: noMeta } } } },
      ctx.body.disclosedContracts,
    );
    expect(accepted.output.tag).toBe('TransferInstructionResult_Completed');

    // bob's TT1 holdings, read through the HoldingV1 interface: the seeded 500 and the 10 received
    const acs = await s.ledger.activeContracts({ parties: [bob], interfaceIds: [HOLDING_V1], includeInterfaceView: true });
    const tt1 = acs.contracts
      .map((c) => c.createdEvent.interfaceViews?.[0]?.viewValue as { instrumentId: { id: string }; amount: string } | undefined)
      .filter((v) => v?.instrumentId.id === 'TT1')
      .map((v) => v!.amount)
      .sort();
    expect(tt1).toEqual(['10.0000000000', '500.0000000000']);
    // the accepted (archived) instruction leaves the cache
    const deadline = Date.now() + 10_000;
    let left = keys;
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      left = (await redis!.exec(['redis-cli', '--raw', 'keys', `token-registry:*${instructionCid}*`])).output.split('\n').filter((k) => k !== '');
    }
    expect(left).toEqual([]);
  }, 60_000);

  it('RegistryContainer: `serve` against the stack ledger with the Redis container answers like the stack registry', async () => {
    const s = stack!;
    const t0 = performance.now();
    registry = await new RegistryContainer(TEST_IMAGE)
      .withNetwork(network!)
      .withConfig({
        adminParty: s.registryAdmin,
        ledger: { url: 'http://stack:7575' },
        instruments: [{ id: 'TT1', name: 'Test Token One', symbol: 'TT1', decimals: 10, recipe: 'splice-test-token-v1' }],
      })
      .withLedgerUrl('http://stack:7575')
      .withRedisUrl('redis://redis:6379/1')
      .start();
    timings['RegistryContainer: start() to /readyz'] = ms(performance.now() - t0);
    expect((await fetch(`${registry.url}/readyz`)).status).toBe(200);
    const info = (await (await fetch(`${registry.url}/registry/metadata/v1/info`)).json()) as { adminId: string };
    expect(info.adminId).toBe(s.registryAdmin);
    const instruments = (await (await fetch(`${registry.url}/registry/metadata/v1/instruments`)).json()) as { instruments: Array<{ id: string; totalSupply?: string }> };
    expect(instruments.instruments.map((i) => i.id)).toEqual(['TT1']);
    // the same factory as the stack's own registry (the admin's TokenRules)
    const body = JSON.stringify({
      choiceArguments: {
        expectedAdmin: s.registryAdmin,
        transfer: {
          sender: s.party('alice'),
          receiver: s.party('bob'),
          amount: '1',
          instrumentId: { admin: s.registryAdmin, id: 'TT1' },
          requestedAt: new Date(Date.now() - 60_000).toISOString(),
          executeBefore: new Date(Date.now() + 3_600_000).toISOString(),
          inputHoldingCids: [],
          meta: noMeta,
        },
        extraArgs: { context: { values: {} }, meta: noMeta },
      },
    });
    const ask = async (base: string) => {
      const r = await fetch(`${base}/registry/transfer-instruction/v1/transfer-factory`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return { status: r.status, body: (await r.json()) as { factoryId?: string } };
    };
    const [fromServe, fromStack] = [await ask(registry.url), await ask(s.registryUrl)];
    expect(fromServe.status, JSON.stringify(fromServe.body)).toBe(200);
    expect(fromServe.body.factoryId).toBe(fromStack.body.factoryId);
    // serve's cache is Redis database 1: connected, and a contract it looks up by id is stored there
    const clients = await eventually(async () => (await redis!.exec(['redis-cli', 'client', 'list'])).output.split('\n').filter((l) => / db=1 /.test(l)));
    expect(clients.length).toBeGreaterThan(0);
    const cid = await offerTt1(s, '3');
    const [fromServeCtx, fromStackCtx] = [await acceptContext(registry.url, cid), await acceptContext(s.registryUrl, cid)];
    expect(fromServeCtx.status, JSON.stringify(fromServeCtx.body)).toBe(200);
    expect(fromServeCtx.body).toEqual(fromStackCtx.body);
    const keys = await eventually(async () => (await redis!.exec(['redis-cli', '-n', '1', '--raw', 'keys', `*${cid}*`])).output.split('\n').filter((k) => k !== ''));
    expect(keys).toHaveLength(1);
  }, 120_000);

  it('admin API from outside: snapshot, mint and fund, restore gives back the holdings and the clock; the clock moves forward; bad input is a 400/404 {"error"}', async () => {
    const s = stack!;
    const before = await s.holdings('executor');
    const clock0 = await s.adminApi.clock();
    const id = await s.snapshot();

    const minted = await s.adminApi.mint({ instrument: 'TT1', owner: 'executor', amount: '5' });
    const funded = await s.fund({ owner: 'executor', instrument: 'TT2-EUR', atLeast: '250' });
    expect(Number(funded.balance)).toBeGreaterThanOrEqual(250);
    expect(funded.minted).not.toBeNull();
    const during = (await s.holdings('executor')).holdings.map((h) => h.contractId);
    expect(during).toEqual(expect.arrayContaining([minted.contractId, funded.minted!.contractId]));
    // funding again to a balance already reached mints nothing
    expect((await s.fund({ owner: 'executor', instrument: 'TT2-EUR', atLeast: '250' })).minted).toBeNull();

    const advanced = await s.advanceClock(3600);
    expect(Date.parse(advanced) - Date.parse(clock0.now)).toBeGreaterThanOrEqual(3_600_000);
    const skew = (await s.adminApi.clock()).skewSeconds;
    expect(skew).toBe(clock0.skewSeconds + 3600);

    // what a Java or Python suite sends: raw HTTP; each refusal is the API's {"error"} and changes nothing
    const post = async (path: string, body?: string) => {
      const r = await fetch(`${s.adminUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return { status: r.status, body: (await r.json()) as unknown };
    };
    for (const body of ['{"seconds": -5}', '{"seconds": "ten"}', 'not json']) {
      expect(await post('/admin/v1/clock/advance', body), body).toEqual({ status: 400, body: { error: expect.any(String) } });
    }
    expect(await post('/admin/v1/mint', JSON.stringify({ instrument: 'TT1', owner: 'executor', amount: '-1' }))).toEqual({ status: 400, body: { error: expect.any(String) } });
    expect(await post('/admin/v1/mint', JSON.stringify({ instrument: 'NOPE', owner: 'executor', amount: '1' }))).toEqual({ status: 404, body: { error: expect.stringContaining('unknown instrument') } });
    expect(await post('/admin/v1/snapshots/no-such-snapshot/restore')).toEqual({ status: 404, body: { error: expect.any(String) } });
    expect((await s.adminApi.clock()).skewSeconds).toBe(skew);
    expect((await s.holdings('executor')).holdings.map((h) => h.contractId).sort()).toEqual([...during].sort());

    await s.restore(id);
    expect(await s.holdings('executor')).toEqual(before);
    expect((await s.adminApi.clock()).skewSeconds).toBe(clock0.skewSeconds);
  });

  it('RegistryContainer rejects a bad configuration before starting anything', async () => {
    await expect(new RegistryContainer(TEST_IMAGE).withConfig({ adminParty: '', ledger: { url: 'not a url' }, instruments: [] }).start()).rejects.toThrow(/invalid configuration/);
  });
});

describe.skipIf(missing !== undefined && !IN_CI)('docker/ compose files', () => {
  let cmd: string[] | undefined;

  beforeAll(async () => {
    if (missing) throw new Error(`CI=true but ${missing}`);
    cmd = await composeCommand();
    if (!cmd) {
      const why = 'neither `docker compose` nor `docker-compose` is installed';
      if (IN_CI) throw new Error(`CI=true but ${why}`);
      console.warn(`[containers] compose SKIPPED: ${why}`);
    }
  }, 60_000);

  for (const file of ['docker/compose.emulate.yml', 'docker/compose.serve.yml'] as const) {
    it(`${file} comes up and answers on HTTP`, async (ctx) => {
      if (!cmd) return ctx.skip();
      const project = `trtest${process.pid}${file.includes('serve') ? 's' : 'e'}`;
      const ports = { LEDGER_PORT: await freePort(), REGISTRY_PORT: await freePort(), SCAN_PORT: await freePort(), VALIDATOR_PORT: await freePort() };
      const env = { TOKEN_REGISTRY_IMAGE: TEST_IMAGE, REDIS_IMAGE, ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])) };
      try {
        const t0 = performance.now();
        await compose(cmd, file, project, ['up', '-d', '--no-build'], env);
        const ready = await waitForHttp(`http://127.0.0.1:${file.includes('serve') ? ports.REGISTRY_PORT : ports.LEDGER_PORT}/readyz`, 90_000);
        timings[`${file}: up to /readyz`] = ms(performance.now() - t0);
        expect(ready).toBeGreaterThanOrEqual(0);
        const info = await fetch(`http://127.0.0.1:${ports.REGISTRY_PORT}/registry/metadata/v1/info`);
        expect(info.status).toBe(200);
        const admin = ((await info.json()) as { adminId: string }).adminId;
        expect(admin).toMatch(/^token-admin::1220[0-9a-f]{64}$/);
        const instruments = (await (await fetch(`http://127.0.0.1:${ports.REGISTRY_PORT}/registry/metadata/v1/instruments`)).json()) as { instruments: Array<{ id: string }> };
        expect(instruments.instruments.map((i) => i.id).sort()).toEqual(['TT1', 'TT2-EUR', 'TT2-USD']);
      } finally {
        await compose(cmd, file, project, ['down', '--volumes', '--timeout', '5'], env).catch((e: unknown) => console.warn(`compose down failed: ${String(e)}`));
      }
    }, 240_000);
  }
});
