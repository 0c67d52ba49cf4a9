/**
 * What the container suite needs from the machine: a Docker-compatible runtime (Docker, or podman's
 * API socket from ../shared/containers/setup.sh), the base images (NODE_IMAGE, REDIS_IMAGE: the
 * official ones by default, local stand-ins on machines without a registry), the image built from
 * docker/Dockerfile, and a compose command. In CI (CI=true) a missing runtime is a failure, never
 * a skip.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { GenericContainer } from 'testcontainers';

/** A free TCP port on the host (for compose's published ports). */
export { freePort } from '../support/processes.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const NODE_IMAGE = process.env.NODE_IMAGE || 'node:24-bookworm-slim';
export const REDIS_IMAGE = process.env.REDIS_IMAGE || 'redis:7';
/** The tag the suite builds (and compose then uses as TOKEN_REGISTRY_IMAGE, without rebuilding). */
export const TEST_IMAGE = process.env.TOKEN_REGISTRY_TEST_IMAGE || 'localhost/token-registry:test';
export const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

/** Why no container runtime can be used, or undefined when one can. */
export function runtimeMissing(): string | undefined {
  if (process.env.DOCKER_HOST) return undefined;
  if (existsSync('/var/run/docker.sock')) return undefined;
  return 'no container runtime: DOCKER_HOST is not set and /var/run/docker.sock does not exist (on this machine kind: eval "$(../shared/containers/setup.sh --env)")';
}

/** Builds docker/Dockerfile with the layer cache; returns the build time in ms. */
export async function buildImage(): Promise<number> {
  const t0 = performance.now();
  await GenericContainer.fromDockerfile(ROOT, 'docker/Dockerfile')
    .withBuildArgs({ NODE_IMAGE })
    .withCache(true)
    .build(TEST_IMAGE, { deleteOnExit: false });
  return performance.now() - t0;
}

const run = promisify(execFile);

/** `docker compose` (v2) or `docker-compose` (v1), whichever works against the runtime; undefined if none. */
export async function composeCommand(): Promise<string[] | undefined> {
  for (const cmd of [['docker', 'compose'], ['docker-compose']]) {
    try {
      await run(cmd[0]!, [...cmd.slice(1), 'version'], { timeout: 20_000 });
      return cmd;
    } catch {
      // not installed (or not this variant)
    }
  }
  return undefined;
}

export async function compose(cmd: string[], file: string, project: string, args: string[], env: Record<string, string>): Promise<string> {
  const { stdout, stderr } = await run(cmd[0]!, [...cmd.slice(1), '-f', resolve(ROOT, file), '-p', project, ...args], {
    env: { ...process.env, ...env },
    timeout: 180_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout + stderr;
}

/** Polls `url` until it answers 200 (compose: podman does not run healthchecks, so wait on HTTP). */
export async function waitForHttp(url: string, timeoutMs: number): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (r.status === 200) return performance.now() - t0;
    } catch {
      // not listening yet
    }
    if (performance.now() - t0 > timeoutMs) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
