/**
 * `token-registry/testcontainers`: the token-registry image (docker/Dockerfile) as testcontainers
 * modules, for test suites that want the emulated stack or the registry in a container rather than
 * in process (`startStack()`):
 *  - `EmulatedStackContainer`: `emulate` (ledger JSON API v2, the demo admin's registry, scan,
 *    validator, admin API); started, it gives their URLs, the seeded parties and instruments (read
 *    from what `emulate` prints when ready), `mint()`, which goes through the ledger's JSON API, and
 *    the admin API's snapshot / restore / reset / advanceClock / fund / holdings (`adminApi`);
 *  - `RegistryContainer`: `serve`, the registry of one instrument admin, with its configuration file
 *    copied in and LEDGER_URL / REDIS_URL from the environment.
 * `testcontainers` is an optional peer dependency: 11.14+ or 12.x (12.1 and later need Node 22.22+).
 * No image is published: build one with `docker build -f docker/Dockerfile -t token-registry .` and pass
 * its name (the default is `token-registry:latest`).
 */
import type { Readable } from 'node:stream';
import { AbstractStartedContainer, GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';
import { RegistryConfigSchema, type RegistryConfig } from '../config/registry.js';
import { noAuth, selfSignedHs256, type TokenProvider } from '../ledger-client/auth.js';
import { LOCALNET_LEDGER_AUTH, LOCALNET_PORTS, LOCALNET_VALIDATOR_USER, type ProfileName } from '../canton/localnet.js';
import { LedgerClient } from '../ledger-client/client.js';
import { z } from 'zod';
import { mint, type MintRequest } from './mint.js';
import { AdminClient, type AdminFunded, type AdminHoldings } from './admin-client.js';
import { EMULATE_READY_LINE, parseStartOutput, type SeededInstrument, type SeededParty, type StartOutput } from './start-output.js';

export type { MintRequest } from './mint.js';
export { AdminApiError, AdminClient, type AdminClock, type AdminFunded, type AdminHoldings, type AdminMinted } from './admin-client.js';
export { parseStartOutput, type SeededInstrument, type SeededParty, type StartOutput } from './start-output.js';

export const DEFAULT_IMAGE = 'token-registry:latest';
/** The ports `emulate` listens on inside the container (the CLI's defaults). */
export const EMULATED_STACK_PORTS = { ledger: 7575, registry: 7576, scan: 7577, validator: 7578, admin: 7580 } as const;

/** Where `emulate` listens in a container: the services' ports, and which of them keep their number on the host. */
export interface EmulatedStackLayout {
  /** PROFILE, when one is set. */
  profile?: ProfileName;
  ports: { ledger: number; participant2?: number; registry?: number; exampleRegistry?: number; scan: number; validator: number; admin: number };
  /** Published on the host under the same number (LocalNet's addresses); the others get a free host port. */
  fixedOnHost: number[];
}

/**
 * The container's layout for a profile. `localnet`: LocalNet's ports (src/config/profiles.ts),
 * published on the host under the same numbers, so clients configured for LocalNet (the wallet
 * SDK's `localNetStaticConfig`) reach the container unchanged; only the emulator's own admin API
 * gets a free host port. No demo registry: LocalNet's world has no test instruments.
 */
export function emulatedStackLayout(profile?: ProfileName): EmulatedStackLayout {
  if (profile === undefined) return { ports: { ...EMULATED_STACK_PORTS }, fixedOnHost: [] };
  const p = LOCALNET_PORTS;
  return {
    profile,
    ports: { ledger: p.appUserLedger, participant2: p.appProviderLedger, exampleRegistry: p.exampleRegistry, scan: p.scan, validator: p.appUserValidator, admin: EMULATED_STACK_PORTS.admin },
    fixedOnHost: [p.appUserLedger, p.appProviderLedger, p.appUserValidator, p.scan, p.exampleRegistry],
  };
}
/** The port `serve` listens on inside the container. */
export const REGISTRY_PORT = 7576;
const DEFAULT_STARTUP_TIMEOUT_MS = 60_000;
/** The part of `GET /registry/metadata/v1/info` read here (token-metadata-v1.yaml `GetRegistryInfoResponse`). */
const RegistryInfoSchema = z.object({ adminId: z.string().min(1) });

/** Collects a container's output (stdout and stderr) as text. */
class OutputBuffer {
  text = '';
  private changed = Date.now();
  attach(stream: Readable): void {
    stream.on('data', (chunk: Buffer | string) => {
      this.text += chunk.toString();
      this.changed = Date.now();
    });
  }
  /** Waits until `parse` gives a value and the output has been quiet for `quietMs` (the tables arrive line by line). */
  async settle<T>(parse: (text: string) => T | undefined, timeoutMs: number, quietMs = 150): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = parse(this.text);
      if (parsed !== undefined && Date.now() - this.changed >= quietMs) return parsed;
      if (Date.now() > deadline) throw new Error(`the emulator's start output did not arrive within ${timeoutMs} ms:\n${this.text}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

/** `emulate` in a container: every port mapped, ready when it prints its URLs and the ledger's /readyz answers. */
export class EmulatedStackContainer extends GenericContainer {
  private layout = emulatedStackLayout();

  constructor(image: string = DEFAULT_IMAGE) {
    super(image);
    this.withCommand(['emulate']).withEnvironment({ HOST: '0.0.0.0' }).withStartupTimeout(DEFAULT_STARTUP_TIMEOUT_MS);
  }

  /**
   * Starts `emulate` with a profile's defaults (PROFILE). `localnet`: LocalNet's topology at
   * LocalNet's addresses, its ports published on the host under the same numbers (2975, 3975,
   * 2000, 4000; a LocalNet running on this host makes the start fail).
   */
  withProfile(profile: ProfileName): this {
    this.layout = emulatedStackLayout(profile);
    return this.withEnvironment({ PROFILE: profile });
  }

  /** The registries' cache (REDIS_URL), as reachable from inside the container. */
  withRedisUrl(url: string): this {
    return this.withEnvironment({ REDIS_URL: url });
  }

  /** Seed of every generated id (EMULATOR_SEED): the same seed gives the same party ids. */
  withSeed(seed: string): this {
    return this.withEnvironment({ EMULATOR_SEED: seed });
  }

  override async start(): Promise<StartedEmulatedStackContainer> {
    // one buffer per start; the caller's own log consumer (if any) still gets the stream
    const output = new OutputBuffer();
    const theirs = this.logConsumer;
    this.logConsumer = (stream) => {
      output.attach(stream);
      theirs?.(stream);
    };
    // The ports and the readiness probe follow the layout (withProfile may have changed it).
    const { ports, fixedOnHost } = this.layout;
    const served = [ports.ledger, ports.participant2, ports.registry, ports.exampleRegistry, ports.scan, ports.validator, ports.admin].filter((p) => p !== undefined);
    this.withExposedPorts(...served.map((p) => (fixedOnHost.includes(p) ? { container: p, host: p } : p)));
    this.withWaitStrategy(Wait.forAll([Wait.forLogMessage(EMULATE_READY_LINE), Wait.forHttp('/readyz', ports.ledger).forStatusCode(200)]));
    let started: StartedTestContainer;
    try {
      started = await super.start();
    } finally {
      this.logConsumer = theirs;
    }
    try {
      const out = await output.settle(parseStartOutput, 10_000);
      // Under the localnet profile the ledger checks LocalNet's tokens: the client is LocalNet's ledger-api-user.
      const tokens = this.layout.profile === 'localnet' ? localNetToken(LOCALNET_VALIDATOR_USER) : noAuth;
      const c = new StartedEmulatedStackContainer(started, out, tokens, this.layout);
      // without instruments (DEMO_WORLD=false, or a world of none) there is no demo registry
      if (out.instruments.length > 0) await c.loadRegistryAdmin();
      return c;
    } catch (e) {
      await started.stop();
      throw e;
    }
  }
}

export class StartedEmulatedStackContainer extends AbstractStartedContainer {
  readonly ledgerUrl: string;
  /** The second participant's ledger (the localnet profile's app-provider), when there is one. */
  readonly participant2Url: string | undefined;
  /** The demo registry; empty under the localnet profile (no demo instruments). */
  readonly registryUrl: string;
  /** The example test-token registry (`withProfile('localnet')`: LocalNet's 5634), when served. */
  readonly exampleRegistryUrl: string | undefined;
  readonly scanUrl: string;
  readonly validatorUrl: string;
  /** The admin API (ADMIN_PORT): snapshots, restore, reset, clock, mint, fund, holdings. */
  readonly adminUrl: string;
  /** A client of the admin API; the methods below call it. */
  readonly adminApi: AdminClient;
  readonly participantId: string;
  /** From the emulator process's start to every service listening, by its own clock. */
  readonly readyInMs: number | undefined;
  /** The seeded parties: `party` is the full id, `hint` and `userId` the short name (`alice`). */
  readonly parties: SeededParty[];
  readonly instruments: SeededInstrument[];
  /** A JSON Ledger API client for the container's ledger (no auth: the stack's default). */
  readonly ledger: LedgerClient;
  private admin = '';
  private commands = 0;

  constructor(started: StartedTestContainer, out: StartOutput, tokenProvider: TokenProvider, layout: EmulatedStackLayout = emulatedStackLayout()) {
    super(started);
    const url = (port: number) => `http://${started.getHost()}:${started.getMappedPort(port)}`;
    const { ports } = layout;
    this.ledgerUrl = url(ports.ledger);
    this.participant2Url = ports.participant2 === undefined ? undefined : url(ports.participant2);
    this.registryUrl = ports.registry === undefined ? '' : url(ports.registry);
    this.exampleRegistryUrl = ports.exampleRegistry === undefined ? undefined : url(ports.exampleRegistry);
    this.scanUrl = url(ports.scan);
    this.validatorUrl = url(ports.validator);
    this.adminUrl = url(ports.admin);
    // The admin API checks the ledger's auth: under the localnet profile, LocalNet's ledger-api-user (a ParticipantAdmin).
    this.adminApi = new AdminClient(this.adminUrl, () => tokenProvider.token());
    this.participantId = out.participantId;
    this.readyInMs = out.readyInMs;
    this.parties = out.parties;
    this.instruments = out.instruments;
    this.ledger = new LedgerClient({ baseUrl: this.ledgerUrl, tokenProvider });
  }

  /** @internal reads the demo registry's admin from its info endpoint (`adminId`). */
  async loadRegistryAdmin(): Promise<void> {
    const r = await fetch(`${this.registryUrl}/registry/metadata/v1/info`);
    if (!r.ok) throw new Error(`registry info answered ${r.status}: ${await r.text()}`);
    this.admin = RegistryInfoSchema.parse(await r.json()).adminId;
  }

  /** The instrument admin party of the demo registry. */
  get registryAdmin(): string {
    if (!this.admin) throw new Error('this stack has no demo registry (its world has no instruments)');
    return this.admin;
  }

  /** The party id of a seeded party, by hint or user (`alice`); a full party id is returned as is. */
  party(hintOrUser: string): string {
    if (hintOrUser.includes('::')) return hintOrUser;
    const p = this.parties.find((x) => x.hint === hintOrUser || x.userId === hintOrUser);
    if (!p) throw new Error(`no seeded party "${hintOrUser}" (seeded: ${this.parties.map((x) => x.hint).join(', ')})`);
    return p.party;
  }

  /** Mints `amount` of an instrument of the demo registry to `owner`; returns the holding's contract id. */
  mint(req: MintRequest): Promise<string> {
    return mint(
      {
        ledger: this.ledger,
        admin: this.registryAdmin,
        tokenOf: (id) => this.instruments.find((i) => i.id === id)?.token,
        partyOf: (p) => this.party(p),
        commandId: () => `testcontainers-mint-${Date.now()}-${++this.commands}`,
      },
      req,
    );
  }

  /** Saves the whole world in the container (admin API); returns the snapshot's id. */
  snapshot(): Promise<string> {
    return this.adminApi.snapshot();
  }

  /** Puts the world back as it was at snapshot `id` (before every test, typically). */
  restore(id: string): Promise<void> {
    return this.adminApi.restore(id);
  }

  /** Puts the world back as the container started it (the seeded demo world). */
  reset(): Promise<void> {
    return this.adminApi.reset();
  }

  /** Moves ledger time forward by `seconds`; returns the new time (ISO). */
  async advanceClock(seconds: number): Promise<string> {
    return (await this.adminApi.advanceClock(seconds)).now;
  }

  /** Tops `owner` up to at least `atLeast` of an instrument (`TT1`, `TT2-USD`, ..., `Amulet`) through the admin API. */
  fund(req: { owner: string; instrument: string; atLeast: string }): Promise<AdminFunded> {
    return this.adminApi.fund(req);
  }

  /** A party's balances per instrument and the holdings behind them (admin API). */
  holdings(party: string): Promise<AdminHoldings> {
    return this.adminApi.holdings(party);
  }
}

/** LocalNet's self-signed tokens (HS256 `unsafe`, its audience) for `user`. */
function localNetToken(user: string): TokenProvider {
  return selfSignedHs256({ secret: LOCALNET_LEDGER_AUTH.hs256Secret, audience: LOCALNET_LEDGER_AUTH.targetAudience, userId: user });
}

/** The configuration `serve` reads (REGISTRY_CONFIG_FILE), as written in the file. */
export type RegistryContainerConfig = z.input<typeof RegistryConfigSchema>;

const CONFIG_PATH = '/etc/token-registry/registry.json';

/** `serve` in a container: the configuration copied in, ready when /readyz answers 200. */
export class RegistryContainer extends GenericContainer {
  private config?: RegistryContainerConfig;
  private ledgerUrl?: string;

  constructor(image: string = DEFAULT_IMAGE) {
    super(image);
    this.withCommand(['serve'])
      .withEnvironment({ HOST: '0.0.0.0', PORT: String(REGISTRY_PORT), REGISTRY_CONFIG_FILE: CONFIG_PATH })
      .withExposedPorts(REGISTRY_PORT)
      .withWaitStrategy(Wait.forHttp('/readyz', REGISTRY_PORT).forStatusCode(200))
      .withStartupTimeout(DEFAULT_STARTUP_TIMEOUT_MS);
  }

  /** The registry configuration (adminParty, instruments, ledger, ...); port and host are set by the container. */
  withConfig(config: RegistryContainerConfig): this {
    this.config = config;
    return this;
  }

  /** The participant's JSON API as reachable from inside the container (LEDGER_URL, overrides the file's). */
  withLedgerUrl(url: string): this {
    this.ledgerUrl = url;
    return this.withEnvironment({ LEDGER_URL: url });
  }

  /** The cache (REDIS_URL) as reachable from inside the container. */
  withRedisUrl(url: string): this {
    return this.withEnvironment({ REDIS_URL: url });
  }

  override async start(): Promise<StartedRegistryContainer> {
    if (!this.config) throw new Error('RegistryContainer: withConfig(...) is required');
    // Checked here with serve's own schema, so a bad configuration fails at once with its message
    // rather than as a start-up timeout.
    const effective = { ...this.config, ledger: { ...this.config.ledger, ...(this.ledgerUrl ? { url: this.ledgerUrl } : {}) } };
    const parsed = RegistryConfigSchema.safeParse(effective);
    if (!parsed.success) throw new Error(`RegistryContainer: invalid configuration: ${parsed.error.message}`);
    this.withCopyContentToContainer([{ content: JSON.stringify(this.config, null, 2), target: CONFIG_PATH, mode: 0o444 }]);
    return new StartedRegistryContainer(await super.start(), parsed.data);
  }
}

export class StartedRegistryContainer extends AbstractStartedContainer {
  /** Base URL of the registry (its `basePath` not included). */
  readonly url: string;
  constructor(
    started: StartedTestContainer,
    readonly config: RegistryConfig,
  ) {
    super(started);
    this.url = `http://${started.getHost()}:${started.getMappedPort(REGISTRY_PORT)}`;
  }
}
