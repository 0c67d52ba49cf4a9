import { describe, expect, it } from 'vitest';
import { claimsTableApp, userClaims } from '../../../support/ledger-fixtures.js';
import { partiesRoutes } from '../../../../src/emulator/ledger-api/parties.js';
import { usersRoutes } from '../../../../src/emulator/ledger-api/users.js';
import { LedgerEngine } from '../../../../src/emulator/participant/engine.js';
import { AllocatePartyResponseSchema, GetPartiesResponseSchema, ListKnownPartiesResponseSchema } from '../../../../src/ledger-client/schemas/parties.js';
import { cantonError, fieldsOf } from '../../../support/ledger-wire.js';

/** App whose "tokens" are names in a claims table; no Authorization header means auth off. */
function setup() {
  const engine = new LedgerEngine({ seed: 'test' });
  const { table, call } = claimsTableApp(engine, [partiesRoutes, usersRoutes]);
  return { engine, table, call, ns: engine.namespace };
}

/** A `GET /v2/parties` answer. */
const known = (json: unknown) => ListKnownPartiesResponseSchema.parse(json);

describe('GET /v2/parties/participant-id', () => {
  it('returns the engine participant id to any caller', async () => {
    const { engine, table, call } = setup();
    table.set('nobody', userClaims('nobody'));
    for (const token of [undefined, 'nobody']) {
      const r = await call('GET', '/v2/parties/participant-id', undefined, token);
      expect(r.status).toBe(200);
      expect(r.json).toEqual({ participantId: engine.participantId });
    }
  });
});

describe('POST /v2/parties', () => {
  it('allocates with every PartyDetails field', async () => {
    const { call, ns } = setup();
    const r = await call('POST', '/v2/parties', { partyIdHint: 'alice', localMetadata: { annotations: { 'x.io/a': 'b' } } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      partyDetails: {
        party: `alice::${ns}`,
        isLocal: true,
        localMetadata: { resourceVersion: '0', annotations: { 'x.io/a': 'b' } },
        identityProviderId: '',
      },
    });
    const noHint = await call('POST', '/v2/parties', {});
    expect(AllocatePartyResponseSchema.parse(noHint.json).partyDetails.party).toMatch(/^party-[0-9a-f-]{36}::1220[0-9a-f]{64}$/);
  });

  it('duplicate hint -> 400 INVALID_ARGUMENT "Party already exists"', async () => {
    const { call, ns } = setup();
    await call('POST', '/v2/parties', { partyIdHint: 'alice' });
    const r = await call('POST', '/v2/parties', { partyIdHint: 'alice' });
    expect(r.status).toBe(400);
    expect(cantonError(r.json).code).toBe('INVALID_ARGUMENT');
    expect(cantonError(r.json).cause).toBe(
      `The submitted request has invalid arguments: Party already exists: party alice::${ns.slice(0, 12)}... is already allocated on this node`,
    );
  });

  it('malformed bodies get a text/plain 400', async () => {
    const { call } = setup();
    const r = await call('POST', '/v2/parties', '{"partyIdHint": 5}');
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/^Invalid value for: body \(/);
    expect((await call('POST', '/v2/parties', 'nope')).status).toBe(400);
  });

  it('with userId grants CanActAs(newParty) to that user; the user must exist', async () => {
    const { engine, call, ns } = setup();
    await call('POST', '/v2/users', { user: { id: 'app' } });
    const r = await call('POST', '/v2/parties', { partyIdHint: 'alice', userId: 'app' });
    expect(r.status).toBe(200);
    expect(engine.users.rights('app')).toEqual([{ kind: 'CanActAs', party: `alice::${ns}` }]);
    const missing = await call('POST', '/v2/parties', { partyIdHint: 'bob', userId: 'ghost' });
    expect(missing.status).toBe(404);
    expect(cantonError(missing.json).code).toBe('USER_NOT_FOUND');
    expect(cantonError(missing.json).cause).toBe('checking user\'s existence failed for unknown user "ghost"');
    expect(engine.parties.has(`bob::${ns}`)).toBe(false);
    const bad = await call('POST', '/v2/parties', { partyIdHint: 'bob', userId: 'bad user' });
    expect(cantonError(bad.json).code).toBe('INVALID_FIELD');
  });

  it('rights: Adm or IdpAdm; a regular user only for itself and within its quota (Canton default 0)', async () => {
    const { engine, table, call, ns } = setup();
    await call('POST', '/v2/users', { user: { id: 'app' } });
    table.set('app', userClaims('app'));
    table.set('idpadmin', userClaims('idpadmin', { idpAdmin: true }));
    const denied = await call('POST', '/v2/parties', { partyIdHint: 'a' }, 'app');
    expect(denied.status).toBe(403);
    expect(cantonError(denied.json).code).toBe('NA'); // PERMISSION_DENIED is redacted on the wire
    expect(cantonError(denied.json).grpcCodeValue).toBe(7);
    // self-allocation passes authorization but hits the default quota of 0
    const quota = await call('POST', '/v2/parties', { partyIdHint: 'a', userId: 'app' }, 'app');
    expect(quota.status).toBe(403);
    expect(engine.parties.has(`a::${ns}`)).toBe(false);
    engine.parties.maxSelfAllocatedParties = 1;
    const ok = await call('POST', '/v2/parties', { partyIdHint: 'a', userId: 'app' }, 'app');
    expect(ok.status).toBe(200);
    expect(engine.users.rights('app')).toEqual([{ kind: 'CanActAs', party: `a::${ns}` }]);
    expect((await call('POST', '/v2/parties', { partyIdHint: 'b', userId: 'app' }, 'app')).status).toBe(403);
    expect((await call('POST', '/v2/parties', { partyIdHint: 'b' }, 'idpadmin')).status).toBe(200);
  });

  it('rejects a synchronizer the participant is not connected to', async () => {
    const { engine, call } = setup();
    const r = await call('POST', '/v2/parties', { partyIdHint: 'a', synchronizerId: 'other::1220' });
    expect(cantonError(r.json).code).toBe('PARTY_ALLOCATION_WITHOUT_CONNECTED_SYNCHRONIZER');
    expect((await call('POST', '/v2/parties', { partyIdHint: 'a', synchronizerId: engine.synchronizerId })).status).toBe(200);
  });
});

describe('GET /v2/parties', () => {
  it('lists in party order with paging and filter-party; Adm/IdpAdm only', async () => {
    const { table, call, ns } = setup();
    for (const h of ['carol', 'alice', 'bob']) await call('POST', '/v2/parties', { partyIdHint: h });
    const all = await call('GET', '/v2/parties');
    expect(all.status).toBe(200);
    expect(known(all.json).partyDetails.map((p) => p.party)).toEqual([`alice::${ns}`, `bob::${ns}`, `carol::${ns}`]);
    expect(known(all.json).nextPageToken).toBe('');
    const p1 = await call('GET', '/v2/parties?pageSize=2');
    expect(known(p1.json).partyDetails).toHaveLength(2);
    const p2 = await call('GET', `/v2/parties?pageSize=2&pageToken=${encodeURIComponent(known(p1.json).nextPageToken)}`);
    expect(p2.json).toEqual({ partyDetails: [expect.objectContaining({ party: `carol::${ns}` })], nextPageToken: '' });
    const f = await call('GET', '/v2/parties?filter-party=bo');
    expect(known(f.json).partyDetails.map((p) => p.party)).toEqual([`bob::${ns}`]);
    expect((await call('GET', '/v2/parties?pageSize=x')).text).toBe('Invalid value for: query parameter pageSize');
    expect(cantonError((await call('GET', '/v2/parties?pageToken=garbage!')).json).code).toBe('INVALID_ARGUMENT');

    table.set('reader', userClaims('reader', { readAsAnyParty: true, actAs: new Set([`alice::${ns}`]) }));
    expect((await call('GET', '/v2/parties', undefined, 'reader')).status).toBe(403);
    table.set('idpadmin', userClaims('idpadmin', { idpAdmin: true }));
    expect((await call('GET', '/v2/parties', undefined, 'idpadmin')).status).toBe(200);
  });

  it('blinds details for another identity provider', async () => {
    const { call, ns } = setup();
    await call('POST', '/v2/parties', { partyIdHint: 'alice', localMetadata: { annotations: { a: 'b' } } });
    const r = await call('GET', '/v2/parties?identity-provider-id=idp1');
    expect(fieldsOf(r.json).partyDetails).toEqual([
      { party: `alice::${ns}`, isLocal: false, localMetadata: { resourceVersion: '', annotations: {} }, identityProviderId: '' },
    ]);
  });
});

describe('GET /v2/parties/{party}', () => {
  it('returns known parties only (unknown -> [] with 200), plus the parties query', async () => {
    const { call, ns } = setup();
    await call('POST', '/v2/parties', { partyIdHint: 'alice' });
    await call('POST', '/v2/parties', { partyIdHint: 'bob' });
    const alice = `alice::${ns}`;
    const r = await call('GET', `/v2/parties/${encodeURIComponent(alice)}`);
    expect(r.json).toEqual({
      partyDetails: [{ party: alice, isLocal: true, localMetadata: { resourceVersion: '0', annotations: {} }, identityProviderId: '' }],
    });
    const two = await call('GET', `/v2/parties/${encodeURIComponent(alice)}?parties=${encodeURIComponent(`bob::${ns}`)}`);
    expect(GetPartiesResponseSchema.parse(two.json).partyDetails.map((p) => p.party)).toEqual([alice, `bob::${ns}`]);
    const unknown = await call('GET', `/v2/parties/${encodeURIComponent('ghost::1220')}`);
    expect(unknown).toMatchObject({ status: 200, json: { partyDetails: [] } });
    expect(cantonError((await call('GET', '/v2/parties/bad!party')).json).code).toBe('INVALID_ARGUMENT');
  });

  it('a user may read parties it can operate as, else 403', async () => {
    const { table, call, ns } = setup();
    await call('POST', '/v2/parties', { partyIdHint: 'alice' });
    await call('POST', '/v2/parties', { partyIdHint: 'bob' });
    const alice = `alice::${ns}`;
    table.set('u', userClaims('u', { readAs: new Set([alice]) }));
    expect((await call('GET', `/v2/parties/${encodeURIComponent(alice)}`, undefined, 'u')).status).toBe(200);
    expect((await call('GET', `/v2/parties/${encodeURIComponent(`bob::${ns}`)}`, undefined, 'u')).status).toBe(403);
    table.set('any', userClaims('any', { executeAsAnyParty: true }));
    expect((await call('GET', `/v2/parties/${encodeURIComponent(`bob::${ns}`)}`, undefined, 'any')).status).toBe(200);
  });
});

describe('PATCH /v2/parties/{party}', () => {
  async function allocated() {
    const s = setup();
    await s.call('POST', '/v2/parties', { partyIdHint: 'alice', localMetadata: { annotations: { keep: '1', drop: '2' } } });
    return { ...s, alice: `alice::${s.ns}` };
  }
  const patch = (party: string, annotations: Record<string, string>, paths: string[], resourceVersion = '') => ({
    partyDetails: { party, isLocal: true, localMetadata: { resourceVersion, annotations }, identityProviderId: '' },
    updateMask: { paths, unknownFields: { fields: {} } },
  });

  it('merges annotations and bumps the version', async () => {
    const { call, alice } = await allocated();
    const r = await call('PATCH', `/v2/parties/${encodeURIComponent(alice)}`, patch(alice, { drop: '', n: 'v' }, ['local_metadata.annotations'], '0'));
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      partyDetails: { party: alice, isLocal: true, localMetadata: { resourceVersion: '1', annotations: { keep: '1', n: 'v' } }, identityProviderId: '' },
    });
  });

  it('stale resourceVersion -> 409, state unchanged', async () => {
    const { engine, call, alice } = await allocated();
    await call('PATCH', `/v2/parties/${encodeURIComponent(alice)}`, patch(alice, { a: 'b' }, ['local_metadata']));
    const before = engine.parties.get(alice);
    const r = await call('PATCH', `/v2/parties/${encodeURIComponent(alice)}`, patch(alice, { c: 'd' }, ['local_metadata'], '0'));
    expect(r.status).toBe(409);
    expect(cantonError(r.json).code).toBe('CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED');
    expect(cantonError(r.json).retryInfo).toBe('1 second');
    expect(fieldsOf(r.json).resources).toEqual([['PARTY', alice]]);
    expect(engine.parties.get(alice)).toEqual(before);
  });

  it('annotation key with two slashes -> 400, nothing changed', async () => {
    const { engine, call, alice } = await allocated();
    const before = engine.parties.get(alice);
    const r = await call('PATCH', `/v2/parties/${encodeURIComponent(alice)}`, patch(alice, { 'a/b/c': 'v' }, ['local_metadata.annotations']));
    expect(r.status).toBe(400);
    expect(cantonError(r.json).code).toBe('INVALID_ARGUMENT');
    expect(engine.parties.get(alice)).toEqual(before);
  });

  it('path/body mismatch, missing mask, bad mask, unknown party', async () => {
    const { call, alice, ns } = await allocated();
    const mismatch = await call('PATCH', `/v2/parties/${encodeURIComponent(`bob::${ns}`)}`, patch(alice, {}, ['local_metadata']));
    expect(mismatch.status).toBe(400);
    expect(cantonError(mismatch.json).code).toBe('INVALID_ARGUMENT');
    expect(cantonError(mismatch.json).cause).toContain(`bob::${ns} does not match party in body`);
    const noMask = await call('PATCH', `/v2/parties/${encodeURIComponent(alice)}`, { partyDetails: { party: alice } });
    expect(cantonError(noMask.json).code).toBe('MISSING_FIELD');
    const badMask = await call('PATCH', `/v2/parties/${encodeURIComponent(alice)}`, patch(alice, {}, ['localMetadata']));
    expect(cantonError(badMask.json).code).toBe('INVALID_PARTY_DETAILS_UPDATE_REQUEST');
    const ghost = 'ghost::1220';
    const unknown = await call('PATCH', `/v2/parties/${encodeURIComponent(ghost)}`, patch(ghost, {}, ['local_metadata']));
    expect(unknown.status).toBe(404);
    expect(cantonError(unknown.json).code).toBe('PARTY_NOT_FOUND');
  });

  it('requires Adm or IdpAdm', async () => {
    const { table, call, alice } = await allocated();
    table.set('u', userClaims('u', { actAs: new Set([alice]) }));
    const r = await call('PATCH', `/v2/parties/${encodeURIComponent(alice)}`, patch(alice, { a: 'b' }, ['local_metadata']), 'u');
    expect(r.status).toBe(403);
  });
});
