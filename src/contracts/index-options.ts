/** What a contract index is configured with, and which contracts it asks the ledger for. */
import type { Logger } from 'pino';
import type { Cache } from '../cache/cache.js';
import type { LedgerClient } from '../ledger-client/client.js';
import type { UpdateStream } from '../ledger-client/update-stream.js';

export interface ContractIndexOptions {
  ledger: LedgerClient;
  /** The instrument admin: the index reads as this party. */
  admin: string;
  /** `#package-name:Module:Entity` of templates held in memory and queried by field. */
  indexedTemplates: readonly string[];
  /** `#package-name:Module:Entity` of further templates cached by id (instructions, allocations...). */
  cachedTemplates: readonly string[];
  /**
   * `#package-name:Module:Entity` of interfaces whose implementing contracts are held in memory
   * too, under the interface's key (a factory configured by interface, declarative recipes).
   */
  indexedInterfaces?: readonly string[];
  cache: Cache;
  logger?: Logger;
  /** Idle time of one poll of the update stream (ms). */
  pollIdleMs?: number;
  /** TTL of cache entries (safety net; archives delete them). */
  cacheTtlSeconds?: number;
  /**
   * The ledger end without a ledger call, when the registry runs in process with the ledger
   * (the emulated stack); catchUp then asks the ledger only when the index is behind.
   */
  ledgerEndHint?: () => number;
  /** How often the ledger's identity is checked while ready (ms, default 5000). */
  identityCheckMs?: number;
  /** First and largest delay between failed loads or polls (ms, defaults 100 and 5000). */
  backoffMs?: { initial: number; max: number };
  /** Called once when the ledger rejects the credentials (the index has stopped). */
  onFatal?: (err: Error) => void;
  /**
   * How the index follows the ledger once loaded (ledger-client/update-stream.ts: the websocket, with
   * long polls as its fallback). Absent: long polls of `ledger` (with `ledgerEndHint`, reads of
   * exactly the gap).
   */
  updates?: UpdateStream;
  /**
   * `syncToLedgerEnd`: how long to wait for the update stream to bring an offset before reading
   * the gap directly (ms, default 10). The stream usually has it within a millisecond or two.
   */
  syncWaitMs?: number;
  /** How many archived contract ids are remembered (default 100 000), see `archived`. */
  archivedMemory?: number;
}

/** A transaction the index applied, for the lag metrics. */
export interface AppliedUpdate {
  offset: number;
  /** The ledger's record time of the transaction (ISO 8601). */
  recordTime: string;
  /** When the index had applied it (epoch ms). */
  appliedAtMs: number;
}

/** The templates and interfaces of the ledger reads (ACS, updates) of the index. */
export interface LedgerFilter {
  templateIds: string[];
  interfaceIds?: string[];
  includeInterfaceView?: boolean;
}

/** The indexed and cached templates, and the indexed interfaces with their views. */
export function ledgerFilter(opts: ContractIndexOptions): LedgerFilter {
  const templateIds = [...new Set([...opts.indexedTemplates, ...opts.cachedTemplates])];
  const interfaceIds = [...new Set(opts.indexedInterfaces ?? [])];
  return interfaceIds.length === 0 ? { templateIds } : { templateIds, interfaceIds, includeInterfaceView: true };
}
