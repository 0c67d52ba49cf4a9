import { describe, expect, it } from 'vitest';
import { LedgerApiError, renderJsCantonError, type ErrorCodeId } from '../../../src/canton/errors.js';
import { LedgerError, LedgerUnavailableError, errorFromResponse, hasCode, isRetryable } from '../../../src/ledger-client/errors.js';

const where = { method: 'POST', path: '/v2/events/events-by-contract-id' };

/** A body exactly as the emulator renders Canton's errors (`JsCantonError`, Canton `JsSchema.scala`). */
function cantonBody(code: ErrorCodeId, cause: string, opts: ConstructorParameters<typeof LedgerApiError>[2] = {}) {
  const err = new LedgerApiError(code, cause, opts);
  return { status: err.httpStatus, body: JSON.stringify(renderJsCantonError(err, { participant: 'participant1', traceId: 'ab'.repeat(16), correlationId: 'corr-1', tokenFailure: false })) };
}

describe('errorFromResponse', () => {
  it('parses a JsCantonError into a LedgerError with code, category and gRPC code', () => {
    const { status, body } = cantonBody('CONTRACT_EVENTS_NOT_FOUND', 'Contract events not found, or not visible.', {
      resources: [['CONTRACT_ID', '00ab']],
    });
    const e = errorFromResponse({ status, contentType: 'application/json', bodyText: body, ...where });
    expect(e).toBeInstanceOf(LedgerError);
    const le = e as LedgerError;
    expect(le).toMatchObject({
      status: 404,
      code: 'CONTRACT_EVENTS_NOT_FOUND',
      cause: 'Contract events not found, or not visible.',
      category: 11,
      grpcCode: 5,
      retryable: false,
      correlationId: 'corr-1',
      resources: [['CONTRACT_ID', '00ab']],
      method: 'POST',
      path: '/v2/events/events-by-contract-id',
    });
    expect(le.context.category).toBe('11');
    expect(le.message).toContain('CONTRACT_EVENTS_NOT_FOUND');
    expect(hasCode(le, 'X', 'CONTRACT_EVENTS_NOT_FOUND')).toBe(true);
  });

  it('reads a text/plain 400 (tapir decode failure) as BAD_REQUEST', () => {
    const text = "Invalid value for: body (Missing required field at 'contractId')";
    const e = errorFromResponse({ status: 400, contentType: 'text/plain; charset=UTF-8', bodyText: text, ...where }) as LedgerError;
    expect(e).toBeInstanceOf(LedgerError);
    expect(e).toMatchObject({ status: 400, code: 'BAD_REQUEST', cause: text, category: -1, grpcCode: undefined, retryable: false });
  });

  it('keeps the status as the code for other non-Canton bodies (Pekko 404/405)', () => {
    const e = errorFromResponse({ status: 405, contentType: 'text/plain', bodyText: 'HTTP method not allowed, supported methods: GET', ...where }) as LedgerError;
    expect(e.code).toBe('HTTP_405');
    expect(errorFromResponse({ status: 404, contentType: 'text/plain', bodyText: 'The requested resource could not be found.' })).toMatchObject({ code: 'HTTP_404' });
    // JSON that is not a JsCantonError (a gRPC-style body) is not mistaken for one
    expect(errorFromResponse({ status: 500, contentType: 'application/json', bodyText: '{"code":13,"message":"boom"}' })).toMatchObject({ code: 'HTTP_500' });
  });

  it('reads redacted errors (category -1) by their gRPC code', () => {
    const unauth = errorFromResponse({
      status: 401,
      contentType: 'application/json',
      bodyText: JSON.stringify({ code: 'NA', cause: 'A security-sensitive error has been received', context: {}, resources: [], errorCategory: -1, grpcCodeValue: 16 }),
    }) as LedgerError;
    expect(unauth).toMatchObject({ status: 401, code: 'NA', category: -1, grpcCode: 16, retryable: false });
    const unavailable = errorFromResponse({
      status: 409,
      contentType: 'application/json',
      bodyText: JSON.stringify({ code: 'NA', cause: 'x', context: {}, resources: [], errorCategory: -1, grpcCodeValue: 10 }),
    }) as LedgerError;
    expect(unavailable.retryable).toBe(true);
  });

  it('marks categories 1 and 2 retryable, but not the list-limit 413', () => {
    const contention = cantonBody('CONCURRENT_USER_UPDATE_DETECTED', 'x');
    expect((errorFromResponse({ ...contention, contentType: 'application/json', bodyText: contention.body }) as LedgerError).retryable).toBe(true);
    const limit = cantonBody('JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED', 'The number of matching elements (201) is greater than the node limit (200).', { httpStatus: 413 });
    const e = errorFromResponse({ ...limit, contentType: 'application/json', bodyText: limit.body }) as LedgerError;
    expect(e).toMatchObject({ status: 413, category: 2, retryable: false });
    expect(isRetryable(e)).toBe(false);
  });

  it('turns 502/503/504 into LedgerUnavailableError, keeping a Canton body and its retry hint', () => {
    const down = cantonBody('SERVICE_NOT_RUNNING', 'Ledger API server is shutting down');
    const e = errorFromResponse({ status: 503, contentType: 'application/json', bodyText: down.body, ...where }) as LedgerUnavailableError;
    expect(e).toBeInstanceOf(LedgerUnavailableError);
    expect(e).toMatchObject({ reason: 'status', status: 503, retryAfterSeconds: 1, retryable: true });
    expect(e.ledgerError?.code).toBe('SERVICE_NOT_RUNNING');
    expect(e.ledgerError?.category).toBe(1);

    const proxy = errorFromResponse({ status: 502, contentType: 'text/html', bodyText: '<html>Bad Gateway</html>', retryAfter: '7' }) as LedgerUnavailableError;
    expect(proxy).toBeInstanceOf(LedgerUnavailableError);
    expect(proxy).toMatchObject({ status: 502, retryAfterSeconds: 7, ledgerError: undefined });
    expect(isRetryable(proxy)).toBe(true);

    const gw = errorFromResponse({ status: 504, contentType: null, bodyText: '' }) as LedgerUnavailableError;
    expect(gw).toBeInstanceOf(LedgerUnavailableError);
    expect(
      (errorFromResponse({
        status: 503,
        contentType: 'application/json',
        bodyText: JSON.stringify({ code: 'X', cause: '', context: {}, errorCategory: 1, retryInfo: '2500 milliseconds' }),
      }) as LedgerUnavailableError).retryAfterSeconds,
    ).toBe(3);
  });

  it('tolerates missing optional fields and nulls in a JsCantonError', () => {
    const e = errorFromResponse({
      status: 400,
      contentType: 'application/json',
      bodyText: JSON.stringify({ code: 'INVALID_ARGUMENT', cause: null, errorCategory: 8, correlationId: null, retryInfo: null, extra: 1 }),
    }) as LedgerError;
    expect(e).toMatchObject({ code: 'INVALID_ARGUMENT', cause: '', category: 8, correlationId: undefined, context: {}, resources: [] });
  });
});
