/**
 * Every command in the docs is run by a test: this one. It reads the fenced blocks of README.md and
 * docs/*.md and handles every command of every ```sh block, and the configuration examples marked
 * ```json world, ```json registry and ```jsonc limits:
 *
 *  - `npm start` (with its variables and `-- args`), `node dist/main.js ...`, `token-registry ...`:
 *    `src/main.ts` is bundled once with esbuild (the compiler tsx runs on; dist/ may be stale or
 *    absent in a work tree), and the commands run it with their arguments and variables, on free
 *    ports; a server is waited for until it says it is ready and answers /readyz, then stopped
 *    with SIGTERM and must exit 0.
 *    `STATE_DIR=./state` gets a temporary directory; `serve`'s `registry.json` is a configuration
 *    for a stack this test starts, and `redis://cache:6379` a Redis it starts.
 *  - blocks of `curl` calls: run by bash against a stack started here (`localhost:7580` is its
 *    admin port), each call with `--fail-with-body`, so an HTTP error fails the test.
 *  - `npm run <script>`: the script must exist; `*:check` scripts are run.
 *  - ```ts run blocks: imported as a module, `token-registry` being this package's src/index.ts.
 *  - ALLOWED: what needs a system this test cannot have, each with the reason and where it is
 *    tested instead.
 * A command no handler takes fails the test, so a command added to the docs is either run or
 * listed here with a reason.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type RunningStack } from '../../../src/stack.js';
import { DemoWorldSchema } from '../../../src/emulator/world/seed.js';
import { parseRegistryConfig } from '../../../src/serve.js';
import { RegistryLimitsSchema } from '../../../src/http/limits.js';
import { freePort, startMain, until } from '../../support/processes.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const run = promisify(execFile);

interface Block {
  file: string;
  lang: string;
  tag: string;
  text: string;
}

function docFiles(): string[] {
  return ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
}

/** The fenced blocks of a markdown file, with their language and tag (```json world: json, world). */
export function fencedBlocks(file: string, markdown: string): Block[] {
  const blocks: Block[] = [];
  const re = /^( *)```([\w-]*)(?: +([\w-]+))?\n([\s\S]*?)^\1```$/gm;
  for (const m of markdown.matchAll(re)) {
    const indent = m[1]!.length;
    const text = m[4]!.split('\n').map((l) => l.slice(indent)).join('\n');
    blocks.push({ file, lang: m[2] ?? '', tag: m[3] ?? '', text });
  }
  return blocks;
}

/** The commands of a shell block: continuation lines joined, comments and blank lines dropped. */
export function commandsOf(text: string): string[] {
  return text
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((l) => l.replace(/\s{2,}#.*$/, '').trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/** Commands that need a system this test cannot have, and where they are tested instead. */
const ALLOWED: Array<{ command: RegExp; reason: string }> = [
  { command: /^npm install$/, reason: 'installs from the npm registry into node_modules; CI runs it on every build' },
  { command: /^npm test$/, reason: 'the whole suite, of which this test is a part' },
  {
    command: /^docker (compose -f docker\/compose\.(emulate|serve)\.yml up --build|build -f docker\/Dockerfile -t token-registry \.|run .* token-registry( serve)?)$/,
    reason: 'needs a container runtime: test/containers/stack.test.ts builds this image, runs it as emulate and serve, and brings both compose files up',
  },
];

const READY = /token-registry emulator ready in \d+ ms/;
const SERVING = /token-registry serving the registry of /;

interface Env {
  [name: string]: string;
}

/** `A=1 B=2 rest` -> ({A: 1, B: 2}, rest). */
function splitEnv(command: string): { env: Env; rest: string } {
  const env: Env = {};
  let rest = command;
  for (;;) {
    const m = /^([A-Z][A-Z0-9_]*)=(\S*)\s+/.exec(rest);
    if (!m) return { env, rest };
    env[m[1]!] = m[2]!;
    rest = rest.slice(m[0].length);
  }
}

describe('the commands in README.md and docs/*.md', () => {
  let stack: RunningStack;
  let redis: RedisServer;
  let scratch: string;
  let registryConfigFile: string;
  let entry: string[];
  const ran: string[] = [];

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'docs-commands-'));
    // The bundle keeps the packages as imports, found through a node_modules link beside it.
    symlinkSync(join(ROOT, 'node_modules'), join(scratch, 'node_modules'), 'dir');
    // ...and the explorer's own files, which it reads from `public/` beside its module (as `npm run build` copies them).
    symlinkSync(join(ROOT, 'src/emulator/explorer/public'), join(scratch, 'public'), 'dir');
    const bundle = join(scratch, 'main.mjs');
    await build({ entryPoints: [join(ROOT, 'src/main.ts')], bundle: true, platform: 'node', format: 'esm', packages: 'external', outfile: bundle, logLevel: 'warning' });
    entry = [bundle];
    [stack, redis] = await Promise.all([
      startStack({ config: { port: 0, adminPort: 0, logLevel: 'silent' }, registryPort: 0, scanPort: 0, validatorPort: 0 }),
      startRedisServer(),
    ]);
    const admin = stack.seeded!.instruments[0]!.adminParty;
    registryConfigFile = join(scratch, 'registry.json');
    writeFileSync(
      registryConfigFile,
      JSON.stringify({
        adminParty: admin,
        ledger: { url: stack.ledgerUrl },
        instruments: [{ id: 'TT2-USD', name: 'Test Token Two (USD)', symbol: 'TUSD', decimals: 2, recipe: 'splice-test-token-v2' }],
      }),
    );
  });

  afterAll(async () => {
    await Promise.all([stack?.close(), redis?.stop('SIGTERM')]);
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  /** Ports of their own for a process of the emulated stack. */
  async function stackPorts(): Promise<Env> {
    // EXAMPLE_REGISTRY_PORT too: the localnet profile would otherwise bind LocalNet's 5634.
    const names = ['PORT', 'REGISTRY_PORT', 'SCAN_PORT', 'VALIDATOR_PORT', 'ADMIN_PORT', 'PARTICIPANT2_PORT', 'EXAMPLE_REGISTRY_PORT'];
    const ports = await Promise.all(names.map(() => freePort()));
    return Object.fromEntries(names.map((n, i) => [n, String(ports[i])]));
  }

  /**
   * Runs `src/main.ts args` as a server until `ready` is printed and `readyz` answers 200, then
   * SIGTERM: must exit 0. (Waiting for the answer, not only the line, also keeps the signal out of
   * the moment between the line and the installation of the signal handlers.)
   */
  async function runServer(args: string[], env: Env, ready: RegExp, readyz: string): Promise<string> {
    const p = startMain(args, { LOG_LEVEL: 'warn', ...env }, { entry });
    try {
      await p.waitFor(ready, 40_000);
      await until(async () => (await fetch(readyz)).status === 200, 20_000, readyz);
    } catch (e) {
      await p.kill();
      throw e;
    }
    p.child.kill('SIGTERM');
    expect(await p.exited(20_000), p.output()).toBe(0);
    return p.output();
  }

  /** Runs `src/main.ts args` to its end: must exit 0. */
  async function runOnce(args: string[], env: Env = {}): Promise<string> {
    const p = startMain(args, env, { entry });
    const code = await p.exited(40_000);
    expect(code, `${args.join(' ')}:\n${p.output()}`).toBe(0);
    return p.output();
  }

  /** One command of a sh block; `stateDir` is the block's own temporary STATE_DIR. */
  async function runCommand(command: string, stateDir: string): Promise<void> {
    if (command.includes(' && ')) {
      for (const part of command.split(' && ')) await runCommand(part, stateDir);
      return;
    }
    const allowed = ALLOWED.find((a) => a.command.test(command));
    if (allowed) {
      ran.push(`allowed: ${command} (${allowed.reason})`);
      return;
    }
    const { env, rest } = splitEnv(command);
    if (env.STATE_DIR !== undefined) env.STATE_DIR = stateDir;
    const npmStart = /^npm start(?: -- (.*))?$/.exec(rest);
    if (npmStart) {
      const args = npmStart[1] ? npmStart[1].split(/\s+/) : [];
      const ports = await stackPorts();
      const out = await runServer(['emulate', ...args], { ...env, ...ports }, READY, `http://127.0.0.1:${ports.PORT}/readyz`);
      if (env.PARTICIPANTS === '2') expect(out).toContain('participant2');
      if (env.PROFILE === 'localnet') expect(out).toMatch(/app_user_localnet-localparty-1::1220/);
      if (env.DEMO_WORLD === 'false') expect(out).not.toContain('TT2-USD');
      if (env.STATE_DIR !== undefined) expect(out).toContain(`state: ${stateDir}`);
      ran.push(command);
      return;
    }
    const npmRun = /^npm run ([\w:-]+)(?: -- (\S+))?$/.exec(rest);
    if (npmRun) {
      const pkg: unknown = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
      const scripts = typeof pkg === 'object' && pkg !== null && 'scripts' in pkg && typeof pkg.scripts === 'object' && pkg.scripts !== null ? pkg.scripts : {};
      expect(Object.keys(scripts), command).toContain(npmRun[1]);
      if (npmRun[1]!.endsWith(':check')) await run('npm', ['run', '--silent', npmRun[1]!], { cwd: ROOT, timeout: 40_000 });
      ran.push(command);
      return;
    }
    const cli = /^(?:node dist\/main\.js|token-registry) (.*)$/.exec(rest);
    if (cli) {
      const args = cli[1]!.split(/\s+/);
      if (args[0] === 'serve') {
        expect(env.REGISTRY_CONFIG_FILE).toBe('registry.json');
        const port = String(await freePort());
        const serveEnv: Env = { ...env, REGISTRY_CONFIG_FILE: registryConfigFile, PORT: port, HOST: '127.0.0.1' };
        if (env.REDIS_URL === 'redis://cache:6379') serveEnv.REDIS_URL = redis.url;
        const out = await runServer(args, serveEnv, SERVING, `http://127.0.0.1:${port}/readyz`);
        if (env.REDIS_URL !== undefined) expect(out).toMatch(/cache\s+redis/);
      } else if (args[0] === 'check-config') {
        // the file as an argument, or in REGISTRY_CONFIG_FILE
        if (args[1] === undefined) expect(env.REGISTRY_CONFIG_FILE).toBe('registry.json');
        else expect(args[1]).toBe('registry.json');
        const out = await runOnce(args[1] === undefined ? ['check-config'] : ['check-config', registryConfigFile], { ...env, ...(args[1] === undefined ? { REGISTRY_CONFIG_FILE: registryConfigFile } : {}) });
        expect(out).toContain('configuration ok: 1 instrument(s) checked');
      } else if (args[0] === 'token') {
        const out = (await runOnce(args, env)).trim();
        const [, payload] = out.split('.');
        const claims: unknown = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8'));
        expect(claims).toMatchObject({ sub: args[args.indexOf('--sub') + 1] });
        if (args.includes('--aud')) expect(claims).toMatchObject({ aud: args[args.indexOf('--aud') + 1] });
      } else if (args[0] === 'config') {
        const out = await runOnce(args, env);
        expect(() => JSON.parse(out), out).not.toThrow();
      } else {
        throw new Error(`no handler for the CLI command "${command}"`);
      }
      ran.push(command);
      return;
    }
    throw new Error(`"${command}" is neither run by this test nor in its ALLOWED list (with a reason)`);
  }

  /** A block of curl calls, run by bash against this test's stack. */
  async function runCurlBlock(text: string): Promise<void> {
    const admin = new URL(stack.adminUrl);
    const script = text.replace(/\b(?:localhost|127\.0\.0\.1):7580\b/g, `127.0.0.1:${admin.port}`).replace(/\bcurl -s\b/g, 'curl -sS --fail-with-body');
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { cwd: scratch, timeout: 20_000 });
    // Each call succeeded (--fail-with-body); what they print is the admin API's JSON, which names parties.
    expect(stdout).toMatch(/"(party|actAs)"/);
  }

  it('runs or checks every command of every sh block (allowed ones named with a reason)', async () => {
    const blocks = docFiles().flatMap((f) => fencedBlocks(f, readFileSync(join(ROOT, f), 'utf8')));
    const sh = blocks.filter((b) => b.lang === 'sh');
    const once = new Map<string, Promise<void>>();
    expect(sh.length).toBeGreaterThan(8);
    // Blocks run in parallel, two at a time (2 cores); the commands of a block in order.
    const queue = sh.map((b, i) => async () => {
      const commands = commandsOf(b.text);
      if (commands.every((c) => /^(curl |[A-Z]+=\$\(curl )/.test(c))) {
        await runCurlBlock(b.text);
        ran.push(...commands);
        return;
      }
      const stateDir = join(scratch, `state-${i}`);
      for (const c of commands) {
        // the same command in two places is run once (a STATE_DIR command depends on its block)
        if (c.includes('STATE_DIR=')) await runCommand(c, stateDir);
        else await (once.get(c) ?? once.set(c, runCommand(c, stateDir)).get(c));
      }
    });
    const workers = [0, 1].map(async () => {
      for (let job = queue.shift(); job; job = queue.shift()) await job();
    });
    await Promise.all(workers);
    expect(ran.filter((r) => !r.startsWith('allowed:')).length).toBeGreaterThan(15);
  }, 120_000);

  it('runs the TypeScript examples marked to run', async () => {
    const blocks = docFiles()
      .flatMap((f) => fencedBlocks(f, readFileSync(join(ROOT, f), 'utf8')))
      .filter((b) => b.lang === 'ts' && b.tag === 'run');
    expect(blocks.length).toBeGreaterThan(0);
    for (const [i, b] of blocks.entries()) {
      const file = join(scratch, `example-${i}.ts`);
      writeFileSync(file, b.text.replaceAll("from 'token-registry'", `from ${JSON.stringify(join(ROOT, 'src/index.ts'))}`));
      await import(file);
    }
  });

  it('checks the configuration examples against their schemas', () => {
    const blocks = docFiles().flatMap((f) => fencedBlocks(f, readFileSync(join(ROOT, f), 'utf8')));
    const world = blocks.filter((b) => b.tag === 'world');
    const registry = blocks.filter((b) => b.tag === 'registry');
    const limits = blocks.filter((b) => b.tag === 'limits');
    expect([world.length, registry.length, limits.length]).toEqual([1, 1, 1]);
    expect(DemoWorldSchema.safeParse(JSON.parse(world[0]!.text)).error).toBeUndefined();
    expect(() => parseRegistryConfig(JSON.parse(registry[0]!.text))).not.toThrow();
    // the limits shown are the defaults (maxConnectionsPerAddress: a quarter of maxConnections)
    const shown: unknown = JSON.parse(`{${limits[0]!.text.replace(/\/\/.*$/gm, '')}}`);
    const defaults = RegistryLimitsSchema.parse({});
    expect(shown).toEqual({ limits: { ...defaults, maxConnectionsPerAddress: defaults.maxConnections / 4 } });
  });

  it('finds the commands of a block as a shell reads them', () => {
    expect(commandsOf("# c\ncurl -s -XPOST a \\\n  -d '{}'\nX=1 npm start     # ports\n")).toEqual(["curl -s -XPOST a -d '{}'", 'X=1 npm start']);
    expect(fencedBlocks('x.md', '```sh\na\n```\n  ```json world\n  {}\n  ```\n')).toEqual([
      { file: 'x.md', lang: 'sh', tag: '', text: 'a\n' },
      { file: 'x.md', lang: 'json', tag: 'world', text: '{}\n' },
    ]);
  });
});
