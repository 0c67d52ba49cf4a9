/**
 * Whole-world snapshots in memory: what a test suite restores before every test.
 *
 * A snapshot holds references, not copies: contract and transaction records are immutable once
 * committed (a contract's archive offset is the one field that changes later, so the archived
 * ones are saved with it), so taking one copies the stores' indexes with native Map/Set copies
 * and the small stores (parties, users, rights, topology, traffic, deduplication), and restoring
 * one copies them back: JavaScript work proportional to the archived contracts and the small
 * stores, native copying for the rest. Nothing is serialized (STATE_DIR's durable state, which writes the same
 * stores to disk, is the slow path this avoids); the bench (`bench/admin-restore.ts`) measures it.
 *
 * What a snapshot does not hold, and why:
 *  - uploaded packages (DARs): an upload after the snapshot stays (re-reading a DAR is the cost
 *    snapshots exist to avoid; a package is harmless to a world that does not use it);
 *  - the id generator's position: ids keep counting after a restore, so an id of the discarded
 *    timeline (a contract id a client or cache still holds) never names another contract;
 *  - prepared interactive submissions and pending multi-hosted allocations (as STATE_DIR).
 */
import type { LedgerEngine } from '../participant/engine.js';
import type { SavedContracts } from '../participant/contracts.js';
import type { ExternalPartyRecord } from '../participant/external-parties.js';
import type { Completion } from '../participant/commands.js';
import type { HostingPermission, Synchronizer } from '../participant/synchronizer.js';
import type { State as TrafficState } from '../participant/traffic.js';
import type { PartyRecord } from '../participant/types.js';
import type { SavedUpdateLog } from '../participant/updates.js';
import type { SavedUser } from '../participant/users.js';
import type { SavedScanStore, ScanStore } from '../scan/store.js';
import type { SkewedClock } from './clock.js';

/** The stores a snapshot covers. */
export interface WorldParts {
  synchronizer: Synchronizer;
  participants: readonly LedgerEngine[];
  clock: SkewedClock;
  /** The emulated scan's store, when scan is emulated. */
  scan?: ScanStore;
}

interface SavedParticipant {
  parties: PartyRecord[];
  users: Array<[string, SavedUser]>;
  contracts: SavedContracts;
  transactions: SavedUpdateLog;
  deduplication: Array<[string, Completion]>;
}

export interface WorldSnapshot {
  readonly clockSkewMicros: bigint;
  readonly hosting: ReadonlyArray<{ party: string; participantId: string; permission: HostingPermission; threshold: number }>;
  readonly externals: readonly ExternalPartyRecord[];
  readonly traffic: ReadonlyArray<[string, TrafficState]>;
  readonly participants: readonly SavedParticipant[];
  readonly scan?: SavedScanStore;
  /** Each participant's ledger end when taken (what a restore goes back to). */
  readonly ledgerEnds: readonly number[];
}

export function captureWorld(w: WorldParts): WorldSnapshot {
  const sync = w.synchronizer;
  return {
    clockSkewMicros: w.clock.skewMicros,
    hosting: sync.savedHosting(),
    externals: sync.externalParties.all(),
    traffic: sync.traffic.savedStates(),
    participants: w.participants.map((e) => ({
      parties: e.parties.all(),
      users: e.users.savedEntries(),
      contracts: e.contracts.saved(),
      transactions: e.updates.saved(),
      deduplication: e.commands.savedDeduplication(),
    })),
    scan: w.scan?.saved(),
    ledgerEnds: w.participants.map((e) => e.ledgerEnd()),
  };
}

/** Puts every store back as it was when `s` was taken; `s` stays usable (restore it again later). */
export function restoreWorld(w: WorldParts, s: WorldSnapshot): void {
  if (s.participants.length !== w.participants.length) throw new Error('the snapshot is of another world (participant count)');
  const sync = w.synchronizer;
  sync.clearHosting();
  for (const h of s.hosting) sync.restoreHosting(h.party, h.participantId, h.permission, h.threshold);
  sync.externalParties.clear();
  for (const x of s.externals) sync.externalParties.restore(x);
  sync.traffic.restoreStates(s.traffic);
  w.participants.forEach((e, i) => {
    const p = s.participants[i]!;
    e.parties.clear();
    for (const r of p.parties) e.parties.restore(r);
    e.users.clear();
    for (const [id, u] of p.users) e.users.restoreEntry(id, u);
    e.contracts.restoreSaved(p.contracts);
    e.updates.restoreSaved(p.transactions);
    e.commands.restoreDeduplication(p.deduplication);
  });
  if (s.scan) w.scan?.restoreSaved(s.scan);
  w.clock.skewMicros = s.clockSkewMicros;
}
