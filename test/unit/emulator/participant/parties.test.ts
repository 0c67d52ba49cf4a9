import { describe, expect, it } from 'vitest';
import { LedgerApiError } from '../../../../src/canton/errors.js';
import { decodePageToken, encodePageToken } from '../../../../src/emulator/participant/object-meta.js';
import { PartyStore } from '../../../../src/emulator/participant/parties.js';
import { IdGenerator } from '../../../../src/emulator/shared/ids.js';

const NS = `1220${'ab'.repeat(32)}`;
const store = () => new PartyStore({ ids: new IdGenerator('test'), namespace: NS });

function failure(f: () => unknown): LedgerApiError {
  try {
    f();
  } catch (e) {
    if (e instanceof LedgerApiError) return e;
    throw e;
  }
  throw new Error('expected a LedgerApiError');
}

describe('PartyStore.allocate', () => {
  it('allocates hint::namespace with a fresh local record', () => {
    const s = store();
    const rec = s.allocate('alice');
    expect(rec).toEqual({
      party: `alice::${NS}`,
      isLocal: true,
      localMetadata: { resourceVersion: '0', annotations: {} },
      identityProviderId: '',
    });
    expect(s.has(`alice::${NS}`)).toBe(true);
    expect(s.get(`alice::${NS}`)).toEqual(rec);
  });

  it('allocates party-<uuid>::namespace without a hint, deterministically', () => {
    const a = store().allocate();
    const b = store().allocate('');
    expect(a.party).toMatch(new RegExp(`^party-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}::${NS}$`));
    expect(b.party).toBe(a.party);
  });

  it('rejects a duplicate hint with Canton\'s "Party already exists" INVALID_ARGUMENT', () => {
    const s = store();
    s.allocate('alice');
    const e = failure(() => s.allocate('alice'));
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.httpStatus).toBe(400);
    expect(e.causeText).toBe(
      `The submitted request has invalid arguments: Party already exists: party alice::${NS.slice(0, 12)}... is already allocated on this node`,
    );
  });

  it('validates the hint as a party string (US-ASCII letters, digits, ":-_ ", <= 255 chars)', () => {
    const s = store();
    expect(s.allocate('Alice Bob_x-1').party).toBe(`Alice Bob_x-1::${NS}`);
    expect(failure(() => s.allocate('al!ce')).causeText).toBe(
      'The submitted request has invalid arguments: non expected character 0x21 in Daml-LF Party "al!ce"',
    );
    expect(failure(() => s.allocate('ä')).code).toBe('INVALID_ARGUMENT');
    expect(failure(() => s.allocate('a'.repeat(256))).causeText).toContain('Daml-LF Party is too long (max: 255)');
    // valid party string, but not a valid identifier: `::` is reserved, and at most 185 chars
    expect(failure(() => s.allocate('a::b')).causeText).toContain('Invalid party ID: String contains reserved delimiter `::`.');
    expect(failure(() => s.allocate('a'.repeat(186))).causeText).toContain('maximum length of 185');
    expect(s.all().map((p) => p.party)).toEqual([`Alice Bob_x-1::${NS}`]);
  });

  it('stores valid annotations and rejects invalid ones without allocating', () => {
    const s = store();
    const rec = s.allocate('a', { annotations: { 'example.com/key': 'v', plain: 'x' } });
    expect(rec.localMetadata.annotations).toEqual({ 'example.com/key': 'v', plain: 'x' });
    const bad: Array<[Record<string, string>, string]> = [
      [{ 'a/b/c': 'v' }, "Key 'a/b/c' contains more than one forward slash ('/') character"],
      [{ ['k'.repeat(64)]: 'v' }, 'exceeds maximum length of 63 characters'],
      [{ '-bad': 'v' }, "Key name segment '-bad' has invalid syntax"],
      [{ 'bad_prefix!/k': 'v' }, "Key prefix segment 'bad_prefix!' has invalid syntax"],
      [{ [`${'p'.repeat(254)}/k`]: 'v' }, 'exceeds maximum length of 253 characters'],
      [{ empty: '' }, "The value of an annotation is empty for key: 'empty'"],
      [{ big: 'x'.repeat(256 * 1024) }, "annotations from field 'local_metadata.annotations' are larger than the limit of 256kb"],
    ];
    for (const [annotations, msg] of bad) {
      const e = failure(() => s.allocate('b', { annotations }));
      expect(e.code).toBe('INVALID_ARGUMENT');
      expect(e.causeText).toContain(msg);
    }
    expect(s.has(`b::${NS}`)).toBe(false);
  });

  it('requires an empty resourceVersion and an existing identity provider', () => {
    const s = store();
    expect(failure(() => s.allocate('a', { resourceVersion: '0' })).causeText).toBe(
      'The submitted request has invalid arguments: field local_metadata.resource_version must be not set',
    );
    expect(failure(() => s.allocate('a', { identityProviderId: 'idp1' })).causeText).toBe(
      'The submitted request has invalid arguments: Provided identity_provider_id Id(idp1) has not been found.',
    );
    expect(s.all()).toEqual([]);
  });

  it('runs beforeCommit after validation; a throw there allocates nothing', () => {
    const s = store();
    expect(() =>
      s.allocate('a', {
        beforeCommit: (p) => {
          expect(p).toBe(`a::${NS}`);
          throw new Error('no');
        },
      }),
    ).toThrow('no');
    expect(s.has(`a::${NS}`)).toBe(false);
  });
});

describe('PartyStore.list', () => {
  const filled = () => {
    const s = store();
    for (const h of ['carol', 'alice', 'bob', 'dave', 'a_x', 'abx']) s.allocate(h);
    return s;
  };

  it('lists in party order, everything when pageSize is 0', () => {
    const { parties, nextPageToken } = filled().list();
    expect(parties.map((p) => p.party.split('::')[0])).toEqual(['a_x', 'abx', 'alice', 'bob', 'carol', 'dave']);
    expect(nextPageToken).toBe('');
  });

  it('pages with an opaque token until a short page', () => {
    const s = filled();
    const seen: string[] = [];
    let token = '';
    let pages = 0;
    do {
      const page = s.list({ pageSize: 4, pageToken: token });
      seen.push(...page.parties.map((p) => p.party));
      token = page.nextPageToken;
      pages++;
    } while (token !== '');
    expect(pages).toBe(2);
    expect(seen).toEqual(s.all().map((p) => p.party));
    // an exactly-full last page still returns a token, then an empty page
    const p1 = s.list({ pageSize: 3 });
    const p2 = s.list({ pageSize: 3, pageToken: p1.nextPageToken });
    expect(p2.parties).toHaveLength(3);
    expect(p2.nextPageToken).not.toBe('');
    expect(s.list({ pageSize: 3, pageToken: p2.nextPageToken })).toEqual({ parties: [], nextPageToken: '' });
  });

  it('filters by prefix like SQL LIKE (underscore is a wildcard)', () => {
    const s = filled();
    expect(s.list({ filterParty: 'al' }).parties.map((p) => p.party)).toEqual([`alice::${NS}`]);
    expect(s.list({ filterParty: 'a_' }).parties.map((p) => p.party.split('::')[0])).toEqual(['a_x', 'abx', 'alice']);
    expect(failure(() => s.list({ filterParty: 'bad!' })).code).toBe('INVALID_FIELD');
  });

  it('rejects bad page sizes and tokens', () => {
    const s = filled();
    expect(failure(() => s.list({ pageSize: -1 })).causeText).toContain('Page size must be non-negative');
    expect(failure(() => s.list({ pageSize: 10001 })).causeText).toContain("Page size must not exceed the server's maximum of 10000");
    expect(failure(() => s.list({ pageToken: 'not base64!' })).causeText).toBe(
      'The submitted request has invalid arguments: Invalid page token',
    );
    expect(failure(() => s.list({ pageToken: encodePageToken('bad!') })).causeText).toContain('Invalid page token');
  });

  it('produces Canton-compatible tokens (padded base64url of a one-field proto)', () => {
    const t = encodePageToken('alice::1220');
    expect(Buffer.from(t, 'base64url')[0]).toBe(0x0a);
    expect(decodePageToken(t)).toBe('alice::1220');
    expect(decodePageToken(encodePageToken('x'.repeat(300)))).toBe('x'.repeat(300));
    expect(encodePageToken('a')).toBe('CgFh');
    expect(encodePageToken('ab')).toBe('CgJhYg==');
  });
});

describe('PartyStore.update', () => {
  const setup = () => {
    const s = store();
    const party = s.allocate('alice', { annotations: { keep: '1', drop: '2' } }).party;
    return { s, party };
  };
  const details = (party: string, annotations: Record<string, string>, resourceVersion = '') => ({
    party,
    isLocal: true,
    localMetadata: { resourceVersion, annotations },
    identityProviderId: '',
  });

  it('merges annotations (existing ++ new, "" deletes) and bumps the resource version', () => {
    const { s, party } = setup();
    const r = s.update(details(party, { drop: '', add: '3', keep: '1b' }, '0'), ['local_metadata.annotations']);
    expect(r.localMetadata).toEqual({ resourceVersion: '1', annotations: { keep: '1b', add: '3' } });
    expect(s.get(party)!.localMetadata.resourceVersion).toBe('1');
    // a no-op update still bumps the version, as on Canton
    expect(s.update(details(party, {}), ['local_metadata.resource_version']).localMetadata.resourceVersion).toBe('2');
  });

  it('parent path local_metadata updates annotations only when non-empty; exact path accepts {}', () => {
    const { s, party } = setup();
    expect(s.update(details(party, {}), ['local_metadata']).localMetadata.annotations).toEqual({ keep: '1', drop: '2' });
    expect(s.update(details(party, { x: 'y' }), ['local_metadata']).localMetadata.annotations).toEqual({ keep: '1', drop: '2', x: 'y' });
    // exact path with {} merges nothing (merge semantics), still allowed
    expect(s.update(details(party, {}), ['local_metadata.annotations']).localMetadata.annotations).toEqual({ keep: '1', drop: '2', x: 'y' });
  });

  it('stale resourceVersion -> CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED (409) and nothing changes', () => {
    const { s, party } = setup();
    s.update(details(party, { a: 'b' }), ['local_metadata.annotations']);
    const before = s.get(party);
    const e = failure(() => s.update(details(party, { c: 'd' }, '0'), ['local_metadata.annotations']));
    expect(e.code).toBe('CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED');
    expect(e.httpStatus).toBe(409);
    expect(e.causeText).toBe(`Update operation for party '${party}' failed due to a concurrent update to the same party`);
    expect(s.get(party)).toEqual(before);
    expect(failure(() => s.update(details(party, {}, 'abc'), ['local_metadata'])).code).toBe('INVALID_FIELD');
  });

  it('annotation key with two slashes is rejected and nothing changes', () => {
    const { s, party } = setup();
    const before = s.get(party);
    const e = failure(() => s.update(details(party, { 'a/b/c': 'v', ok: 'v' }), ['local_metadata.annotations']));
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(s.get(party)).toEqual(before);
  });

  it('validates the update mask', () => {
    const { s, party } = setup();
    const reason = (paths: string[]) => failure(() => s.update(details(party, {}), paths));
    expect(reason([]).code).toBe('INVALID_PARTY_DETAILS_UPDATE_REQUEST');
    expect(reason([]).causeText).toBe(`Update operation for party '${party}' failed due to: The update mask contains no entries`);
    expect(reason(['display_name']).causeText).toContain("The update path: 'display_name' points to an unknown field.");
    expect(reason(['localMetadata.annotations']).causeText).toContain('points to an unknown field');
    expect(reason(['local_metadata.annotations.x']).causeText).toContain('points to an unknown field');
    expect(reason(['is_local', 'is_local']).causeText).toContain("The update path: 'is_local' is duplicated.");
    // party, is_local (unchanged), identity_provider_id are accepted
    expect(s.update(details(party, {}), ['party', 'is_local', 'identity_provider_id']).localMetadata.resourceVersion).toBe('1');
  });

  it('rejects modifying is_local, an unknown party, and a remote party', () => {
    const { s, party } = setup();
    const e = failure(() => s.update({ ...details(party, {}), isLocal: false }, ['is_local']));
    expect(e.code).toBe('INVALID_PARTY_DETAILS_UPDATE_REQUEST');
    expect(e.causeText).toContain("Update request attempted to modify not-modifiable 'is_local' attribute");
    const unknown = failure(() => s.update(details(`nobody::${NS}`, {}), ['local_metadata']));
    expect(unknown.code).toBe('PARTY_NOT_FOUND');
    expect(unknown.httpStatus).toBe(404);
    const remote = s.addRemote('remote::1220ff').party;
    expect(failure(() => s.update({ ...details(remote, {}), isLocal: false }, ['local_metadata'])).code).toBe('PARTY_NOT_FOUND');
  });

  it('MAX_PARTY_DETAILS_ANNOTATIONS_SIZE_EXCEEDED when the merged annotations exceed 256 KiB', () => {
    const { s, party } = setup();
    s.update(details(party, { big1: 'x'.repeat(200 * 1024) }), ['local_metadata.annotations']);
    const before = s.get(party);
    const e = failure(() => s.update(details(party, { big2: 'x'.repeat(100 * 1024) }), ['local_metadata.annotations']));
    expect(e.code).toBe('MAX_PARTY_DETAILS_ANNOTATIONS_SIZE_EXCEEDED');
    expect(s.get(party)).toEqual(before);
  });
});

describe('PartyStore.allocateHosted (external parties)', () => {
  const EXT = `ext::1220${'cd'.repeat(32)}`;

  it('hosts a party of another namespace with an empty local record', () => {
    const s = store();
    expect(s.allocateHosted(EXT, '')).toEqual({ party: EXT, isLocal: true, localMetadata: { resourceVersion: '0', annotations: {} }, identityProviderId: '' });
    expect(s.isLocal(EXT)).toBe(true);
  });

  it('a known remote party becomes hosted; a hosted one is a duplicate and stays as it was', () => {
    const s = store();
    s.addRemote(EXT);
    expect(s.allocateHosted(EXT, '').isLocal).toBe(true);
    const before = s.get(EXT);
    const e = failure(() => s.allocateHosted(EXT, ''));
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.causeText).toBe(`The submitted request has invalid arguments: Party already exists: party ext::1220cdcdcdcd... is already allocated on this node`);
    expect(s.get(EXT)).toEqual(before);
  });
});
