/**
 * `check-config`: what an instrument admin runs before `serve` (or after changing a recipe). It
 * loads the configuration (every problem at once, as `serve` would refuse it), connects to the
 * ledger node, checks that every template and interface the recipes name is known there, and then
 * asks the registry itself, in process, for each instrument's factories (the same code path as a
 * wallet's request, with choice arguments made up for the instrument: sender = receiver = admin).
 * Per-contract contexts need a live instruction or allocation, so they are reported from the
 * token's `supportedApis` (and, for a declarative recipe, from what it configures).
 *
 * One line per instrument, endpoint and version: `ok`, `--` (the token does not offer that
 * version: not an error) or `error` (the token claims the API, but the registry would not answer).
 */
import type { Logger } from 'pino';
import pino from 'pino';
import { MemoryCache } from './cache/memory-cache.js';
import type { RegistryConfig } from './config/registry.js';
import { systemClock, type Clock } from './canton/clock.js';
import { LedgerClient } from './ledger-client/client.js';
import { LedgerError } from './ledger-client/errors.js';
import { createRegistry } from './registry/index.js';
import { builtInRecipes, declarativeRecipes } from './registry/recipes/index.js';
import { DeclarativeRecipe } from './registry/recipes/declarative/declarative-recipe.js';
import type { Recipe } from './registry/recipes/recipe.js';
import { credentialsRejected, tokenProviderOf } from './serve.js';

export type CheckStatus = 'ok' | '--' | 'error';

export interface CheckLine {
  status: CheckStatus;
  /** `instrument <id>` or `recipe <name>`. */
  subject: string;
  /** e.g. `POST /registry/transfer-instruction/v1/transfer-factory`. */
  endpoint: string;
  detail: string;
}

export interface CheckResult {
  lines: CheckLine[];
  ok: boolean;
}

export function formatCheckLine(l: CheckLine): string {
  return `${l.status.padEnd(5)} ${l.subject}: ${l.endpoint}${l.endpoint ? ': ' : ''}${l.detail}`;
}

interface FactoryProbe {
  api: string;
  path: string;
  args(admin: string, instrumentId: string, now: Date): Record<string, unknown>;
}

const iso = (d: Date, plusMs = 0) => new Date(d.getTime() + plusMs).toISOString();
const HOUR = 3_600_000;
const basic = (party: string) => ({ owner: party, provider: null, id: '' });
const meta = { values: {} };

/** The factory endpoints, with choice arguments the service accepts for an instrument of `admin`. */
const FACTORIES: readonly FactoryProbe[] = [
  {
    api: 'splice-api-token-transfer-instruction-v1',
    path: '/registry/transfer-instruction/v1/transfer-factory',
    args: (admin, id, now) => ({
      expectedAdmin: admin,
      transfer: { sender: admin, receiver: admin, amount: '1.0', instrumentId: { admin, id }, requestedAt: iso(now, -60_000), executeBefore: iso(now, HOUR), inputHoldingCids: [], meta },
      extraArgs: { context: { values: {} }, meta },
    }),
  },
  {
    api: 'splice-api-token-transfer-instruction-v2',
    path: '/registry/transfer-instruction/v2/transfer-factory',
    args: (admin, id, now) => ({
      transfer: { sender: basic(admin), receiver: basic(admin), amount: '1.0', instrumentId: { admin, id }, requestedAt: iso(now, -60_000), executeBefore: iso(now, HOUR), inputHoldingCids: [], meta },
      actors: [admin],
      extraArgs: { context: { values: {} }, meta },
    }),
  },
  {
    api: 'splice-api-token-allocation-instruction-v1',
    path: '/registry/allocation-instruction/v1/allocation-factory',
    args: (admin, id, now) => ({
      expectedAdmin: admin,
      allocation: {
        settlement: { executor: admin, settlementRef: { id: 'check-config', cid: null }, requestedAt: iso(now, -60_000), allocateBefore: iso(now, HOUR), settleBefore: iso(now, 2 * HOUR), meta },
        transferLegId: 'check-config',
        transferLeg: { sender: admin, receiver: admin, amount: '1.0', instrumentId: { admin, id }, meta },
      },
      requestedAt: iso(now, -60_000),
      inputHoldingCids: [],
      extraArgs: { context: { values: {} }, meta },
    }),
  },
  {
    api: 'splice-api-token-allocation-instruction-v2',
    path: '/registry/allocation-instruction/v2/allocation-factory',
    args: (admin, id, now) => ({
      settlement: { executors: [admin], id: 'check-config', meta },
      allocation: {
        admin,
        authorizer: basic(admin),
        transferLegSides: [{ transferLegId: 'check-config', side: 'sender', otherside: basic(admin), amount: '1.0', instrumentId: id, meta }],
        settlementDeadline: iso(now, HOUR),
      },
      requestedAt: iso(now, -60_000),
      inputHoldingCids: [],
      actors: [admin],
      extraArgs: { context: { values: {} }, meta },
    }),
  },
  {
    api: 'splice-api-token-allocation-v2',
    path: '/registry/allocation/v2/settlement-factory',
    args: (admin, id) => ({
      settlement: { executors: [admin], id: 'check-config', meta },
      transferLegs: [{ transferLegId: 'check-config', sender: basic(admin), receiver: basic(admin), amount: '1.0', instrumentId: id, meta }],
      allocations: [],
      actors: [admin],
      extraArgs: { context: { values: {} }, meta },
    }),
  },
];

/** Per-contract contexts: the API that governs each version, and the declarative section configuring them. */
const PER_CONTRACT: ReadonlyArray<{ api: string; path: string; section: 'transferInstructions' | 'allocationInstructions' | 'allocations' }> = [
  { api: 'splice-api-token-transfer-instruction-v1', path: '/registry/transfer-instruction/v1/{id}/choice-contexts/{accept,reject,withdraw}', section: 'transferInstructions' },
  { api: 'splice-api-token-transfer-instruction-v2', path: '/registry/transfer-instruction/v2/{id}/choice-contexts/{accept,reject,withdraw}', section: 'transferInstructions' },
  { api: 'splice-api-token-allocation-instruction-v2', path: '/registry/allocation-instruction/v2/{id}/choice-contexts/{accept,withdraw}', section: 'allocationInstructions' },
  { api: 'splice-api-token-allocation-v1', path: '/registry/allocations/v1/{id}/choice-contexts/{execute-transfer,withdraw,cancel}', section: 'allocations' },
  { api: 'splice-api-token-allocation-v2', path: '/registry/allocations/v2/{id}/choice-contexts/{withdraw,cancel}', section: 'allocations' },
];

/**
 * Checks a loaded configuration against its ledger node. Rejected credentials or an unreachable
 * node throw (a ConfigError for credentials, as `serve` reports them).
 */
export async function checkRegistryConfig(config: Readonly<RegistryConfig>, deps: { fetch?: typeof fetch; clock?: Clock; logger?: Logger } = {}): Promise<CheckResult> {
  const logger = deps.logger ?? pino({ level: 'silent' });
  const clock = deps.clock ?? systemClock;
  const recipes: Recipe[] = [...builtInRecipes({ amuletCompat: config.amuletCompat }), ...declarativeRecipes(config.recipes)];
  const byName = new Map(recipes.map((r) => [r.name, r]));
  const ledger = new LedgerClient({ baseUrl: config.ledger.url, tokenProvider: tokenProviderOf(config.ledger.auth), timeoutMs: config.ledger.timeoutMs, fetch: deps.fetch, logger });
  const lines: CheckLine[] = [];

  // 1. Every template and interface the used recipes name must be known to the ledger node.
  const used = [...new Set(config.instruments.map((i) => i.recipe))].map((n) => byName.get(n)!);
  for (const recipe of used) {
    const refs = [
      ...[...new Set([...recipe.indexedTemplates, ...recipe.cachedTemplates])].map((t) => ({ ref: t, kind: 'template' as const })),
      ...(recipe.indexedInterfaces ?? []).map((t) => ({ ref: t, kind: 'interface' as const })),
    ];
    for (const { ref, kind } of refs) {
      try {
        await ledger.activeContracts({ parties: [config.adminParty], ...(kind === 'template' ? { templateIds: [ref] } : { interfaceIds: [ref] }) });
      } catch (e) {
        if (e instanceof LedgerError && e.code === 'TEMPLATES_OR_INTERFACES_NOT_FOUND') {
          lines.push({ status: 'error', subject: `recipe ${recipe.name}`, endpoint: '', detail: `${kind} ${ref} is not known to the ledger node ${config.ledger.url}: upload the DAR that defines it, or correct the id` });
        } else {
          throw credentialsRejected(e instanceof Error ? e : new Error(String(e)), config);
        }
      }
    }
  }
  if (lines.length > 0) return { lines, ok: false };

  // 2. The registry itself, in process, over the ledger: the answers a wallet would get.
  const registry = createRegistry({
    admin: config.adminParty,
    instruments: config.instruments,
    recipes,
    ledger,
    cache: new MemoryCache({ defaultTtlSeconds: 60, logger }),
    clock,
    logger,
  });
  try {
    await registry.start().catch((e: unknown) => {
      throw credentialsRejected(e instanceof Error ? e : new Error(String(e)), config);
    });
    const now = new Date(Number(clock.nowMicros() / 1000n));
    for (const inst of config.instruments) {
      const recipe = byName.get(inst.recipe)!;
      const supported = inst.supportedApis ?? recipe.supportedApis;
      const subject = `instrument ${inst.id} (${inst.recipe})`;
      for (const f of FACTORIES) {
        const r = await registry.app.request(f.path, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ choiceArguments: f.args(config.adminParty, inst.id, now), excludeDebugFields: true }),
        });
        const body = (await r.json()) as { factoryId?: string; error?: string };
        const endpoint = `POST ${f.path}`;
        if (supported[f.api] === undefined) {
          lines.push({ status: '--', subject, endpoint, detail: `not offered: ${f.api} is not in supportedApis (answers ${r.status}${body.error ? `: ${body.error}` : ''})` });
        } else if (r.status === 200) {
          lines.push({ status: 'ok', subject, endpoint, detail: `factory ${body.factoryId ?? '?'}` });
        } else {
          lines.push({ status: 'error', subject, endpoint, detail: `${f.api} is in supportedApis, but the registry answers ${r.status}: ${body.error ?? '(no message)'}` });
        }
      }
      for (const p of PER_CONTRACT) {
        const endpoint = `POST ${p.path}`;
        if (supported[p.api] === undefined) {
          lines.push({ status: '--', subject, endpoint, detail: `not offered: ${p.api} is not in supportedApis (answers 400)` });
        } else if (recipe instanceof DeclarativeRecipe && recipe.config[p.section] === undefined) {
          lines.push({ status: 'error', subject, endpoint, detail: `${p.api} is in supportedApis, but recipe ${recipe.name} has no "${p.section}": every such request answers 404` });
        } else {
          lines.push({ status: 'ok', subject, endpoint, detail: `answered for the token's ${p.section.replace(/s$/, '').replace(/([A-Z])/g, ' $1').toLowerCase()}s` });
        }
      }
    }
  } finally {
    await registry.stop();
  }
  return { lines, ok: lines.every((l) => l.status !== 'error') };
}
