/**
 * Highly available Redis for tests, from real `redis-server` processes on free 127.0.0.1 ports
 * (no persistence, files in a temporary directory):
 * - a Sentinel group: one master, `replicas` replicas, `sentinels` sentinels (`redis-server
 *   <conf> --sentinel`) with a 1 s down-after time, so a killed master is replaced in seconds;
 * - a Cluster: `masters` masters with `replicasPerMaster` replicas each, built with
 *   `redis-cli --cluster create`, node timeout 1 s, replicas synced before it is handed out.
 * `killMaster()` SIGKILLs the current master (of the group, or of the slot of a key). `stop()`
 * kills every process; all are killed when the test process exits, whatever happens.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { freePort, until } from './processes.js';

const HOST = '127.0.0.1';
const all = new Set<ChildProcess>();
let hook = false;

function installHook(): void {
  if (hook) return;
  hook = true;
  process.once('exit', () => {
    for (const c of all) c.kill('SIGKILL');
  });
}

interface Proc {
  port: number;
  child: ChildProcess;
}

/** One command on a short-lived connection (never retried, never queued). */
async function command(port: number, ...args: string[]): Promise<unknown> {
  const r = new Redis({ host: HOST, port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500, commandTimeout: 1000 });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return await r.call(args[0]!, ...args.slice(1));
  } finally {
    r.disconnect();
  }
}

async function launch(args: string[], port: number): Promise<Proc> {
  installHook();
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4000)));
  child.stderr!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4000)));
  all.add(child);
  child.once('exit', () => all.delete(child));
  try {
    await until(async () => {
      if (child.exitCode !== null) throw new Error(`redis-server ${args.join(' ')} exited:\n${out}`);
      return (await command(port, 'PING')) === 'PONG';
    }, 10_000, `redis-server on port ${port}`);
  } catch (e) {
    child.kill('SIGKILL');
    throw new Error(`${(e as Error).message}\n${out}`);
  }
  return { port, child };
}

function kill(p: Proc): Promise<void> {
  return new Promise((resolve) => {
    if (p.child.exitCode !== null || p.child.signalCode !== null) return resolve();
    p.child.once('exit', () => resolve());
    p.child.kill('SIGKILL');
  });
}

function dataArgs(port: number, dir: string): string[] {
  return ['--port', String(port), '--bind', HOST, '--save', '', '--appendonly', 'no', '--dir', dir, '--loglevel', 'warning'];
}

export interface SentinelGroup {
  /** `redis+sentinel://127.0.0.1:p1,.../mymaster` */
  readonly url: string;
  readonly name: string;
  /** Port of the current master, as the sentinels report it. */
  masterPort(): Promise<number>;
  /** SIGKILLs the current master; resolves with its port. */
  killMaster(): Promise<number>;
  /** Resolves once the sentinels name a master other than `oldPort` that answers as a master. */
  waitForFailover(oldPort: number, timeoutMs?: number): Promise<number>;
  stop(): Promise<void>;
}

export async function startSentinelGroup(opts: { replicas?: number; sentinels?: number; name?: string } = {}): Promise<SentinelGroup> {
  const name = opts.name ?? 'mymaster';
  const dir = mkdtempSync(join(tmpdir(), 'tr-sentinel-'));
  const data: Proc[] = [];
  const sentinels: Proc[] = [];
  const stop = async () => {
    await Promise.all([...data, ...sentinels].map(kill));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const masterPort = await freePort();
    data.push(await launch(dataArgs(masterPort, dir), masterPort));
    for (let i = 0; i < (opts.replicas ?? 1); i++) {
      const port = await freePort();
      data.push(await launch([...dataArgs(port, dir), '--replicaof', HOST, String(masterPort)], port));
    }
    for (let i = 0; i < (opts.sentinels ?? 3); i++) {
      const port = await freePort();
      const conf = join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        conf,
        [
          `port ${port}`,
          `bind ${HOST}`,
          `dir ${dir}`,
          `sentinel monitor ${name} ${HOST} ${masterPort} 2`,
          `sentinel down-after-milliseconds ${name} 1000`,
          `sentinel failover-timeout ${name} 3000`,
          `sentinel parallel-syncs ${name} 1`,
          '',
        ].join('\n'),
      );
      sentinels.push(await launch([conf, '--sentinel', '--loglevel', 'warning'], port));
    }
    // Ready when every sentinel knows the replicas and the other sentinels (it can then elect).
    const replicas = opts.replicas ?? 1;
    await until(async () => {
      for (const s of sentinels) {
        const master = (await command(s.port, 'SENTINEL', 'MASTER', name)) as string[];
        const field = (k: string) => Number(master[master.indexOf(k) + 1]);
        if (field('num-slaves') < replicas || field('num-other-sentinels') < sentinels.length - 1) return false;
      }
      return true;
    }, 20_000, 'the sentinels to discover the replicas and each other');
  } catch (e) {
    await stop();
    throw e;
  }
  const masterPort = async () => Number(((await command(sentinels[0]!.port, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name)) as string[])[1]);
  return {
    url: `redis+sentinel://${sentinels.map((s) => `${HOST}:${s.port}`).join(',')}/${name}`,
    name,
    masterPort,
    async killMaster() {
      const port = await masterPort();
      await kill(data.find((d) => d.port === port)!);
      return port;
    },
    async waitForFailover(oldPort, timeoutMs = 20_000) {
      let port = oldPort;
      await until(async () => {
        port = await masterPort();
        if (port === oldPort) return false;
        const role = (await command(port, 'ROLE')) as unknown[];
        return role[0] === 'master';
      }, timeoutMs, 'the sentinels to promote a replica');
      return port;
    },
    stop,
  };
}

export interface RedisClusterProcs {
  /** `redis+cluster://127.0.0.1:p1,...` (the masters as seeds). */
  readonly url: string;
  readonly ports: number[];
  /** SIGKILLs the master serving `key`'s slot; resolves with its port. */
  killMasterOf(key: string): Promise<number>;
  /** Resolves once `key`'s slot is served by a live master other than `oldPort` and the cluster is ok. */
  waitForFailover(key: string, oldPort: number, timeoutMs?: number): Promise<number>;
  stop(): Promise<void>;
}

export async function startRedisCluster(opts: { masters?: number; replicasPerMaster?: number } = {}): Promise<RedisClusterProcs> {
  const masters = opts.masters ?? 3;
  const perMaster = opts.replicasPerMaster ?? 1;
  const dir = mkdtempSync(join(tmpdir(), 'tr-cluster-'));
  const nodes: Proc[] = [];
  const stop = async () => {
    await Promise.all(nodes.map(kill));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters * (1 + perMaster); i++) {
      const port = await freePort();
      nodes.push(
        await launch(
          [...dataArgs(port, dir), '--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`), '--cluster-node-timeout', '1000', '--cluster-replica-validity-factor', '0'],
          port,
        ),
      );
    }
    const create = spawnSync(
      'redis-cli',
      ['--cluster', 'create', ...nodes.map((n) => `${HOST}:${n.port}`), '--cluster-replicas', String(perMaster), '--cluster-yes'],
      { encoding: 'utf8', timeout: 30_000 },
    );
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed:\n${create.stdout}\n${create.stderr}`);
    await until(async () => {
      for (const n of nodes) {
        const info = String(await command(n.port, 'CLUSTER', 'INFO'));
        if (!info.includes('cluster_state:ok')) return false;
      }
      return true;
    }, 20_000, 'the cluster to be ok on every node');
    // A replica that has not synced with its master yet would not take over from it.
    await until(async () => {
      for (const n of nodes) {
        const info = String(await command(n.port, 'INFO', 'replication'));
        if (info.includes('role:slave') && !info.includes('master_link_status:up')) return false;
      }
      return true;
    }, 20_000, 'every replica to sync with its master');
  } catch (e) {
    await stop();
    throw e;
  }
  const live = () => nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);
  /** Port of the master serving `key`'s slot, as a live node reports it. */
  const masterOf = async (key: string): Promise<number> => {
    const slot = Number(await command(live()[0]!.port, 'CLUSTER', 'KEYSLOT', key));
    const slots = (await command(live()[0]!.port, 'CLUSTER', 'SLOTS')) as Array<[number, number, [string, number, ...unknown[]], ...unknown[]]>;
    const range = slots.find(([from, to]) => slot >= from && slot <= to);
    if (!range) throw new Error(`no node serves slot ${slot}`);
    return Number(range[2][1]);
  };
  return {
    url: `redis+cluster://${nodes.slice(0, masters).map((n) => `${HOST}:${n.port}`).join(',')}`,
    ports: nodes.map((n) => n.port),
    async killMasterOf(key) {
      const port = await masterOf(key);
      await kill(nodes.find((n) => n.port === port)!);
      return port;
    },
    async waitForFailover(key, oldPort, timeoutMs = 20_000) {
      let port = oldPort;
      await until(async () => {
        port = await masterOf(key);
        if (port === oldPort) return false;
        const info = String(await command(port, 'CLUSTER', 'INFO'));
        return info.includes('cluster_state:ok');
      }, timeoutMs, 'the cluster to promote a replica');
      return port;
    },
    stop,
  };
}

/** A cluster-aware client for checks on raw keys (the test's own view of the data). */
export function clusterClient(ports: number[]): Cluster {
  const c = new Cluster(ports.map((port) => ({ host: HOST, port })), { lazyConnect: true });
  c.on('error', () => undefined);
  return c;
}
