/**
 * JsCantonError fields as Canton writes them (canton/errors.ts): every field present, null when
 * absent; correlationId is the submission id of a command submission (generated when the request
 * has none) and null elsewhere; retryInfo null without a retry delay; definiteAnswer null for
 * errors decoded from gRPC (the context keeps definite_answer), false for the JSON layer's own.
 */
import { describe, expect, it } from 'vitest';
import { buildEmulator } from '../../../../src/emulator/index.js';

const KEYS = ['code', 'cause', 'correlationId', 'traceId', 'context', 'resources', 'errorCategory', 'grpcCodeValue', 'retryInfo', 'definiteAnswer'];

describe('JsCantonError fields', () => {
  const { app, seeded, engine } = buildEmulator({ config: { logLevel: 'silent', port: 0, listMaxElements: 1 } });
  const alice = seeded!.parties[0]!.party;
  const post = async (path: string, body: unknown) => {
    const res = await app.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const archiveMissing = (extra: Record<string, unknown>) => ({
    commands: [{ ExerciseCommand: { templateId: '#splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:Token', contractId: `00${'ab'.repeat(68)}`, choice: 'Archive', choiceArgument: {} } }],
    commandId: 'c1',
    actAs: [alice],
    userId: 'participant_admin',
    ...extra,
  });

  it('a rejected submission carries its submission id as correlationId, retryInfo and definiteAnswer null', async () => {
    const r = await post('/v2/commands/submit-and-wait', archiveMissing({ submissionId: 'my-submission' }));
    expect(r.status).toBe(404);
    expect(Object.keys(r.body)).toEqual(KEYS);
    expect(r.body).toMatchObject({ code: 'CONTRACT_NOT_FOUND', correlationId: 'my-submission', retryInfo: null, definiteAnswer: null });
    expect((r.body.context as Record<string, string>).definite_answer).toBe('false');
  });

  it('without a submission id, a generated one (a UUID) is the correlationId', async () => {
    const r = await post('/v2/commands/submit-and-wait', archiveMissing({}));
    expect(r.body.correlationId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('other requests have no correlation id; a retryable category has its retryInfo', async () => {
    const r = await post('/v2/updates', { beginExclusive: 1_000_000, updateFormat: { includeTransactions: { eventFormat: { filtersByParty: { [alice]: {} }, verbose: false }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' } } });
    expect(Object.keys(r.body)).toEqual(KEYS);
    expect(r.body).toMatchObject({ code: 'OFFSET_AFTER_LEDGER_END', correlationId: null, retryInfo: '1 second', definiteAnswer: null });
  });

  it("the JSON layer's own 413 (list limit) says definiteAnswer false", async () => {
    const r = await post('/v2/state/active-contracts', { activeAtOffset: engine.ledgerEnd(), eventFormat: { filtersByParty: {}, filtersForAnyParty: { cumulative: [] }, verbose: false } });
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ code: 'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED', correlationId: null, retryInfo: '1 second', definiteAnswer: false });
  });
});
