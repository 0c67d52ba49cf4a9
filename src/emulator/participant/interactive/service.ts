/**
 * Interactive submission (Canton's InteractiveSubmissionService): a command is interpreted
 * without effect (`prepare`), returned as a `PreparedTransaction` with its V2 hash, signed by the
 * external parties that act, and committed when the signed transaction comes back (`execute`).
 *
 * The participant keeps what it interpreted, keyed by hash (bounded, expiring), and commits
 * exactly that at execute, after:
 *  - decoding the received bytes and recomputing their hash (a tampered transaction has another
 *    hash, so the signatures over the original one fail, as on Canton); bytes identical to the
 *    ones handed out at prepare skip the decoding, their hash being already known;
 *  - checking the signatures of every actAs party against its registered keys and threshold
 *    (`ExternalPartyStore`), with Canton's FAILED_TO_EXECUTE_TRANSACTION messages;
 *  - checking time: `maxRecordTime` (NOT_SEQUENCED_TIMEOUT), the preparation-time tolerance
 *    (24 h, Canton's `preparationTimeRecordTimeTolerance`) and a min ledger time more than the
 *    ledger-time tolerance (60 s) ahead;
 *  - then, the background automation having run (time has passed since prepare), the normal
 *    commit checks (CommandService.commit): deduplication (a second execute of the same
 *    transaction is a DUPLICATE_COMMAND), every input contract still active
 *    (LOCAL_VERDICT_INACTIVE_CONTRACTS), contract keys still free.
 * A rejected execute writes nothing (only the background automation may have moved on).
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../../../canton/clock.js';
import type { CommandService, Deduplication, Interpretation, Submission } from '../commands.js';
import type { ExternalPartyStore } from '../external-parties.js';
import type { Synchronizer, SynchronizerMember } from '../synchronizer.js';
import { errors, LedgerApiError } from '../../../canton/errors.js';
import type { WireSignature } from '../external-parties.js';
import { ProtoError } from '../../shared/protobuf.js';
import type { TransactionRecord } from '../updates.js';
import { explainHash, hashPreparedTransactionV2, HashingError } from './hashing.js';
import { PreparedTransactionBuilder, type PreparedBuilderEngine } from './build-prepared.js';
import { decodePreparedTransaction, encodePreparedTransaction, type PPreparedTransaction } from './prepared-transaction.js';

/** Canton's default `preparationTimeRecordTimeTolerance`. */
const PREPARATION_TIME_TOLERANCE_MICROS = 24n * 3600n * 1_000_000n;
/** Canton's default `ledgerTimeRecordTimeTolerance`. */
const LEDGER_TIME_TOLERANCE_MICROS = 60n * 1_000_000n;
/** Prepared transactions kept for execution (oldest dropped first). */
const MAX_PREPARED = 10_000;

export interface PrepareRequest {
  submission: Submission;
  /** Absolute min ledger time (micros), from `minLedgerTime`. */
  minLedgerTimeMicros?: bigint;
  maxRecordTimeMicros?: bigint;
  verboseHashing: boolean;
}

export interface PrepareResult {
  preparedTransaction: Buffer;
  hash: Buffer;
  hashingDetails?: string;
}

export interface ExecuteRequest {
  preparedTransaction: Buffer;
  signatures: ReadonlyArray<{ party: string; signatures: readonly WireSignature[] }>;
  submissionId: string;
  userId: string;
  deduplication?: Deduplication;
}

interface PreparedEntry {
  interpretation: Interpretation;
  /** The PreparedTransaction bytes handed out, their SHA-256 (hex) and V2 hash. */
  bytes: Buffer;
  digest: string;
  hash: Buffer;
  actAs: readonly string[];
  preparationTimeMicros: bigint;
  maxRecordTimeMicros?: bigint;
  /** Set once committed: a transaction is committed at most once, whatever the deduplication period. */
  committed?: { offset: number; submissionId: string };
}

/** What prepare / execute use of the participant (engine.ts's `LedgerEngine` implements it). */
export interface InteractiveEngine extends PreparedBuilderEngine, SynchronizerMember {
  readonly clock: Clock;
  readonly commands: CommandService;
  readonly externalParties: ExternalPartyStore;
  readonly synchronizer: Synchronizer;
}

export class InteractiveSubmissionService {
  /** By V2 hash (hex). */
  private readonly prepared = new Map<string, PreparedEntry>();
  /** V2 hash (hex) by SHA-256 (hex) of the bytes handed out. */
  private readonly byDigest = new Map<string, string>();

  private readonly builder: PreparedTransactionBuilder;

  constructor(private readonly engine: InteractiveEngine) {
    this.builder = new PreparedTransactionBuilder(engine);
  }

  prepare(req: PrepareRequest): PrepareResult {
    const engine = this.engine;
    const now = engine.clock.nowMicros();
    const ledgerTime = req.minLedgerTimeMicros !== undefined && req.minLedgerTimeMicros > now ? req.minLedgerTimeMicros : now;
    const interpretation = engine.commands.interpret(req.submission, ledgerTime);
    const prepared = this.builder.build(interpretation, now, req);
    const hashed = hashPreparedTransactionV2(prepared);
    const bytes = encodePreparedTransaction(prepared);
    this.remember(hashed.hash.toString('hex'), {
      interpretation,
      bytes,
      digest: digestOf(bytes),
      hash: hashed.hash,
      actAs: prepared.metadata.actAs,
      preparationTimeMicros: now,
      ...(req.maxRecordTimeMicros !== undefined ? { maxRecordTimeMicros: req.maxRecordTimeMicros } : {}),
    });
    const out: PrepareResult = { preparedTransaction: bytes, hash: hashed.hash };
    if (req.verboseHashing) out.hashingDetails = explainHash(prepared, hashed);
    return out;
  }

  /**
   * Verifies and commits a signed prepared transaction; returns the committed transaction.
   * `authorize` gets the transaction's actAs parties once decoded (the caller's rights check).
   */
  execute(req: ExecuteRequest, authorize: (actAs: readonly string[]) => void = () => {}): TransactionRecord {
    const engine = this.engine;
    const { hash, actAs, synchronizerId, decoded } = this.hashOf(req.preparedTransaction);
    authorize(actAs);
    if (!synchronizerId.includes('::')) {
      throw errors.invalidField('synchronizer_id', `Invalid unique identifier \`${synchronizerId}\` with missing namespace.`);
    }
    if (synchronizerId !== engine.synchronizerId) {
      throw new LedgerApiError('INVALID_PRESCRIBED_SYNCHRONIZER_ID', `Cannot submit transaction to prescribed synchronizer \`${synchronizerId}\` because: the participant is not connected to it`);
    }
    this.checkSignatures(actAs, hash, req.signatures);

    const key = hash.toString('hex');
    const entry = this.prepared.get(key);
    if (!entry) {
      throw failedToExecute(
        `The prepared transaction with hash ${key} is not known to this participant: it was prepared by another node or has been forgotten; prepare it again`,
      );
    }
    if (entry.committed) {
      throw new LedgerApiError('DUPLICATE_COMMAND', 'A command with the given command id has already been successfully processed', {
        context: { existing_submission_id: entry.committed.submissionId, completion_offset: String(entry.committed.offset) },
        resources: [['COMMAND_ID', entry.interpretation.submission.commandId]],
        definiteAnswer: false,
      });
    }
    // The V2 hash covers each input contract's create node but not its event blob: the blob is
    // authenticated against the contract instead (as a disclosed contract's is at submission), as
    // Canton authenticates the input contracts of an executed transaction.
    for (const ic of decoded?.metadata.inputContracts ?? []) {
      const stored = engine.synchronizer.storedContract(ic.create.contractId, engine);
      if (!stored || stored.blob !== ic.eventBlob.toString('base64')) {
        throw errors.invalidArgument(`Input contract ${ic.create.contractId} failed authentication: its event blob does not match the contract`);
      }
    }
    // `maxRecordTime` is outside the V2 hash: Canton honours the value in the bytes it receives.
    const maxRecordTimeMicros = decoded ? decoded.metadata.maxRecordTime : entry.maxRecordTimeMicros;
    const now = engine.clock.nowMicros();
    if (maxRecordTimeMicros !== undefined && now > maxRecordTimeMicros) {
      throw new LedgerApiError('NOT_SEQUENCED_TIMEOUT', `Transaction was not sequenced within the pre-defined max sequencing time and has therefore timed out`, {
        context: { timeout: String(maxRecordTimeMicros) },
        definiteAnswer: true,
      });
    }
    if (now - entry.preparationTimeMicros > PREPARATION_TIME_TOLERANCE_MICROS) {
      throw new LedgerApiError(
        'LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND',
        `Rejected transaction as delta of the ledger time and the record time exceed the time tolerance: the preparation time ${entry.preparationTimeMicros} is more than 24 hours before the record time ${now}`,
        { definiteAnswer: true },
      );
    }
    const let_ = entry.interpretation.ledgerTimeMicros;
    if (let_ - now > LEDGER_TIME_TOLERANCE_MICROS) {
      throw new LedgerApiError(
        'LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND',
        `Rejected transaction as delta of the ledger time ${let_} and the record time ${now} exceed the time tolerance of 60 seconds`,
        { definiteAnswer: true },
      );
    }
    // The transaction is sequenced now: background automation (round advancement, ...) has run
    // meanwhile, and may have archived a contract it uses (then LOCAL_VERDICT_INACTIVE_CONTRACTS,
    // as an Amulet transfer prepared against a round that has closed).
    engine.synchronizer.runAutomations();
    const interpretation: Interpretation = { ...entry.interpretation, submission: { ...entry.interpretation.submission, userId: req.userId } };
    const tx = engine.commands.commit(interpretation, {
      submissionId: req.submissionId,
      ...(req.deduplication ? { deduplication: req.deduplication } : {}),
      externalTransactionHash: hash.toString('base64'),
    });
    entry.committed = { offset: tx.offset, submissionId: req.submissionId };
    return tx;
  }

  /**
   * The V2 hash, actAs parties and synchronizer of received PreparedTransaction bytes: decoded
   * and hashed, unless they are byte for byte the bytes this node handed out (then their hash is
   * the one computed when they were made: the hash is a function of the bytes).
   */
  private hashOf(bytes: Buffer): { hash: Buffer; actAs: readonly string[]; synchronizerId: string; decoded?: PPreparedTransaction } {
    const known = this.byDigest.get(digestOf(bytes));
    const entry = known === undefined ? undefined : this.prepared.get(known);
    if (entry && entry.bytes.equals(bytes)) return { hash: entry.hash, actAs: entry.actAs, synchronizerId: this.engine.synchronizerId };
    try {
      const decoded = decodePreparedTransaction(bytes);
      return { hash: hashPreparedTransactionV2(decoded).hash, actAs: decoded.metadata.actAs, synchronizerId: decoded.metadata.synchronizerId, decoded };
    } catch (e) {
      if (e instanceof ProtoError || e instanceof HashingError) throw errors.invalidField('prepared_transaction', e.message);
      throw e;
    }
  }

  /** The parties whose signatures are needed are the transaction's actAs parties. */
  private checkSignatures(actAs: readonly string[], hash: Buffer, given: ExecuteRequest['signatures']): void {
    const missing = actAs.filter((p) => !given.some((s) => s.party === p && s.signatures.length > 0));
    if (missing.length > 0) {
      throw failedToExecute(`The following actAs parties did not provide an external signature: ${missing.join(', ')}`);
    }
    for (const party of actAs) {
      const signatures = given.filter((s) => s.party === party).flatMap((s) => s.signatures);
      const check = this.engine.externalParties.verifyPartySignatures(party, hash, signatures);
      if (check.ok) continue;
      if (!check.external) throw failedToExecute(`Party ${party} is not an external party: it has no signing keys on this participant`);
      throw failedToExecute(
        `Received ${check.valid} valid signatures from distinct keys (${check.invalid} invalid), but expected at least ${check.threshold} valid for ${party}. ` +
          `Transaction hash to be signed: ${hash.toString('hex')}. Ensure the correct transaction hash is signed with the correct key(s).`,
      );
    }
  }

  private remember(key: string, e: PreparedEntry): void {
    this.forget(key);
    this.prepared.set(key, e);
    this.byDigest.set(e.digest, key);
    const now = this.engine.clock.nowMicros();
    for (const [k, old] of this.prepared) {
      const expired = now - old.preparationTimeMicros > PREPARATION_TIME_TOLERANCE_MICROS;
      if (this.prepared.size <= MAX_PREPARED && !expired) break;
      this.forget(k);
    }
  }

  private forget(key: string): void {
    const e = this.prepared.get(key);
    if (!e) return;
    this.prepared.delete(key);
    this.byDigest.delete(e.digest);
  }
}

function digestOf(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

function failedToExecute(why: string): LedgerApiError {
  return new LedgerApiError('FAILED_TO_EXECUTE_TRANSACTION', `The participant failed to execute the transaction: ${why}`, { definiteAnswer: true });
}
