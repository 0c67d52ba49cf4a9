/**
 * Interactive submission service (`/v2/interactive-submission/*`): prepare, execute (3 forms)
 * and the preferred-package queries. Rights follow `InteractiveSubmissionServiceAuthorization`:
 * prepare needs read-as for its actAs and readAs parties (it changes nothing), execute needs
 * execute-as (CanExecuteAs, CanActAs or CanExecuteAsAnyParty) for every actAs party of the
 * prepared transaction, plus read-as for the parties of a transaction format; the
 * preferred-package queries are public (any valid token).
 */
import type { Context } from 'hono';
import { parseInstant } from '../../canton/clock.js';
import type { RouteModule } from './route-module.js';
import { decodeBody } from './decode.js';
import { deduplicationOf, emptyTransaction, parseCommands, resolveUserId } from './commands.js';
import { compileEventFormat, shapeOf, transactionJson, wildcardFilterFor } from './events.js';
import { canExecuteAs, requireReadAs, type Claims } from '../participant/claims.js';
import type { LedgerEngine } from '../participant/engine.js';
import { errors, LedgerApiError } from '../../canton/errors.js';
import type { TransactionRecord } from '../participant/updates.js';
import {
  GetPreferredPackagesRequestSchema,
  JsExecuteSubmissionAndWaitForTransactionRequestSchema,
  JsExecuteSubmissionRequestSchema,
  JsPrepareSubmissionRequestSchema,
  type JsExecuteSubmissionRequest,
  type MinLedgerTime,
} from '../../ledger-client/schemas/interactive-submission.js';
import { preferredPackage } from '../participant/interactive/preferred-packages.js';

export const interactiveSubmissionRoutes: RouteModule = (app) => {
  app.post('/v2/interactive-submission/prepare', async (c) => {
    const engine: LedgerEngine = c.get('engine');
    const claims: Claims = c.get('claims');
    const req = await decodeBody(c, JsPrepareSubmissionRequestSchema);
    const commands = parseCommands(req, '');
    const userId = resolveUserId(claims, req.userId);
    if (req.commandId === '') throw errors.missingField('command_id');
    if (req.actAs.length === 0) throw errors.missingField('act_as');
    if (commands.length === 0) throw errors.missingField('commands');
    // At preparation time the actAs parties only read (getPreparedSubmissionClaims).
    requireReadAs(claims, [...req.actAs, ...req.readAs]);
    if (req.hashingSchemeVersion === 'HASHING_SCHEME_VERSION_V3') {
      throw errors.invalidField('hashing_scheme_version', 'HASHING_SCHEME_VERSION_V3 is not supported by this participant, use HASHING_SCHEME_VERSION_V2');
    }
    checkSynchronizer(engine, req.synchronizerId);
    let maxRecordTimeMicros: bigint | undefined;
    if (req.maxRecordTime !== undefined) {
      maxRecordTimeMicros = parseInstant(req.maxRecordTime);
      if (maxRecordTimeMicros === undefined) throw errors.invalidField('max_record_time', `Invalid timestamp: ${req.maxRecordTime}`);
    }
    const minLedgerTimeMicros = minLedgerTimeOf(engine, req.minLedgerTime);
    const result = engine.interactive.prepare({
      submission: {
        userId,
        actAs: [...new Set(req.actAs)],
        readAs: [...new Set(req.readAs)],
        commandId: req.commandId,
        workflowId: '',
        submissionId: '',
        commands,
        disclosedContracts: req.disclosedContracts,
      },
      ...(minLedgerTimeMicros !== undefined ? { minLedgerTimeMicros } : {}),
      ...(maxRecordTimeMicros !== undefined ? { maxRecordTimeMicros } : {}),
      verboseHashing: req.verboseHashing,
    });
    return c.json({
      preparedTransaction: result.preparedTransaction.toString('base64'),
      preparedTransactionHash: result.hash.toString('base64'),
      hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
      // Option fields: Canton's JSON writes None as null (no traffic cost estimation here).
      hashingDetails: result.hashingDetails ?? null,
      costEstimation: null,
    });
  });

  app.post('/v2/interactive-submission/execute', async (c) => {
    execute(c, await decodeBody(c, JsExecuteSubmissionRequestSchema));
    return c.json({});
  });

  app.post('/v2/interactive-submission/executeAndWait', async (c) => {
    const tx = execute(c, await decodeBody(c, JsExecuteSubmissionRequestSchema));
    return c.json({ updateId: tx.updateId, completionOffset: tx.offset });
  });

  app.post('/v2/interactive-submission/executeAndWaitForTransaction', async (c) => {
    const engine: LedgerEngine = c.get('engine');
    const req = await decodeBody(c, JsExecuteSubmissionAndWaitForTransactionRequestSchema);
    const format = req.transactionFormat;
    // Validate the format before executing, so a bad format changes nothing.
    const filter = format ? compileEventFormat(engine, format.eventFormat, 'transactionFormat.eventFormat') : undefined;
    if (filter) requireReadAs(c.get('claims'), filter.parties);
    const tx = execute(c, req);
    const shape = format ? shapeOf(format.transactionShape) : 'ACS_DELTA';
    const transaction = transactionJson(engine, tx, filter ?? wildcardFilterFor(tx.actAs), shape) ?? emptyTransaction(tx);
    return c.json({ transaction });
  });

  app.get('/v2/interactive-submission/preferred-package-version', (c) => {
    const engine: LedgerEngine = c.get('engine');
    const name = c.req.query('package-name');
    if (name === undefined) throw errors.missingField('package_name');
    const synchronizerId = c.req.query('synchronizer-id') ?? '';
    checkSynchronizer(engine, synchronizerId);
    const ref = preferredPackage(engine, name, c.req.queries('parties') ?? []);
    return c.json({ packagePreference: { packageReference: ref, synchronizerId: engine.synchronizerId } });
  });

  app.post('/v2/interactive-submission/preferred-packages', async (c) => {
    const engine: LedgerEngine = c.get('engine');
    const req = await decodeBody(c, GetPreferredPackagesRequestSchema);
    if (req.packageVettingRequirements.length === 0) throw errors.missingField('package_vetting_requirements');
    checkSynchronizer(engine, req.synchronizerId);
    // All checked before answering, as Canton resolves the whole request at once.
    const packageReferences = req.packageVettingRequirements.map((r) => preferredPackage(engine, r.packageName, r.parties));
    return c.json({ packageReferences, synchronizerId: engine.synchronizerId });
  });
};

function execute(c: Context, req: JsExecuteSubmissionRequest): TransactionRecord {
  const engine: LedgerEngine = c.get('engine');
  const claims: Claims = c.get('claims');
  if (req.submissionId !== '') c.set('correlationId', req.submissionId);
  const userId = resolveUserId(claims, req.userId);
  if (req.submissionId === '') throw errors.missingField('submission_id');
  if (req.hashingSchemeVersion !== 'HASHING_SCHEME_VERSION_V2') {
    throw errors.invalidField('hashing_scheme_version', `${req.hashingSchemeVersion} is not supported, use HASHING_SCHEME_VERSION_V2`);
  }
  if (req.preparedTransaction === '') throw errors.missingField('prepared_transaction');
  const deduplication = deduplicationOf(req.deduplicationPeriod);
  return engine.interactive.execute(
    {
      preparedTransaction: Buffer.from(req.preparedTransaction, 'base64'),
      signatures: req.partySignatures.signatures,
      submissionId: req.submissionId,
      userId,
      ...(deduplication ? { deduplication } : {}),
    },
    (actAs) => {
      for (const p of actAs) {
        if (!canExecuteAs(claims, p)) throw errors.permissionDenied(`Claims do not authorize to execute as party '${p}'`);
      }
    },
  );
}

function checkSynchronizer(engine: LedgerEngine, synchronizerId: string): void {
  if (synchronizerId === '' || synchronizerId === engine.synchronizerId) return;
  if (!synchronizerId.includes('::')) {
    throw errors.invalidField('synchronizer_id', `Invalid unique identifier \`${synchronizerId}\` with missing namespace.`);
  }
  throw new LedgerApiError(
    'INVALID_PRESCRIBED_SYNCHRONIZER_ID',
    `Cannot submit transaction to prescribed synchronizer \`${synchronizerId}\` because: the participant is not connected to it`,
  );
}

function minLedgerTimeOf(engine: LedgerEngine, m: MinLedgerTime | undefined): bigint | undefined {
  const t = m?.time;
  if (!t || 'Empty' in t) return undefined;
  if ('MinLedgerTimeAbs' in t) {
    const micros = parseInstant(t.MinLedgerTimeAbs.value);
    if (micros === undefined) throw errors.invalidField('min_ledger_time_abs', `Invalid timestamp: ${t.MinLedgerTimeAbs.value}`);
    return micros;
  }
  const d = t.MinLedgerTimeRel.value;
  return engine.clock.nowMicros() + BigInt(d.seconds) * 1_000_000n + BigInt(Math.floor(d.nanos / 1000));
}
