/**
 * Command service: submit-and-wait (+ for-transaction, for-transaction-tree), async submit and
 * the completions list (openapi.yaml, `JsCommandService.scala`), and 3.6's completion-by-hash.
 *
 * Interpretation errors are returned synchronously by every submit endpoint, as Canton's
 * submission service interprets before it returns; only committed commands have completions.
 */
import type { Context } from 'hono';
import type { z } from 'zod';
import { formatInstant } from '../../canton/clock.js';
import type { RouteModule } from './route-module.js';
import { decodeBody, decodeValue, readJsonBody } from './decode.js';
import { compileEventFormat, invalidIdentifier, shapeOf, transactionEnvelope, transactionJson, transactionTreeJson, wildcardFilterFor } from './events.js';
import { listOf, listParams } from './lists.js';
import type { LogStream, StreamOpener } from './streams.js';
import { canReadAs, requireActAs, requireReadAs, requireReadAsAnyParty, userIdOf, type Claims } from '../participant/claims.js';
import type { Deduplication, EngineCommand, Submission } from '../participant/commands.js';
import type { LedgerEngine } from '../participant/engine.js';
import { errors, LedgerApiError } from '../../canton/errors.js';
import { parseIdRef, type IdRef } from '../participant/identifiers.js';
import type { TransactionRecord } from '../participant/updates.js';
import {
  CompletionStreamRequestSchema,
  GetCompletionByHashRequestSchema,
  GetCompletionsRequestSchema,
  JsCommandsSchema,
  JsSubmitAndWaitForTransactionRequestSchema,
  type JsCommands,
} from '../../ledger-client/schemas/commands.js';

export const commandRoutes: RouteModule = (app) => {
  app.post('/v2/commands/submit-and-wait', async (c) => {
    const tx = submit(c, await decodeBody(c, JsCommandsSchema), '');
    return c.json({ updateId: tx.updateId, completionOffset: tx.offset });
  });

  app.post('/v2/commands/async/submit', async (c) => {
    submit(c, await decodeBody(c, JsCommandsSchema), '');
    return c.json({});
  });

  app.post('/v2/commands/submit-and-wait-for-transaction', async (c) => {
    const engine = c.get('engine');
    const req = await decodeBody(c, JsSubmitAndWaitForTransactionRequestSchema);
    // Validate the format before submitting, so a bad format changes nothing.
    const format = req.transactionFormat;
    const filter = format
      ? compileEventFormat(engine, format.eventFormat, 'transactionFormat.eventFormat')
      : wildcardFilterFor([...req.commands.actAs, ...req.commands.readAs]);
    const shape = format ? shapeOf(format.transactionShape) : 'ACS_DELTA';
    if (format) requireReadAs(c.get('claims'), filter.parties);
    const tx = submit(c, req.commands, 'commands.');
    const transaction = transactionJson(engine, tx, filter, shape) ?? emptyTransaction(tx);
    return c.json({ transaction });
  });

  app.post('/v2/commands/submit-and-wait-for-transaction-tree', async (c) => {
    const engine = c.get('engine');
    const cmds = await decodeBody(c, JsCommandsSchema);
    const tx = submit(c, cmds, '');
    const filter = wildcardFilterFor([...cmds.actAs, ...cmds.readAs]);
    const tree = transactionTreeJson(engine, tx, filter) ?? { ...emptyTransaction(tx), eventsById: {} };
    return c.json({ transactionTree: tree });
  });

  app.post('/v2/commands/completions', async (c) => {
    return c.json(await listOf(c.get('engine'), c.get('claims'), openCompletions(c.get('engine'), c.get('claims'), await readJsonBody(c)), listParams(c)));
  });

  app.post('/v2/commands/completion-by-hash', async (c) => {
    const req = await decodeBody(c, GetCompletionByHashRequestSchema);
    return c.json(completionByHash(c.get('engine'), c.get('claims'), req.transactionHash));
  });

  app.post('/v2/commands/command-completions', async (c) => {
    return c.json(await listOf(c.get('engine'), c.get('claims'), openCommandCompletions(c.get('engine'), c.get('claims'), await readJsonBody(c)), listParams(c)));
  });
};

/** `/v2/commands/completions`: the completions of one user's commands, for `parties`. */
export const openCompletions: StreamOpener = (engine, claims, body) => {
  const req = decodeValue(body, CompletionStreamRequestSchema);
  const userId = resolveUserId(claims, req.userId);
  if (req.parties.length === 0) throw errors.missingField('parties');
  requireReadAs(claims, req.parties);
  return completionStream(engine, { userId, parties: new Set(req.parties), beginExclusive: req.beginExclusive });
};

/** 3.5.7 `/v2/commands/command-completions`: completions of every user; `parties` optional (none = every party, for ReadAsAnyParty). */
export const openCommandCompletions: StreamOpener = (engine, claims, body) => {
  const req = decodeValue(body, GetCompletionsRequestSchema);
  if (req.parties.length === 0) requireReadAsAnyParty(claims);
  else requireReadAs(claims, req.parties);
  return completionStream(engine, { parties: req.parties.length === 0 ? undefined : new Set(req.parties), beginExclusive: req.beginExclusive });
};

/** The completions of committed commands after `beginExclusive` (an open-ended stream). */
function completionStream(engine: LedgerEngine, q: { userId?: string; parties?: ReadonlySet<string>; beginExclusive: number }): LogStream {
  if (q.beginExclusive < 0) {
    throw new LedgerApiError('NEGATIVE_OFFSET', `Offset ${q.beginExclusive} in begin_exclusive is a negative integer: the offset has to be either a positive integer or zero`);
  }
  const end = engine.readableEnd();
  if (q.beginExclusive > end) throw errors.offsetAfterLedgerEnd('Begin', q.beginExclusive, end);
  const completionOf = (tx: TransactionRecord): unknown[] => {
    // Only the submitting participant reports a completion.
    if (tx.submittingParticipant !== undefined) return [];
    if (q.userId !== undefined && tx.userId !== q.userId) return [];
    const actAs = q.parties ? tx.actAs.filter((p) => q.parties!.has(p)) : tx.actAs;
    if (actAs.length === 0) return [];
    return [{ completionResponse: { Completion: { value: completionJson(tx, actAs) } } }];
  };
  return { kind: 'log', beginExclusive: q.beginExclusive, descending: false, render: completionOf };
}

/** The (accepted) completion of a committed command, reported for `actAs`. */
function completionJson(tx: TransactionRecord, actAs: string[]): Record<string, unknown> {
  return {
    commandId: tx.commandId,
    status: { code: 0, message: '', details: [] },
    updateId: tx.updateId,
    userId: tx.userId,
    actAs,
    submissionId: tx.submissionId,
    deduplicationPeriod: { Empty: {} },
    traceContext: null,
    offset: tx.offset,
    synchronizerTime: { synchronizerId: tx.synchronizerId, recordTime: formatInstant(tx.recordTimeMicros) },
    paidTrafficCost: Number(tx.paidTrafficCost ?? 0n),
  };
}

/**
 * 3.6 `completion-by-hash`: the completion of the interactive submission whose prepared-transaction
 * hash is given. Canton's authorizer fills the parties in from the caller's read-as/act-as claims
 * (a ReadAsAnyParty caller sees every completion; a caller with neither is PERMISSION_DENIED,
 * AuthorizationError.NoReadableParties), and a completion is visible when one of its
 * act-as parties is among them (digital-asset/canton: community/ledger/ledger-api-core/.../auth/services/
 * CommandCompletionServiceAuthorization.scala, getCompletionByHash with RequiredClaim.MatchReadAsParties;
 * .../apiserver/services/ApiCommandCompletionService.scala; .../platform/index/IndexServiceImpl.scala).
 * An empty hash is INVALID_ARGUMENT "Missing field: transaction_hash" (CompletionServiceRequestValidator);
 * none found is COMPLETION_NOT_FOUND with the hash in hex. The emulator keeps no rejected completions
 * (a rejected submission is answered synchronously), so `lastRejectedCompletions` is always empty.
 */
function completionByHash(engine: LedgerEngine, claims: Claims, transactionHash: string): Record<string, unknown> {
  // Authorizer.scala's MatchReadAsParties runs before the service validates the request.
  if (claims.kind === 'user' && !claims.readAsAnyParty && claims.actAs.size === 0 && claims.readAs.size === 0) {
    throw errors.permissionDenied('Claims do not authorize reading data: neither a read-as-any-party wildcard nor any party-specific read/act claim is present');
  }
  const hash = Buffer.from(transactionHash, 'base64');
  if (hash.length === 0) throw errors.invalidArgument('Missing field: transaction_hash');
  const tx = engine.updates.byExternalHash(hash.toString('base64'));
  const visible = (p: string) => canReadAs(claims, p);
  const actAs = tx && tx.submittingParticipant === undefined ? tx.actAs.filter(visible) : [];
  if (!tx || actAs.length === 0) {
    throw new LedgerApiError('COMPLETION_NOT_FOUND', 'Completion not found, or not visible.', {
      resources: [['TRANSACTION_HASH', hash.toString('hex')]],
    });
  }
  return { acceptedCompletion: completionJson(tx, actAs), lastRejectedCompletions: [] };
}

export function emptyTransaction(tx: TransactionRecord): Record<string, unknown> {
  return transactionEnvelope(tx, tx.commandId, []);
}

/** The submitting user: the token's user, or the body's `userId` when auth is off (Canton `AuthServiceWildcard`). */
export function resolveUserId(claims: Claims, bodyUserId: string): string {
  const tokenUser = userIdOf(claims);
  if (tokenUser === undefined) {
    if (bodyUserId === '') {
      throw new LedgerApiError(
        'INVALID_TOKEN',
        'The submitted request has invalid arguments: Cannot default user_id field because no user id was found in the token and none was provided in the request',
      );
    }
    return bodyUserId;
  }
  if (bodyUserId !== '' && bodyUserId !== tokenUser) {
    throw errors.permissionDenied(`user_id '${bodyUserId}' does not match the user of the token '${tokenUser}'`);
  }
  return tokenUser;
}

function submit(c: Context, cmds: JsCommands, prefix: string): TransactionRecord {
  const engine: LedgerEngine = c.get('engine');
  const claims: Claims = c.get('claims');
  // Canton fills an empty submission id with a fresh UUID; an error of this submission carries it
  // as its correlationId (what a client correlates with the completion).
  const submissionId = cmds.submissionId !== '' ? cmds.submissionId : engine.ids.uuid();
  c.set('correlationId', submissionId);
  const commands = parseCommands(cmds, prefix);
  const userId = resolveUserId(claims, cmds.userId);
  if (cmds.commandId === '') throw errors.missingField('command_id');
  if (cmds.actAs.length === 0) throw errors.missingField('act_as');
  if (commands.length === 0) throw errors.missingField('commands');
  requireActAs(claims, cmds.actAs);
  requireReadAs(claims, cmds.readAs);
  const submission: Submission = {
    userId,
    actAs: [...new Set(cmds.actAs)],
    readAs: [...new Set(cmds.readAs)],
    commandId: cmds.commandId,
    workflowId: cmds.workflowId,
    submissionId,
    commands,
    disclosedContracts: cmds.disclosedContracts,
    deduplication: deduplicationOf(cmds.deduplicationPeriod),
  };
  return engine.commands.submit(submission);
}

export function deduplicationOf(p: z.infer<typeof JsCommandsSchema>['deduplicationPeriod']): Deduplication | undefined {
  if (!p || 'Empty' in p) return undefined;
  if ('DeduplicationDuration' in p) {
    const d = p.DeduplicationDuration.value;
    if (d.seconds < 0 || d.nanos < 0) {
      throw new LedgerApiError('INVALID_DEDUPLICATION_PERIOD', 'The submitted command had an invalid deduplication period: The deduplication duration must be non-negative');
    }
    return { kind: 'duration', micros: BigInt(d.seconds) * 1_000_000n + BigInt(Math.floor(d.nanos / 1000)) };
  }
  return { kind: 'offset', offset: p.DeduplicationOffset.value };
}

export function parseCommands(cmds: Pick<JsCommands, 'commands'>, prefix: string): EngineCommand[] {
  return cmds.commands.map((cmd, i): EngineCommand => {
    const ref = (id: string, kind: string): IdRef => {
      const r = parseIdRef(id);
      if (!r) throw invalidIdentifier(id, `${prefix}commands[${i}].${kind}.templateId`);
      return r;
    };
    if ('CreateCommand' in cmd) {
      return { kind: 'create', template: ref(cmd.CreateCommand.templateId, 'CreateCommand'), createArguments: cmd.CreateCommand.createArguments };
    }
    if ('ExerciseCommand' in cmd) {
      const e = cmd.ExerciseCommand;
      return { kind: 'exercise', template: ref(e.templateId, 'ExerciseCommand'), contractId: e.contractId, choice: e.choice, choiceArgument: e.choiceArgument ?? {} };
    }
    if ('CreateAndExerciseCommand' in cmd) {
      const e = cmd.CreateAndExerciseCommand;
      return {
        kind: 'createAndExercise',
        template: ref(e.templateId, 'CreateAndExerciseCommand'),
        createArguments: e.createArguments,
        choice: e.choice,
        choiceArgument: e.choiceArgument ?? {},
      };
    }
    const e = cmd.ExerciseByKeyCommand;
    return { kind: 'exerciseByKey', template: ref(e.templateId, 'ExerciseByKeyCommand'), contractKey: e.contractKey, choice: e.choice, choiceArgument: e.choiceArgument ?? {} };
  });
}
