/**
 * Which ledger the index was loaded from, and whether it still is the one it reads.
 *
 * The identity is the participant id and the *anchor*, the first update the admin sees (its
 * offset, id and record time). Cache entries live under a namespace derived from both (the
 * *incarnation*), so every replica reading the same ledger shares them, and the entries of a
 * previous ledger become unreachable the moment the index reloads (their TTL removes them).
 * LIMITATION: a participant restored from a backup of itself keeps its participant id and
 * anchor, hence its namespace: entries of contracts created after the backup point stay
 * readable by id until their TTL.
 * The identity is re-checked after every failed poll and every `identityCheckMs` while ready
 * (the anchor after a failed poll and on every 12th periodic check).
 */
import { createHash } from 'node:crypto';
import type { LedgerClient } from '../ledger-client/client.js';
import { hasCode } from '../ledger-client/errors.js';
import type { JsGetUpdatesResponse } from '../ledger-client/schemas/events.js';
import type { IndexOffset } from './index-offset.js';
import type { LedgerFilter } from './index-options.js';
import { LedgerResetError } from './index-state.js';

/** Prefix of the cache namespace of contracts; the ledger's incarnation follows it. */
export const CONTRACT_NS = 'contract';

/** The cache namespace of the contracts of one ledger incarnation (no ':' in it, see redisKey). */
export function contractNamespace(participantId: string, anchor: string): string {
  const h = createHash('sha256').update(`${participantId}\n${anchor}`).digest('hex').slice(0, 24);
  return `${CONTRACT_NS}-${h}`;
}

/** The identity of the ledger the index was loaded from. */
export interface LedgerIdentity {
  participantId: string;
  /** The first update the admin sees (`offset/updateId/recordTime`), or `none`. */
  anchor: string;
  /** The anchor was looked for up to this offset (the snapshot offset). */
  anchorEnd: number;
}

/** Periodic identity checks between two reads of the anchor (with the default 5 s: one a minute). */
const ANCHOR_EVERY = 12;

export class LedgerIdentityChecks {
  /** The identity of the ledger the index was loaded from (undefined before the first load). */
  identity?: LedgerIdentity;
  /** When the identity was last checked (epoch ms). */
  lastCheck = 0;
  /** A check (with the anchor) is due at once: a read of the ledger failed since the last one. */
  due = false;
  private checksSinceAnchor = 0;

  /** `admin`: the party whose updates are read; `filter`: the index's templates and interfaces. */
  constructor(
    private readonly ledger: LedgerClient,
    private readonly admin: string,
    private readonly filter: () => LedgerFilter,
  ) {}

  /** Whether a check is due: after a failed read, or `everyMs` after the last check. */
  isDue(everyMs: number): boolean {
    return this.due || Date.now() - this.lastCheck >= everyMs;
  }

  /** The identity was read now (a snapshot was loaded). */
  checked(): void {
    this.lastCheck = Date.now();
    this.due = false;
  }

  /**
   * The first update the admin sees at or before `end` (offset, update id, record time): the
   * same on every replica reading the same ledger, different on a rebuilt one (update ids are
   * hashes of the transaction, record times differ between runs).
   */
  async anchorUpTo(end: number): Promise<string> {
    if (end <= 0) return 'none';
    let updates: JsGetUpdatesResponse[];
    try {
      updates = await this.ledger.updates({
        beginExclusive: 0,
        endInclusive: end,
        parties: [this.admin],
        ...this.filter(),
        shape: 'ACS_DELTA',
        limit: 10,
      });
    } catch (err) {
      // A pruned participant cannot show its first update: the identity is the participant alone.
      if (hasCode(err, 'PARTICIPANT_PRUNED_DATA_ACCESSED')) return 'pruned';
      throw err;
    }
    for (const u of updates) {
      const v = (u.update as Record<string, { value?: Record<string, unknown> } | undefined>);
      const tx = v.Transaction?.value ?? v.Reassignment?.value;
      if (tx && typeof tx.updateId === 'string') return `${String(tx.offset)}/${tx.updateId}/${String(tx.recordTime ?? '')}`;
    }
    return 'none';
  }

  /** Whether the ledger is still the one the index was loaded from; throws LedgerResetError if not. */
  async check(offset: IndexOffset): Promise<void> {
    const identity = this.identity;
    if (!identity) return;
    const participantId = await this.ledger.participantId();
    if (participantId !== identity.participantId) {
      throw new LedgerResetError(`the participant id changed from ${identity.participantId} to ${participantId}`);
    }
    // The offset before the call: the update stream may move it while the ledger answers.
    const before = offset.value;
    const end = await this.ledger.ledgerEnd();
    if (end < before) throw new LedgerResetError(`ledger end ${end} is below the index's offset ${before}`);
    offset.tellLedgerEnd(end);
    // The anchor read scans the admin's updates from the ledger's beginning: after a failed read
    // (a replaced node is down for a while first) and on every ANCHOR_EVERY-th periodic check.
    if (this.due || ++this.checksSinceAnchor >= ANCHOR_EVERY) {
      const anchor = await this.anchorUpTo(Math.min(identity.anchorEnd, end));
      if (anchor !== identity.anchor) throw new LedgerResetError(`the ledger's first update changed (${identity.anchor} -> ${anchor})`);
      this.checksSinceAnchor = 0;
    }
    this.checked();
  }
}
