#!/usr/bin/env node
/**
 * CLI entry: `token-registry emulate | serve | check-config | token | config`.
 *  - emulate: starts the emulated stack with the demo world and prints its URLs.
 *  - token:   mints an HS256 dev token (`token --sub alice --secret unsafe [--aud ...]`).
 *  - serve:   the registry for an instrument admin against its participant.
 *  - check-config: loads the registry configuration and reports what the registry will answer.
 *  - config:  prints the configuration schemas (JSON Schema, one per mode) or the effective config.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import pino, { type Logger } from 'pino';
import { CoalescingLogDestination } from './http/log-destination.js';
import { FdLogSink } from './http/fd-log-sink.js';
import { z } from 'zod';
import { ConfigError, loadEmulatorConfig } from './config/load.js';
import { EmulatorConfigSchema } from './config/schema.js';
import { RegistryConfigSchema } from './config/registry.js';
import { recipeJsonSchemaOverride } from './registry/recipes/declarative/schema/document.js';
import { startStack } from './stack.js';
import { DurableState } from './emulator/participant/durability/durable-state.js';
import { describeUpstream, loadUpstreamsConfig } from './config/upstreams.js';
import { loadRegistryConfig, startRegistry } from './serve.js';
import { checkRegistryConfig, formatCheckLine } from './check-config.js';
import { mintDevToken } from './emulator/ledger-api/auth.js';
import { redactRedisUrl } from './cache/redis-cache.js';
import { PortInUseError } from './http/listen.js';

const USAGE = `usage: token-registry <command>

commands:
  emulate [--reset] [--profile localnet]
                     start the emulated stack (ledger node + token registry) with the demo world;
                     with STATE_DIR the world is kept there across restarts (--reset starts it over);
                     --profile localnet (or PROFILE=localnet): Splice LocalNet's topology at its
                     addresses (ledger 2975/3975, validator 2000, scan 4000; docs/localnet.md)
  serve              run the registry for an instrument admin against its participant
                     (REGISTRY_CONFIG_FILE=registry.json; LEDGER_URL, LEDGER_TOKEN, REDIS_URL, PORT,
                     RATE_LIMIT_RPS, RATE_LIMIT_BURST, MAX_BODY_BYTES, MAX_CONNECTIONS,
                     MAX_CONNECTIONS_PER_ADDRESS override it)
  check-config [FILE] (also: serve --check [FILE])
                     load the registry configuration (FILE or REGISTRY_CONFIG_FILE), connect to the
                     ledger and report, per instrument, endpoint and version, whether the registry
                     will answer (docs/recipes.md); exit 0 when all is well, 1 otherwise
  token              mint an HS256 dev JWT: --sub USER [--secret S] [--aud A] [--scope S] [--ttl SECONDS]
  config schema [serve|emulate]
                     print the configuration's JSON Schema of both modes (or of one)
  config show [serve|emulate]
                     print the effective configuration (emulate by default; secrets redacted)

environment (emulate): PORT (7575), REGISTRY_PORT (7576), SCAN_PORT (7577), VALIDATOR_PORT (7578), ADMIN_PORT (7580), HOST (127.0.0.1),
  PROFILE (localnet: its defaults under every setting given), PARTICIPANT_NAME (participant1), PARTICIPANT_ID,
  SYNCHRONIZER_ID (pinned ids, <identifier>::1220<64 hex>), PARTICIPANTS (1; 2 adds PARTICIPANT2_NAME, participant2,
  on PARTICIPANT2_PORT, 7579), PARTICIPANT2_ID, STATE_DIR, STATE_SNAPSHOT_EVERY (10000),
  EXAMPLE_REGISTRY_PORT (unset: off; LocalNet's is 5634: the wallet repository's example test-token registry),
  STATE_PROBE_EVERY_MS (1000),
  SCAN_UPSTREAM / VALIDATOR_UPSTREAM (emulate | proxy:<url>), REDIS_URL, LEDGER_AUTH (none|jwt),
  LEDGER_AUTH_HS256_SECRET, LEDGER_AUTH_JWKS_URL, LEDGER_AUTH_PUBLIC_KEY_FILE,
  LEDGER_AUTH_TARGET_AUDIENCE, LEDGER_AUTH_TARGET_SCOPE, EMULATOR_SEED, DEMO_WORLD, LOG_LEVEL,
  NETWORK_NAME, NETWORK_FAVICON_URL, AMULET_NAME, AMULET_NAME_ACRONYM, NAME_SERVICE_NAME,
  NAME_SERVICE_NAME_ACRONYM (Canton Network, its favicon, Canton Coin, CC, Canton Name Service, CNS:
  the network's instance names)

environment (both): CORS_ORIGINS (browser origins allowed to call the registry, comma-separated, or *),
  SHUTDOWN_DRAIN_MS (10000: longest wait for requests in flight on SIGTERM/SIGINT; the process is gone
  at most 2 s after it, whatever its stdout does), LOG_LEVEL (info: one access-log line per request;
  warn: only failures)`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'emulate':
      return emulate(rest);
    case 'serve':
      return rest[0] === '--check' ? checkConfig(rest.slice(1)) : serveRegistry();
    case 'check-config':
      return checkConfig(rest);
    case 'token':
      return token(rest);
    case 'config':
      return config(rest);
    case undefined:
    case '-h':
    case '--help':
    case 'help':
      console.log(USAGE);
      return command === undefined ? 2 : 0;
    default:
      console.error(`unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

async function emulate(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { reset: { type: 'boolean', default: false }, profile: { type: 'string' } } });
  const config = loadEmulatorConfig(values.profile === undefined ? process.env : { ...process.env, PROFILE: values.profile });
  if (values.reset) {
    if (!config.stateDir) throw new ConfigError('emulate --reset starts STATE_DIR over: set STATE_DIR (without it, the world is in memory only and starts over anyway)');
    DurableState.reset(config.stateDir);
  }
  const upstreams = loadUpstreamsConfig();
  if (upstreams.ledger.mode === 'proxy') {
    throw new ConfigError('LEDGER_UPSTREAM=proxy is for `serve`: `emulate` runs its own ledger node (set LEDGER_URL for serve)');
  }
  const log = processLog(config.logLevel);
  const stack = await startStack({ config, logger: log.logger, redisUrl: config.redisUrl, upstreams: { scan: upstreams.scan, validator: upstreams.validator } });
  const rows = [
    ['service', 'url'],
    ['ledger JSON API v2', stack.ledgerUrl],
    ['ledger readiness', `${stack.ledgerUrl}/readyz`],
    ...stack.participants.slice(1).map((p) => [`ledger JSON API v2 (${p.engine.participantName})`, p.ledgerUrl]),
  ];
  if (stack.registryUrl) {
    rows.push(['token-standard registry', stack.registryUrl], ['registry info', `${stack.registryUrl}/registry/metadata/v1/info`]);
  }
  if (stack.scanUrl) {
    const how = upstreams.scan.mode === 'proxy' ? ` (${describeUpstream(upstreams.scan)})` : '';
    rows.push([`scan${how}`, `${stack.scanUrl}/api/scan`]);
    if (stack.amuletRegistry) rows.push(['Amulet registry (admin: DSO)', stack.scanUrl]);
  }
  if (stack.exampleRegistry) {
    rows.push(['example test-token registry', stack.exampleRegistry.url], ['  offer-mint', `POST ${stack.exampleRegistry.url}/admin/v2/offer-mint`]);
  }
  if (stack.validatorUrl) {
    const how = upstreams.validator.mode === 'proxy' ? ` (${describeUpstream(upstreams.validator)})` : '';
    rows.push([`validator${how}`, `${stack.validatorUrl}/api/validator`]);
    if (upstreams.validator.mode === 'emulate') rows.push(['scan-proxy registry', `${stack.validatorUrl}/api/validator/v0/scan-proxy`]);
  }
  rows.push(['admin API (snapshots, clock, mint)', `${stack.adminUrl}/admin/v1`], ['admin API document', `${stack.adminUrl}/admin/openapi.json`]);
  if (stack.exampleRegistry) rows.push(['example registry admin (operator)', stack.exampleRegistry.admin]);
  const ids = stack.participants.map((p) => p.participantId).join(', ');
  // The process's own clock from its start (Node's, before any module loaded) to every port
  // listening: what a deployment's start-up costs, without the container runtime's share.
  const readyInMs = Math.round(process.uptime() * 1000);
  // The profile last: the testcontainers module reads auth and the first participant id from this line.
  const profile = config.profile ? `, profile: ${config.profile}` : '';
  const lines = [`token-registry emulator ready in ${readyInMs} ms (auth: ${config.auth.mode}, participant${stack.participants.length > 1 ? 's' : ''}: ${ids}${profile})`, '', table(rows)];
  if (stack.seeded) {
    lines.push('', table([['party', 'user', 'role'], ...stack.seeded.parties.map((p) => [p.party, p.userId, p.role])]));
    if (stack.seeded.instruments.length > 0) {
      lines.push(
        '',
        table([
          ['instrument', 'token', 'symbol', 'holdings'],
          ...stack.seeded.instruments.map((i) => [i.id, i.token, i.symbol, i.holdings.map((h) => `${h.owner} ${h.amount}`).join(', ')]),
        ]),
      );
    }
  }
  const opened = stack.durable?.opened;
  lines.push(
    '',
    config.stateDir
      ? `state: ${config.stateDir} (${opened?.restored ? `restored; ${opened.replayed} journaled changes replayed${opened.droppedBytes > 0 ? `, a torn last record of ${opened.droppedBytes} bytes dropped` : ''}` : 'new'})`
      : 'state: in memory only (set STATE_DIR to keep the world across restarts)',
  );
  // The signal handlers go in before the ready line: a supervisor that sends SIGTERM as soon as it
  // reads that line must get the graceful shutdown, not the default kill.
  const stopped = untilSignal(() => stack.close(), config.shutdownDrainMs, log.flushWithin);
  process.stdout.write(`${lines.join('\n')}\n`);
  return stopped;
}

async function serveRegistry(): Promise<number> {
  const config = loadRegistryConfig();
  const upstreams = loadUpstreamsConfig();
  for (const api of ['ledger', 'scan', 'validator'] as const) {
    if (upstreams[api].mode === 'emulate' && process.env[`${api.toUpperCase()}_UPSTREAM`]) {
      throw new ConfigError(`${api.toUpperCase()}_UPSTREAM=emulate is for \`emulate\`; serve only proxies (proxy:<url>)`);
    }
  }
  // Rejected credentials are a configuration error: exit with a clear message rather than stay
  // up, live but never ready (an orchestrator restarts or reports the process).
  const log = processLog(config.logLevel);
  const running = await startRegistry(config, {
    upstreams,
    logger: log.logger,
    onFatal: (err) => {
      printConfigError(err);
      process.exit(1);
    },
  }).catch((err: unknown) => {
    if (err instanceof ConfigError) printConfigError(err);
    else console.error(err);
    process.exit(1);
  });
  const stopped = untilSignal(() => running.close(), config.shutdownDrainMs, log.flushWithin);
  process.stdout.write(
    `token-registry serving the registry of ${config.adminParty}\n${table([
      ['service', 'url'],
      ['token-standard registry', `${running.url}${config.basePath}`],
      ['ledger node', config.ledger.url],
      ['cache', config.redisUrl ? 'redis' : 'memory'],
      ...(['ledger', 'scan', 'validator'] as const)
        .filter((api) => upstreams[api].mode === 'proxy')
        .map((api) => [`${api} (${describeUpstream(upstreams[api])})`, api === 'ledger' ? `${running.url}/v2` : `${running.url}/api/${api}`]),
    ])}\n`,
  );
  return stopped;
}

interface ProcessLog {
  logger: Logger;
  /** Resolves once the lines logged so far are written, or after `ms` (a stalled reader). */
  flushWithin(ms: number): Promise<void>;
}

/** `check-config [FILE]`: one line per check on stdout; configuration errors as `serve` reports them. */
async function checkConfig(args: string[]): Promise<number> {
  const env = args[0] !== undefined ? { ...process.env, REGISTRY_CONFIG_FILE: args[0] } : process.env;
  const config = loadRegistryConfig(env);
  const result = await checkRegistryConfig(config);
  for (const line of result.lines) process.stdout.write(`${formatCheckLine(line)}\n`);
  const errors = result.lines.filter((l) => l.status === 'error').length;
  process.stdout.write(errors === 0 ? `configuration ok: ${config.instruments.length} instrument(s) checked against ${config.ledger.url}\n` : `${errors} problem(s)\n`);
  return errors === 0 ? 0 : 1;
}

/**
 * The process's logger: JSON lines on stdout, written asynchronously so that a busy server does
 * not make one write system call per access-log line: lines are handed over in batches
 * (CoalescingLogDestination: under load at most one hand-over per 10 ms) to a sink that keeps at
 * most a few MiB for a slow reader and drops beyond that (FdLogSink). On exit, what is pending is
 * written if stdout takes it at once; otherwise it is dropped, and the count of dropped lines goes
 * to stderr, so that no state of stdout (full pipe, reader gone, terminal closed) can keep the
 * process from exiting.
 */
function processLog(level: string): ProcessLog {
  // Node makes a pipe or socket on stdout/stderr non-blocking when it creates process.stdout /
  // process.stderr. Create them now, so that the exit flush below gets EAGAIN from a full pipe
  // instead of waiting in write(2) for a reader that may never read again.
  void process.stdout.fd;
  void process.stderr.fd;
  const sink = new FdLogSink(1);
  const out = new CoalescingLogDestination(sink);
  process.on('exit', () => {
    out.flushSync();
    const dropped = sink.droppedLines();
    if (dropped === 0) return;
    const why = sink.failure()?.code ?? 'its reader did not keep up';
    try {
      fs.writeSync(2, `log: ${dropped} line${dropped === 1 ? '' : 's'} could not be written to stdout (${why}) and ${dropped === 1 ? 'was' : 'were'} dropped\n`);
    } catch {
      // stderr is not writable either: nothing more can be said
    }
  });
  return {
    logger: pino({ level }, out),
    flushWithin: (ms) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        out.flush(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}

/** After SIGTERM/SIGINT the process is gone at most this long after the drain time, whatever happens. */
const EXIT_GRACE_MS = 2000;

/**
 * Graceful shutdown on SIGTERM (orchestrators) or SIGINT (Ctrl-C): `close` stops accepting, drains
 * the requests in flight for at most `drainMs`, then closes Redis, the ledger tails and the
 * websockets; the log is flushed (briefly: a reader that does not read is not waited for) and the
 * exit code is 0. A second signal exits at once with 1; so does a shutdown still running
 * `drainMs` + 1.5 s after the signal (an unref'd timer: the main thread never blocks on output,
 * see processLog), which keeps the exit within `drainMs` + EXIT_GRACE_MS.
 */
function untilSignal(close: () => Promise<void>, drainMs: number, flushLog: (ms: number) => Promise<void>): Promise<number> {
  return new Promise<number>(() => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        console.error(`${signal} again: exiting without waiting for the drain`);
        process.exit(1);
      }
      stopping = true;
      console.error(`${signal}: draining requests in flight (up to ${drainMs} ms), then closing`);
      const started = Date.now();
      const deadline = started + drainMs + EXIT_GRACE_MS - 500;
      setTimeout(() => {
        console.error('shutdown took too long: exiting');
        process.exit(1);
      }, deadline - started).unref();
      // Exit explicitly: a library's timer or socket left behind must not keep the process up.
      close().then(
        async () => {
          console.error(`closed in ${Date.now() - started} ms`);
          await flushLog(Math.max(0, Math.min(1000, deadline - Date.now() - 100)));
          process.exit(0);
        },
        (err: unknown) => {
          console.error('shutdown failed:', err);
          process.exit(1);
        },
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

async function token(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      sub: { type: 'string' },
      secret: { type: 'string', default: 'unsafe' },
      aud: { type: 'string' },
      scope: { type: 'string' },
      ttl: { type: 'string', default: '3600' },
    },
  });
  if (!values.sub) {
    console.error('token: --sub USER is required');
    return 2;
  }
  const ttl = Number(values.ttl);
  if (!Number.isInteger(ttl) || ttl <= 0) {
    console.error('token: --ttl must be a positive whole number of seconds');
    return 2;
  }
  const jwt = await mintDevToken({
    secret: values.secret!,
    sub: values.sub,
    audience: values.aud,
    scope: values.scope,
    expiresInSeconds: ttl,
    nowSeconds: Math.floor(Date.now() / 1000),
  });
  console.log(jwt);
  return 0;
}

function config(args: string[]): number {
  const mode = args[1];
  if (mode !== undefined && mode !== 'serve' && mode !== 'emulate') {
    console.error('usage: token-registry config schema|show [serve|emulate]');
    return 2;
  }
  if (args[0] === 'schema') {
    // One schema per mode: `serve` reads REGISTRY_CONFIG_FILE (+ env overrides), `emulate` the environment.
    const schemas = {
      serve: z.toJSONSchema(RegistryConfigSchema, { io: 'input', override: recipeJsonSchemaOverride }),
      emulate: z.toJSONSchema(EmulatorConfigSchema, { io: 'input' }),
    };
    console.log(JSON.stringify(mode ? schemas[mode] : schemas, null, 2));
    return 0;
  }
  if (args[0] === 'show') {
    const c = mode === 'serve' ? loadRegistryConfig() : loadEmulatorConfig();
    console.log(JSON.stringify(c, redactSecrets, 2));
    return 0;
  }
  console.error('usage: token-registry config schema|show [serve|emulate]');
  return 2;
}

/** JSON.stringify replacer that keeps secrets (shared secrets, passwords in URLs) out of the output. */
function redactSecrets(key: string, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (/secret|password|token/i.test(key)) return '<redacted>';
  if (/^rediss?(\+(sentinel|cluster))?:\/\//.test(value)) return redactRedisUrl(value);
  return value;
}

/** One `configuration error: <path>: <what>` line per problem, no stack trace. */
function printConfigError(err: ConfigError): void {
  for (const p of err.problems) console.error(`configuration error: ${p}`);
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof ConfigError) printConfigError(err);
    else if (err instanceof PortInUseError) console.error(err.message);
    else console.error(err);
    process.exitCode = 1;
  },
);
