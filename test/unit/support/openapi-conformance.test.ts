// Tests of the conformance harness itself, against the real official spec files in ../shared/specs.
// Every assertion here must be able to fail: each "passes" case has a sibling "fails" case that
// differs in exactly the property under test.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  SPECS,
  createSpecValidator,
  expectConformant,
  specPath,
  specsDir,
} from '../../support/openapi-conformance.js';

const ledger = () => createSpecValidator(SPECS.ledgerApi35);
const metadata = () => createSpecValidator(SPECS.tokenMetadataV1);

const json = (body: unknown) => ({ contentType: 'application/json', body: JSON.stringify(body) });

/** A GET /v2/version body shaped like a 3.5 participant's answer (openapi.yaml `GetLedgerApiVersionResponse`). */
function versionBody(): Record<string, unknown> {
  return {
    version: '3.5.10',
    features: {
      experimental: {
        staticTime: { supported: false },
        commandInspectionService: { supported: true },
      },
      userManagement: { supported: true, maxRightsPerUser: 1000, maxUsersPageSize: 1000 },
      partyManagement: { maxPartiesPageSize: 10000 },
      offsetCheckpoint: {
        maxOffsetCheckpointEmissionDelay: { seconds: 75, nanos: 0, unknownFields: { fields: {} } },
      },
      packageFeature: { maxVettedPackagesPageSize: 100 },
    },
  };
}

/** A full JsCantonError as Canton writes it (`JsSchema.scala`), None fields as null. */
function cantonError(): Record<string, unknown> {
  return {
    code: 'USER_NOT_FOUND',
    cause: 'getting user failed for unknown user "alice"',
    correlationId: null,
    traceId: null,
    context: { participant: 'participant1', category: '11', definite_answer: 'false' },
    resources: [['USER', 'alice']],
    errorCategory: 11,
    grpcCodeValue: 5,
    retryInfo: null,
    definiteAnswer: null,
  };
}

describe('spec location', () => {
  it('finds the shared specs next to the project, and honours SHARED_SPECS_DIR', () => {
    expect(existsSync(specPath(SPECS.ledgerApi35))).toBe(true);
    expect(specsDir()).toMatch(/shared[/\\]specs[/\\]?$/);
    const saved = process.env.SHARED_SPECS_DIR;
    try {
      process.env.SHARED_SPECS_DIR = '/elsewhere/specs';
      expect(specPath('token-standard/x.yaml')).toBe('/elsewhere/specs/token-standard/x.yaml');
    } finally {
      if (saved === undefined) delete process.env.SHARED_SPECS_DIR;
      else process.env.SHARED_SPECS_DIR = saved;
    }
  });
});

describe('ledger API 3.5: operations and path matching', () => {
  it('lists the operations of the spec', () => {
    const ops = ledger().operations();
    expect(ops).toHaveLength(67); // README: 54 paths / 67 operations
    expect(ops).toContainEqual({ method: 'get', pathTemplate: '/v2/version', operationId: 'getV2Version' });
  });

  it('matches a concrete path against a template with a parameter', () => {
    const r = ledger().validateResponse({
      method: 'GET',
      path: '/v2/users/alice',
      status: 200,
      ...json({ user: { id: 'alice', primaryParty: '', isDeactivated: false, identityProviderId: '' } }),
    });
    expect(r.errors).toEqual([]);
    expect(r).toMatchObject({ ok: true, pathTemplate: '/v2/users/{user-id}', operation: 'getV2UsersUser-id', responseKey: '200' });
  });

  it('matches templates with a parameter in the middle, percent-encoded values and query strings', () => {
    const v = ledger();
    const rights = v.validateResponse({
      method: 'GET',
      path: '/v2/users/alice/rights?identity-provider-id=',
      status: 200,
      ...json({ rights: [{ kind: { CanActAs: { value: { party: 'alice::1220ab' } } } }] }),
    });
    expect(rights).toMatchObject({ ok: true, pathTemplate: '/v2/users/{user-id}/rights' });
    const party = v.validateResponse({
      method: 'GET',
      path: '/v2/parties/alice%3A%3A1220ab',
      status: 200,
      ...json({ partyDetails: [] }),
    });
    expect(party).toMatchObject({ ok: true, pathTemplate: '/v2/parties/{party}' });
  });

  it('prefers a literal segment over a parameter (/v2/parties/participant-id vs /v2/parties/{party})', () => {
    const v = ledger();
    const r = v.validateResponse({
      method: 'GET',
      path: '/v2/parties/participant-id',
      status: 200,
      ...json({ participantId: 'participant1::1220ab' }),
    });
    expect(r).toMatchObject({ ok: true, pathTemplate: '/v2/parties/participant-id', operation: 'getV2PartiesParticipant-id' });
    // GetPartiesResponse would accept `{}` (partyDetails is optional); GetParticipantIdResponse
    // requires participantId, so this proves the literal template was chosen.
    const wrong = v.validateResponse({ method: 'GET', path: '/v2/parties/participant-id', status: 200, ...json({}) });
    expect(wrong.ok).toBe(false);
  });

  it('reports an unknown path clearly', () => {
    const r = ledger().validateResponse({ method: 'GET', path: '/v2/no-such-endpoint', status: 200, ...json({}) });
    expect(r.ok).toBe(false);
    expect(r.operation).toBeUndefined();
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toContain('no path template');
    expect(r.errors[0]).toContain('/v2/no-such-endpoint');
  });

  it('reports a method the path does not document', () => {
    const r = ledger().validateResponse({ method: 'DELETE', path: '/v2/version', status: 200, ...json(versionBody()) });
    expect(r.ok).toBe(false);
    expect(r.errors[0]).toMatch(/method DELETE is not documented for \/v2\/version \(documented: GET\)/);
  });
});

describe('ledger API 3.5: bodies', () => {
  it('accepts a hand-written valid GET /v2/version body', () => {
    const r = ledger().validateResponse({ method: 'GET', path: '/v2/version', status: 200, ...json(versionBody()) });
    expect(r.errors).toEqual([]);
    expect(r).toMatchObject({ ok: true, operation: 'getV2Version', responseKey: '200' });
  });

  it('rejects a GET /v2/version body missing a required nested field', () => {
    const body = versionBody();
    delete (body.features as Record<string, unknown>).userManagement;
    const r = ledger().validateResponse({ method: 'GET', path: '/v2/version', status: 200, ...json(body) });
    expect(r.ok).toBe(false);
    expect(r.errors.join('\n')).toContain("must have required property 'userManagement'");
  });

  it('rejects an int32 field carrying a non-integer or a string', () => {
    const body = versionBody();
    (body.features as { partyManagement: unknown }).partyManagement = { maxPartiesPageSize: '10000' };
    const r = ledger().validateResponse({ method: 'GET', path: '/v2/version', status: 200, ...json(body) });
    expect(r.ok).toBe(false);
    expect(r.errors.join('\n')).toContain('/features/partyManagement/maxPartiesPageSize must be integer');
  });

  it('GET /v2/state/ledger-end: offset must be a JSON number, not a string', () => {
    const v = ledger();
    expect(v.validateResponse({ method: 'GET', path: '/v2/state/ledger-end', status: 200, ...json({ offset: 42 }) }).ok).toBe(true);
    const r = v.validateResponse({ method: 'GET', path: '/v2/state/ledger-end', status: 200, ...json({ offset: '42' }) });
    expect(r.ok).toBe(false);
    expect(r.errors.join('\n')).toMatch(/\/offset must be integer/);
    expect(r.errors.join('\n')).toContain('got "42"');
  });

  it('rejects a fractional number in an int64 field', () => {
    const r = ledger().validateResponse({ method: 'GET', path: '/v2/state/ledger-end', status: 200, ...json({ offset: 1.5 }) });
    expect(r.ok).toBe(false);
  });

  it('accepts a full JsCantonError with null optional fields for an error status (default response)', () => {
    const r = ledger().validateResponse({ method: 'GET', path: '/v2/users/alice', status: 404, ...json(cantonError()) });
    expect(r.errors).toEqual([]);
    expect(r).toMatchObject({ ok: true, responseKey: 'default' });
  });

  it('rejects a JsCantonError missing code', () => {
    const { code: _code, ...rest } = cantonError();
    const r = ledger().validateResponse({ method: 'GET', path: '/v2/users/alice', status: 404, ...json(rest) });
    expect(r.ok).toBe(false);
    expect(r.errors.join('\n')).toContain("must have required property 'code'");
  });

  it('rejects a JsCantonError whose context (Map_String) holds a non-string value', () => {
    const body = { ...cantonError(), context: { category: 11 } };
    const r = ledger().validateResponse({ method: 'GET', path: '/v2/users/alice', status: 404, ...json(body) });
    expect(r.ok).toBe(false);
    expect(r.errors.join('\n')).toContain('/context/category must be string');
  });

  it('rejects a JsCantonError resource that is not a 2-tuple', () => {
    const body = { ...cantonError(), resources: [['USER']] };
    const r = ledger().validateResponse({ method: 'GET', path: '/v2/users/alice', status: 404, ...json(body) });
    expect(r.ok).toBe(false);
    expect(r.errors.join('\n')).toContain('/resources/0 must NOT have fewer than 2 items');
  });

  it('checks oneOf wrappers: a known right kind passes, an unknown one fails', () => {
    const v = ledger();
    const ok = v.validateResponse({
      method: 'GET',
      path: '/v2/users/alice/rights',
      status: 200,
      ...json({ rights: [{ kind: { ParticipantAdmin: { value: {} } } }] }),
    });
    expect(ok.errors).toEqual([]);
    const bad = v.validateResponse({
      method: 'GET',
      path: '/v2/users/alice/rights',
      status: 200,
      ...json({ rights: [{ kind: { CanActAs: { value: {} } } }] }), // party missing
    });
    expect(bad.ok).toBe(false);
    expect(bad.errors.join('\n')).toContain('/rights/0/kind');
  });

  it('requires a JSON body to parse', () => {
    const r = ledger().validateResponse({ method: 'GET', path: '/v2/version', status: 200, contentType: 'application/json', body: '{"version":' });
    expect(r.ok).toBe(false);
    expect(r.errors[0]).toContain('not valid JSON');
  });

  it('accepts a list endpoint answering a JSON array, and rejects an object there', () => {
    const v = ledger();
    const ok = v.validateResponse({ method: 'POST', path: '/v2/commands/completions?limit=10', status: 200, ...json([]) });
    expect(ok.errors).toEqual([]);
    const bad = v.validateResponse({ method: 'POST', path: '/v2/commands/completions', status: 200, ...json({}) });
    expect(bad.ok).toBe(false);
    expect(bad.errors.join('\n')).toContain('(root) must be array');
  });
});

describe('ledger API 3.5: null for optional fields (the one documented relaxation)', () => {
  it('accepts null for a field not in required, by default for the ledger spec', () => {
    const v = ledger();
    expect(v.options.allowNullForOptional).toBe(true);
    const r = v.validateResponse({ method: 'GET', path: '/v2/state/ledger-end', status: 200, ...json({ offset: null }) });
    expect(r.errors).toEqual([]);
  });

  it('still rejects null for a required field', () => {
    const r = ledger().validateResponse({ method: 'GET', path: '/v2/users/alice', status: 404, ...json({ ...cantonError(), code: null }) });
    expect(r.ok).toBe(false);
    expect(r.errors.join('\n')).toContain('/code must be string');
  });

  it('rejects null for optional fields when the relaxation is switched off', () => {
    const strict = createSpecValidator(SPECS.ledgerApi35, { allowNullForOptional: false });
    expect(strict.options.allowNullForOptional).toBe(false);
    const r = strict.validateResponse({ method: 'GET', path: '/v2/users/alice', status: 404, ...json(cantonError()) });
    expect(r.ok).toBe(false);
    expect(r.errors.join('\n')).toContain('/correlationId must be string');
  });

  it('is off by default for non-ledger specs', () => {
    expect(metadata().options.allowNullForOptional).toBe(false);
  });
});

describe('ledger API 3.5: JSON JsCantonError with status 400 (the second documented relaxation)', () => {
  const invalidArgument = () => ({
    ...cantonError(),
    code: 'INVALID_ARGUMENT',
    cause: 'The submitted request has invalid arguments: filtersByParty and filtersForAnyParty cannot be empty simultaneously',
    context: { participant: 'participant1', category: '8', definite_answer: 'false' },
    resources: [],
    errorCategory: 8,
    grpcCodeValue: 3,
  });

  it('validates a JSON 400 against the default (JsCantonError) response, by default for the ledger spec', () => {
    const v = ledger();
    expect(v.options.jsonCantonErrorFor400).toBe(true);
    const r = v.validateResponse({ method: 'POST', path: '/v2/state/active-contracts', status: 400, ...json(invalidArgument()) });
    expect(r.errors).toEqual([]);
    expect(r).toMatchObject({ ok: true, responseKey: 'default' });
    expect(v.coverage()).toEqual([
      expect.objectContaining({ pathTemplate: '/v2/state/active-contracts', status: 400, responseKey: 'default', ok: true }),
    ]);
  });

  it('still fails a JSON 400 that is not a JsCantonError (no code)', () => {
    const { code: _code, ...noCode } = invalidArgument();
    const r = ledger().validateResponse({ method: 'POST', path: '/v2/state/active-contracts', status: 400, ...json(noCode) });
    expect(r.ok).toBe(false);
    expect(r.responseKey).toBe('default');
    expect(r.errors.join('\n')).toContain("must have required property 'code'");
  });

  it('still fails a JSON 400 with a wrongly typed field or a non-object body', () => {
    const v = ledger();
    const path = '/v2/commands/submit-and-wait';
    const badCategory = v.validateResponse({ method: 'POST', path, status: 400, ...json({ ...invalidArgument(), errorCategory: '8' }) });
    expect(badCategory.ok).toBe(false);
    expect(badCategory.errors.join('\n')).toContain('/errorCategory must be integer');
    const text = v.validateResponse({ method: 'POST', path, status: 400, contentType: 'application/json', body: '"Invalid value for: body"' });
    expect(text.ok).toBe(false);
    expect(text.errors.join('\n')).toContain('(root) must be object');
  });

  it('keeps validating a text/plain 400 against the documented 400 entry', () => {
    const r = ledger().validateResponse({
      method: 'POST',
      path: '/v2/state/active-contracts',
      status: 400,
      contentType: 'text/plain; charset=UTF-8',
      body: 'Invalid value for: body',
    });
    expect(r).toMatchObject({ ok: true, responseKey: '400' });
  });

  it('does not apply to other statuses: a text/plain error body under default still fails', () => {
    const r = ledger().validateResponse({ method: 'POST', path: '/v2/state/active-contracts', status: 404, contentType: 'text/plain', body: 'nope' });
    expect(r.ok).toBe(false);
    expect(r.errors[0]).toContain('"text/plain" is not documented for response "default"');
  });

  it('needs no relaxation for 413 (JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED): the spec lacks it, default applies', () => {
    const tooMany = {
      ...cantonError(),
      code: 'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED',
      cause: 'The number of matching elements (201) is greater than the node limit (200).',
      context: { participant: 'participant1', category: '2', definite_answer: 'false' },
      resources: [],
      errorCategory: 2,
      grpcCodeValue: 10,
      retryInfo: '1 second',
    };
    const strict = createSpecValidator(SPECS.ledgerApi35, { jsonCantonErrorFor400: false });
    for (const v of [ledger(), strict]) {
      const ok = v.validateResponse({ method: 'POST', path: '/v2/updates', status: 413, ...json(tooMany) });
      expect(ok.errors).toEqual([]);
      expect(ok.responseKey).toBe('default');
      const { code: _code, ...noCode } = tooMany;
      const bad = v.validateResponse({ method: 'POST', path: '/v2/updates', status: 413, ...json(noCode) });
      expect(bad.ok).toBe(false);
      expect(bad.errors.join('\n')).toContain("must have required property 'code'");
    }
  });

  it('is off by default for non-ledger specs', () => {
    expect(metadata().options.jsonCantonErrorFor400).toBe(false);
    expect(createSpecValidator(SPECS.scan).options.jsonCantonErrorFor400).toBe(false);
  });
});

describe('ledger API 3.5: status and content type', () => {
  it('accepts a text/plain 400 where the spec documents it', () => {
    const r = ledger().validateResponse({
      method: 'POST',
      path: '/v2/commands/submit-and-wait',
      status: 400,
      contentType: 'text/plain; charset=UTF-8',
      body: "Invalid value for: body (Missing required field at 'commandId')",
    });
    expect(r.errors).toEqual([]);
    expect(r).toMatchObject({ ok: true, responseKey: '400' });
  });

  it('rejects a JSON 400 where the spec documents text/plain, when the 400 relaxation is off', () => {
    const strict = createSpecValidator(SPECS.ledgerApi35, { jsonCantonErrorFor400: false });
    expect(strict.options.jsonCantonErrorFor400).toBe(false);
    const r = strict.validateResponse({ method: 'POST', path: '/v2/commands/submit-and-wait', status: 400, ...json(cantonError()) });
    expect(r.ok).toBe(false);
    expect(r.errors[0]).toContain('Content-Type "application/json" is not documented for response "400" (documented: text/plain)');
  });

  it('rejects a text/plain error body on a status answered by the JSON default response', () => {
    const r = ledger().validateResponse({ method: 'GET', path: '/v2/users/alice', status: 403, contentType: 'text/plain', body: 'denied' });
    expect(r.ok).toBe(false);
    expect(r.errors[0]).toContain('"text/plain" is not documented for response "default"');
  });

  it('requires a Content-Type when the response has a body', () => {
    const r = ledger().validateResponse({ method: 'GET', path: '/v2/version', status: 200, contentType: null, body: '{}' });
    expect(r.ok).toBe(false);
    expect(r.errors[0]).toContain('no Content-Type');
  });

  it('accepts an empty body where the spec documents none, and rejects a body there', () => {
    const v = ledger();
    expect(v.validateResponse({ method: 'GET', path: '/livez', status: 200, contentType: null, body: '' }).ok).toBe(true);
    const r = v.validateResponse({ method: 'GET', path: '/livez', status: 200, contentType: 'text/plain', body: 'ok' });
    expect(r.ok).toBe(false);
    expect(r.errors[0]).toContain('documents no body');
  });
});

describe('token standard: token-metadata-v1', () => {
  const info = { adminId: 'admin::1220ab', supportedApis: { 'splice-api-token-metadata-v1': 1 } };

  it('accepts a valid GetRegistryInfoResponse', () => {
    const r = metadata().validateResponse({ method: 'GET', path: '/registry/metadata/v1/info', status: 200, ...json(info) });
    expect(r.errors).toEqual([]);
    expect(r).toMatchObject({ ok: true, operation: 'getRegistryInfo' });
  });

  it('rejects a GetRegistryInfoResponse without adminId', () => {
    const r = metadata().validateResponse({
      method: 'GET',
      path: '/registry/metadata/v1/info',
      status: 200,
      ...json({ supportedApis: info.supportedApis }),
    });
    expect(r.ok).toBe(false);
    expect(r.errors.join('\n')).toContain("must have required property 'adminId'");
  });

  it('rejects a GetRegistryInfoResponse whose supportedApis versions are not int32', () => {
    const r = metadata().validateResponse({
      method: 'GET',
      path: '/registry/metadata/v1/info',
      status: 200,
      ...json({ ...info, supportedApis: { 'splice-api-token-metadata-v1': '1' } }),
    });
    expect(r.ok).toBe(false);
    expect(r.errors.join('\n')).toContain('/supportedApis/splice-api-token-metadata-v1 must be integer');
  });

  const instrument = {
    id: 'Amulet',
    name: 'Amulet',
    symbol: 'AMT',
    decimals: 10,
    supportedApis: { 'splice-api-token-metadata-v1': 1 },
    totalSupplyAsOf: '2025-01-27T15:30:36.430940Z',
  };

  it('checks an Instrument: int8 decimals, date-time, and no null for optional fields', () => {
    const v = metadata();
    const path = '/registry/metadata/v1/instruments/Amulet';
    expect(v.validateResponse({ method: 'GET', path, status: 200, ...json(instrument) }).errors).toEqual([]);
    expect(v.validateResponse({ method: 'GET', path, status: 200, ...json({ ...instrument, decimals: 300 }) }).errors.join('\n')).toContain(
      '/decimals must match format "int8"',
    );
    expect(v.validateResponse({ method: 'GET', path, status: 200, ...json({ ...instrument, totalSupplyAsOf: 'yesterday' }) }).ok).toBe(false);
    expect(v.validateResponse({ method: 'GET', path, status: 200, ...json({ ...instrument, totalSupply: null }) }).ok).toBe(false);
  });

  it('validates error responses referenced from components/responses', () => {
    const v = metadata();
    const path = '/registry/metadata/v1/instruments/Nope';
    expect(v.validateResponse({ method: 'GET', path, status: 404, ...json({ error: 'not found' }) })).toMatchObject({ ok: true, responseKey: '404' });
    expect(v.validateResponse({ method: 'GET', path, status: 404, ...json({ message: 'not found' }) }).ok).toBe(false);
    const undocumented = v.validateResponse({ method: 'GET', path, status: 409, ...json({ error: 'x' }) });
    expect(undocumented.ok).toBe(false);
    expect(undocumented.errors[0]).toContain('status 409 is not documented (documented: 200, 404, 500)');
  });
});

describe('Splice specs: cross-file refs, discriminators, nullable refs', () => {
  const scan = () => createSpecValidator(SPECS.scan);

  it('resolves error responses that live in common-external.yaml', () => {
    const v = scan();
    // POST /v0/events: "400": $ref ../../../../common/src/main/openapi/common-external.yaml#/components/responses/400
    const r = v.validateResponse({ method: 'POST', path: '/v0/events', status: 400, ...json({ error: 'bad page_size' }) });
    expect(r.errors).toEqual([]);
    expect(r.responseKey).toBe('400');
    const bad = v.validateResponse({ method: 'POST', path: '/v0/events', status: 400, ...json({}) });
    expect(bad.ok).toBe(false);
    expect(bad.errors.join('\n')).toContain("must have required property 'error'");
  });

  it('dispatches a oneOf on its discriminator value', () => {
    const v = scan();
    const path = '/v0/internal/reward-accounting-process/rounds/7/activity-totals';
    // Undetermined and CannotProvide have the same shape; a plain oneOf would reject both.
    expect(v.validateResponse({ method: 'GET', path, status: 200, ...json({ status: 'Undetermined' }) }).errors).toEqual([]);
    expect(v.validateResponse({ method: 'GET', path, status: 200, ...json({ status: 'Ok' }) }).ok).toBe(false); // Ok needs its fields
    const unknown = v.validateResponse({ method: 'GET', path, status: 200, ...json({ status: 'Maybe' }) });
    expect(unknown.ok).toBe(false);
    expect(unknown.errors.join('\n')).toContain('allowed: ["Ok","Undetermined","CannotProvide"]');
  });

  it('honours nullable on $ref properties, and only there', () => {
    const v = scan();
    const ok = v.validateResponse({
      method: 'GET',
      path: '/v0/events/1220ab',
      status: 200,
      ...json({ update: null, verdict: null, traffic_summary: null, app_activity_records: null }),
    });
    expect(ok.errors).toEqual([]);
    const bad = v.validateResponse({ method: 'GET', path: '/v0/events/1220ab', status: 200, ...json({ update: 'x' }) });
    expect(bad.ok).toBe(false);
  });

  it('strips a configured base path', () => {
    const v = createSpecValidator(SPECS.scan, { basePath: '/api/scan' });
    const r = v.validateResponse({
      method: 'GET',
      path: '/api/scan/v0/internal/reward-accounting-process/rounds/7/activity-totals',
      status: 200,
      ...json({ status: 'CannotProvide' }),
    });
    expect(r.errors).toEqual([]);
  });
});

describe('OpenAPI 3.0 conversion details (a small spec written to a temp dir)', () => {
  function tempSpec(schemas: string): string {
    const file = join(mkdtempSync(join(tmpdir(), 'oas-conv-')), 'spec.yaml');
    writeFileSync(
      file,
      [
        'openapi: 3.0.0',
        'info: {title: conversion test, version: "1"}',
        'paths:',
        '  /thing:',
        '    get:',
        '      operationId: getThing',
        '      responses:',
        '        "200":',
        '          description: ok',
        '          content:',
        '            application/json:',
        '              schema: {$ref: "#/components/schemas/Thing"}',
        'components:',
        '  schemas:',
        schemas,
      ].join('\n'),
    );
    return file;
  }

  it('maps nullable, boolean exclusiveMinimum and enums', () => {
    const v = createSpecValidator(
      tempSpec(
        [
          '    Thing:',
          '      type: object',
          '      required: [count, kind, label]',
          '      example: {count: 1}',
          '      x-vendor: ignored',
          '      properties:',
          '        count: {type: integer, minimum: 0, exclusiveMinimum: true}',
          '        kind: {type: string, enum: [a, b], nullable: true}',
          '        label: {type: string, nullable: true}',
          '        note: {type: string}',
        ].join('\n'),
      ),
    );
    const check = (body: unknown) => v.validateResponse({ method: 'GET', path: '/thing', status: 200, ...json(body) });
    expect(check({ count: 1, kind: null, label: null }).errors).toEqual([]);
    expect(check({ count: 1, kind: 'b', label: 'x' }).errors).toEqual([]);
    expect(check({ count: 0, kind: 'a', label: 'x' }).errors.join('\n')).toContain('/count must be > 0');
    expect(check({ count: 1, kind: 'c', label: 'x' }).ok).toBe(false);
    expect(check({ count: 1, kind: 'a', label: 'x', note: null }).errors.join('\n')).toContain('/note must be string');
  });

  it('fails loudly on a schema keyword it does not know', () => {
    const file = tempSpec(['    Thing:', '      type: object', '      patternProperties: {"^a": {type: string}}'].join('\n'));
    const v = createSpecValidator(file);
    expect(() => v.validateResponse({ method: 'GET', path: '/thing', status: 200, ...json({}) })).toThrow(
      /unsupported OpenAPI schema keyword "patternProperties"/,
    );
  });
});

describe('coverage', () => {
  it('records validated (method, template, status) and reports what was not exercised', () => {
    const v = ledger();
    expect(v.coverage()).toEqual([]);
    v.validateResponse({ method: 'GET', path: '/v2/version', status: 200, ...json(versionBody()) });
    v.validateResponse({ method: 'GET', path: '/v2/users/bob', status: 404, ...json(cantonError()) });
    v.validateResponse({ method: 'GET', path: '/v2/state/ledger-end', status: 200, ...json({ offset: 'x' }) }); // fails
    v.validateResponse({ method: 'GET', path: '/v2/nowhere', status: 200, ...json({}) }); // no operation: not recorded

    expect(v.coverage()).toEqual([
      { method: 'get', pathTemplate: '/v2/version', operationId: 'getV2Version', status: 200, responseKey: '200', ok: true },
      { method: 'get', pathTemplate: '/v2/users/{user-id}', operationId: 'getV2UsersUser-id', status: 404, responseKey: 'default', ok: true },
      { method: 'get', pathTemplate: '/v2/state/ledger-end', operationId: 'getV2StateLedger-end', status: 200, responseKey: '200', ok: false },
    ]);

    const implemented = [
      { method: 'GET', pathTemplate: '/v2/version' },
      { method: 'GET', pathTemplate: '/v2/users/{user-id}', status: 404 },
      { method: 'GET', pathTemplate: '/v2/users/{user-id}', status: 200 },
      { method: 'GET', pathTemplate: '/v2/state/ledger-end' }, // only a failing response: not covered
    ];
    expect(v.uncovered(implemented)).toEqual([implemented[2], implemented[3]]);
    expect(v.uncovered()).toHaveLength(67 - 2);

    // Coverage is per validator instance, even though the compiled spec is shared.
    expect(ledger().coverage()).toEqual([]);
    v.resetCoverage();
    expect(v.coverage()).toEqual([]);
  });
});

describe('expectConformant', () => {
  it('passes a conformant Response, returns the parsed body and leaves the Response readable', async () => {
    const v = ledger();
    const res = new Response(JSON.stringify(versionBody()), { status: 200, headers: { 'content-type': 'application/json' } });
    const body = await expectConformant(v, res, 'GET', '/v2/version');
    expect(body).toEqual(versionBody());
    expect(await res.json()).toEqual(versionBody());
    expect(v.coverage()).toHaveLength(1);
  });

  it('fails with a message listing the schema errors', async () => {
    const v = ledger();
    const res = new Response(JSON.stringify({ offset: '7' }), { status: 200, headers: { 'content-type': 'application/json' } });
    await expect(expectConformant(v, res, 'GET', '/v2/state/ledger-end')).rejects.toThrow(
      /does not conform to .*openapi-3\.5\.yaml:\n {2}- GET \/v2\/state\/ledger-end \(getV2StateLedger-end\) 200 application\/json: \/offset must be integer/,
    );
  });

  it('returns the text of a text/plain response', async () => {
    const res = new Response('Invalid value for: body', { status: 400, headers: { 'content-type': 'text/plain; charset=UTF-8' } });
    expect(await expectConformant(ledger(), res, 'POST', '/v2/commands/submit-and-wait')).toBe('Invalid value for: body');
  });
});
