/**
 * The changes of the emulated world that durable state journals (durable-state.ts): one per
 * write to a store that is not derived from another. Everything else (scan's history, indexes,
 * caches) is rebuilt from these.
 */
import type { SavedDarUpload } from '../packages.js';
import type { HostingPermission, PartyRecord } from '../types.js';
import type { CommittedTransaction } from '../updates.js';
import type { SavedUser } from '../users.js';
import type { SigningKeySpec } from '../external-parties.js';

/** An external party's keys as saved: public keys in DER SubjectPublicKeyInfo. */
export interface SavedExternalParty {
  party: string;
  threshold: number;
  keys: Array<{ fingerprint: string; spec: SigningKeySpec; spki: Buffer }>;
}

export type StateChange =
  | { kind: 'commit'; participant: string; commit: CommittedTransaction }
  | { kind: 'party'; participant: string; record: PartyRecord }
  | { kind: 'user'; participant: string; id: string; user: SavedUser | undefined }
  | { kind: 'dar'; participant: string; upload: SavedDarUpload }
  | { kind: 'host'; party: string; participantId: string; permission: HostingPermission; threshold: number }
  | { kind: 'external'; record: SavedExternalParty }
  /** The world's clock moved ahead: how far ahead of the base clock it now is (admin/clock.ts). */
  | { kind: 'clock'; skewMicros: bigint };

/** Where the stores send their changes. */
export interface StateJournal {
  /** Journals a change; throws a LedgerApiError (503) when the node cannot persist it. */
  record(change: StateChange): void;
  /** Why changes are refused now (the disk cannot be written), undefined when they are taken. */
  unavailableReason(): string | undefined;
}
