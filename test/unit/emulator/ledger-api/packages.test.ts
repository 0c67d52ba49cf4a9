import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { createLedgerApiApp } from '../../../../src/emulator/ledger-api/routes.js';
import { packagesRoutes } from '../../../../src/emulator/ledger-api/packages.js';
import type { Claims } from '../../../../src/emulator/participant/claims.js';
import { userClaims } from '../../../support/ledger-fixtures.js';
import { LedgerEngine } from '../../../../src/emulator/participant/engine.js';
import { archiveBytes, buildDalf, buildDar, buildManifest, buildRawDar, type DarSpec } from '../../../support/dar-builder.js';
import { ListVettedPackagesResponseSchema } from '../../../../src/ledger-client/schemas/packages.js';
import { cantonError } from '../../../support/ledger-wire.js';

function spec(version = '1.0.0', extra = false): DarSpec {
  return {
    name: 'pay',
    version,
    modules: [
      {
        name: 'Pay',
        templates: [{ name: 'Invoice', fields: extra ? [['payer', 'Party'], ['memo', 'Text']] : [['payer', 'Party']], choices: [{ name: 'Settle' }] }],
      },
    ],
    dependencies: [{ name: 'pay-api', version: '0.1.0', modules: [{ name: 'Api', dataTypes: [{ name: 'Amount', record: [['value', 'Numeric 10']] }] }] }],
  };
}

function setup(claims?: Claims) {
  const engine = new LedgerEngine({ seed: 'test' });
  const app = createLedgerApiApp(
    { engine, ...(claims ? { authenticate: async () => claims } : {}) },
    [packagesRoutes],
  );
  return { engine, app };
}

const user: Claims = userClaims('alice');

const json = async (r: Response): Promise<unknown> => r.json();

const post = (body: Uint8Array | string, headers: Record<string, string> = {}) => ({ method: 'POST', body, headers });

const openapi = parse(readFileSync(new URL('../../../../../shared/specs/ledger-api/openapi-3.5.yaml', import.meta.url), 'utf8'));
const ajv = new Ajv({ strict: false, validateFormats: false });
ajv.addSchema({ components: openapi.components }, 'spec');
function conforms(schema: string, value: unknown): void {
  const validate = ajv.compile({ $ref: `spec#/components/schemas/${schema}` });
  // circe writes an absent optional field as null (e.g. JsCantonError's correlationId, retryInfo),
  // which the spec leaves unmarked; an optional null is checked as absent
  const present = value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null)) : value;
  expect(validate(present), JSON.stringify(validate.errors)).toBe(true);
}

describe('POST /v2/dars and /v2/packages', () => {
  it('uploads a DAR given as raw bytes without a content type, answering {}', async () => {
    const { app, engine } = setup();
    const dar = buildDar(spec());
    const res = await app.request('/v2/dars', post(dar.bytes));
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({});
    expect(engine.packages.list()).toEqual(dar.packageIds);

    const list = await app.request('/v2/packages');
    const body = await json(list);
    expect(body).toEqual({ packageIds: dar.packageIds });
    conforms('ListPackagesResponse', body);
  });

  it('accepts the legacy path, any content type, and re-uploads idempotently', async () => {
    const { app, engine } = setup();
    const dar = buildDar(spec());
    for (const path of ['/v2/packages', '/v2/dars?vetAllPackages=true', '/v2/dars']) {
      const res = await app.request(path, post(dar.bytes, { 'content-type': 'application/octet-stream' }));
      expect(res.status).toBe(200);
    }
    expect(engine.packages.list()).toHaveLength(2);
  });

  it('answers a non-zip body with a 400 JsCantonError and stores nothing', async () => {
    const { app, engine } = setup();
    const res = await app.request('/v2/dars', post('this is not a dar', { 'content-type': 'application/json' }));
    expect(res.status).toBe(400);
    const body = await json(res);
    // Canton's ZipInputStream finds no entries in a non-zip body, so the missing manifest
    // makes it INVALID_DAR ("Dar file is corrupt"), of the DAR reading error group.
    expect(body).toMatchObject({ code: 'INVALID_DAR', cause: 'Dar file is corrupt', errorCategory: 8, grpcCodeValue: 3 });
    expect(cantonError(body).context).toMatchObject({ category: '8', entries: 'List()' });
    conforms('JsCantonError', body);
    expect(engine.packages.list()).toEqual([]);
  });

  it('answers a tampered archive with DAR_PARSE_ERROR and a truncated zip likewise', async () => {
    const { app, engine } = setup();
    const dalf = buildDalf(spec());
    const tampered = buildRawDar(buildManifest([['Main-Dalf', 'a.dalf'], ['Dalfs', 'a.dalf'], ['Format', 'daml-lf']]), [
      { path: 'a.dalf', bytes: archiveBytes(dalf.payload, 'b'.repeat(64)) },
    ]);
    const res = await app.request('/v2/dars', post(tampered));
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body).toMatchObject({ code: 'DAR_PARSE_ERROR', cause: 'Failed to parse the dar file content.' });
    expect(Object.keys(cantonError(body).context)).toContain(`Mismatching hashes! Expected ${dalf.packageId} but got ${'b'.repeat(64)}`);

    const full = buildDar(spec()).bytes;
    const truncated = await app.request('/v2/dars', post(full.subarray(0, full.length >> 1)));
    expect(truncated.status).toBe(400);
    expect(cantonError(await json(truncated)).code).toBe('DAR_PARSE_ERROR');
    expect(engine.packages.list()).toEqual([]);
  });

  it('requires ParticipantAdmin: a plain user gets the redacted 403', async () => {
    const { app, engine } = setup(user);
    const res = await app.request('/v2/dars', post(buildDar(spec()).bytes));
    expect(res.status).toBe(403);
    expect(await json(res)).toMatchObject({
      code: 'NA',
      cause: 'A security-sensitive error has been received',
      errorCategory: -1,
      grpcCodeValue: 7,
      context: {},
      resources: [],
    });
    expect(engine.packages.list()).toEqual([]);
    expect((await app.request('/v2/dars/validate', post(buildDar(spec()).bytes))).status).toBe(403);
    // reading is public
    expect((await app.request('/v2/packages')).status).toBe(200);
  });

  it('rejects a bad vetAllPackages with the plain-text 400 and honours false', async () => {
    const { app, engine } = setup();
    const dar = buildDar(spec());
    const bad = await app.request('/v2/dars?vetAllPackages=maybe', post(dar.bytes));
    expect(bad.status).toBe(400);
    expect(await bad.text()).toBe('Invalid value for: query parameter vetAllPackages');
    const ok = await app.request('/v2/dars?vetAllPackages=false', post(dar.bytes));
    expect(ok.status).toBe(200);
    expect(engine.packages.isVetted(dar.mainPackageId)).toBe(false);
  });

  it('accepts the participant synchronizer id and refuses another', async () => {
    const { app, engine } = setup();
    const dar = buildDar(spec());
    const sync = encodeURIComponent(engine.synchronizerId);
    expect((await app.request(`/v2/dars?synchronizerId=${sync}`, post(dar.bytes))).status).toBe(200);
    const other = await app.request('/v2/dars?synchronizerId=other::1220ab', post(dar.bytes));
    expect(other.status).toBe(400);
    expect(cantonError(await json(other)).code).toBe('INVALID_ARGUMENT');
  });

  it('rejects a second package with the same name and version (KNOWN_PACKAGE_VERSION)', async () => {
    const { app, engine } = setup();
    const first = buildDar(spec('1.0.0'));
    const clash = buildDar(spec('1.0.0', true));
    expect((await app.request('/v2/dars', post(first.bytes))).status).toBe(200);
    const res = await app.request('/v2/dars', post(clash.bytes));
    expect(res.status).toBe(400);
    const body = cantonError(await json(res));
    expect(body.code).toBe('KNOWN_PACKAGE_VERSION');
    expect(body.cause).toContain(`${first.mainPackageId} (pay v1.0.0) and ${clash.mainPackageId} (pay v1.0.0)`);
    expect(engine.packages.has(clash.mainPackageId)).toBe(false);
  });
});

describe('POST /v2/dars/validate', () => {
  it('answers 200 with an empty body and stores nothing', async () => {
    const { app, engine } = setup();
    const res = await app.request('/v2/dars/validate', post(buildDar(spec()).bytes));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    expect(engine.packages.list()).toEqual([]);
    const bad = await app.request('/v2/dars/validate', post('nope'));
    expect(bad.status).toBe(400);
    expect(cantonError(await json(bad)).code).toBe('INVALID_DAR');
  });
});

describe('GET /v2/packages/{id} and /status', () => {
  it('returns the ArchivePayload bytes with Canton-Package-Hash', async () => {
    const { app } = setup();
    const dar = buildDar(spec());
    await app.request('/v2/dars', post(dar.bytes));
    const res = await app.request(`/v2/packages/${dar.mainPackageId}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('canton-package-hash')).toBe(dar.mainPackageId);
    expect(Buffer.from(await res.arrayBuffer()).equals(dar.main.payload)).toBe(true);

    const status = await app.request(`/v2/packages/${dar.packageIds[1]}/status`);
    const sBody = await json(status);
    expect(sBody).toEqual({ packageStatus: 'PACKAGE_STATUS_REGISTERED' });
    conforms('GetPackageStatusResponse', sBody);
  });

  it('answers an unknown package with PACKAGE_NOT_FOUND (404) and an UNSPECIFIED status', async () => {
    const { app } = setup();
    const id = 'c'.repeat(64);
    const res = await app.request(`/v2/packages/${id}`);
    expect(res.status).toBe(404);
    const body = await json(res);
    expect(body).toMatchObject({
      code: 'PACKAGE_NOT_FOUND',
      cause: 'Could not find package.',
      resources: [['PACKAGE', id]],
      errorCategory: 11,
      grpcCodeValue: 5,
    });
    conforms('JsCantonError', body);
    const status = await app.request(`/v2/packages/${id}/status`);
    expect(await json(status)).toEqual({ packageStatus: 'PACKAGE_STATUS_UNSPECIFIED' });
  });
});

describe('POST /v2/package-vetting/list', () => {
  it('lists every vetted package on the one synchronizer, sorted by name and version', async () => {
    const { app, engine } = setup(user);
    const admin = createLedgerApiApp({ engine }, [packagesRoutes]);
    const empty = await app.request('/v2/package-vetting/list', post('{}'));
    expect(await json(empty)).toEqual({ vettedPackages: [], nextPageToken: '' });

    const v1 = buildDar(spec('1.0.0'));
    const v2 = buildDar(spec('2.0.0', true));
    await admin.request('/v2/dars', post(v2.bytes));
    await admin.request('/v2/dars', post(v1.bytes));
    const res = await app.request('/v2/package-vetting/list', post('{}'));
    expect(res.status).toBe(200);
    const body = await json(res);
    conforms('ListVettedPackagesResponse', body);
    expect(body).toEqual({
      vettedPackages: [
        {
          packages: [
            { packageId: v1.mainPackageId, packageName: 'pay', packageVersion: '1.0.0' },
            { packageId: v2.mainPackageId, packageName: 'pay', packageVersion: '2.0.0' },
            { packageId: v1.packageIds[1], packageName: 'pay-api', packageVersion: '0.1.0' },
          ],
          participantId: engine.participantId,
          synchronizerId: engine.synchronizerId,
          topologySerial: 2,
        },
      ],
      nextPageToken: '',
    });
  });

  it('applies the package metadata and topology filters', async () => {
    const { app, engine } = setup();
    const dar = buildDar(spec());
    await app.request('/v2/dars', post(dar.bytes));
    const list = async (req: unknown) => await json(await app.request('/v2/package-vetting/list', post(JSON.stringify(req))));
    const ids = (b: unknown) => ListVettedPackagesResponseSchema.parse(b).vettedPackages.flatMap((v) => v.packages.map((p) => p.packageId));
    expect(ids(await list({ packageMetadataFilter: { packageNamePrefixes: ['pay-'] } }))).toEqual([dar.packageIds[1]]);
    expect(ids(await list({ packageMetadataFilter: { packageIds: [dar.mainPackageId] } }))).toEqual([dar.mainPackageId]);
    expect(ids(await list({ topologyStateFilter: { synchronizerIds: [engine.synchronizerId] } }))).toHaveLength(2);
    expect(await list({ topologyStateFilter: { participantIds: ['other::1220'] } })).toEqual({ vettedPackages: [], nextPageToken: '' });
    expect(await list({ packageMetadataFilter: { packageNamePrefixes: ['zzz'] } })).toEqual({ vettedPackages: [], nextPageToken: '' });
    expect(await list({ unknownKey: 1 })).toMatchObject({ vettedPackages: [{ topologySerial: 1 }] });
  });

  it('rejects malformed bodies with the plain-text 400 and oversized pages', async () => {
    const { app } = setup();
    const bad = await app.request('/v2/package-vetting/list', post('{"pageSize":"x"}'));
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/^text\/plain/);
    const big = await app.request('/v2/package-vetting/list', post('{"pageSize":101}'));
    expect(big.status).toBe(400);
    expect(cantonError(await json(big)).code).toBe('INVALID_FIELD');
  });
});
