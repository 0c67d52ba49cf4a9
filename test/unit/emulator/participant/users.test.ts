import { describe, expect, it } from 'vitest';
import { LedgerApiError } from '../../../../src/canton/errors.js';
import { encodePageToken } from '../../../../src/emulator/participant/object-meta.js';
import { PartyStore } from '../../../../src/emulator/participant/parties.js';
import type { Right } from '../../../../src/emulator/participant/types.js';
import { ADMIN_USER_ID, UserStore } from '../../../../src/emulator/participant/users.js';
import { IdGenerator } from '../../../../src/emulator/shared/ids.js';

const NS = `1220${'cd'.repeat(32)}`;

function setup(opts: { checkPartiesForAdmin?: boolean } = {}) {
  const parties = new PartyStore({ ids: new IdGenerator('test'), namespace: NS });
  const alice = parties.allocate('alice').party;
  const bob = parties.allocate('bob').party;
  const users = new UserStore({ parties, ...opts });
  return { parties, users, alice, bob };
}

function failure(f: () => unknown): LedgerApiError {
  try {
    f();
  } catch (e) {
    if (e instanceof LedgerApiError) return e;
    throw e;
  }
  throw new Error('expected a LedgerApiError');
}

const actAs = (party: string): Right => ({ kind: 'CanActAs', party });
const readAs = (party: string): Right => ({ kind: 'CanReadAs', party });

describe('UserStore defaults', () => {
  it('has participant_admin with ParticipantAdmin', () => {
    const { users } = setup();
    expect(ADMIN_USER_ID).toBe('participant_admin');
    expect(users.get(ADMIN_USER_ID)).toEqual({
      id: 'participant_admin',
      primaryParty: '',
      isDeactivated: false,
      metadata: { resourceVersion: '0', annotations: {} },
      identityProviderId: '',
      primaryPartyAuthentication: false,
    });
    expect(users.rights(ADMIN_USER_ID)).toEqual([{ kind: 'ParticipantAdmin' }]);
    expect(users.rights('nobody')).toEqual([]);
  });

  it('addAdminUser creates or promotes an extra admin (LocalNet ledger-api-user)', () => {
    const { users } = setup();
    users.addAdminUser('ledger-api-user');
    expect(users.rights('ledger-api-user')).toEqual([{ kind: 'ParticipantAdmin' }]);
    users.create({ id: 'ops' }, [{ kind: 'CanReadAsAnyParty' }]);
    users.addAdminUser('ops');
    users.addAdminUser('ops');
    expect(users.rights('ops')).toEqual([{ kind: 'CanReadAsAnyParty' }, { kind: 'ParticipantAdmin' }]);
  });
});

describe('UserStore.create', () => {
  it('creates a user with resourceVersion "0" and its rights (deduplicated)', () => {
    const { users, alice } = setup();
    const u = users.create(
      { id: 'alice-user', primaryParty: alice, metadata: { annotations: { 'x.io/k': 'v' } }, primaryPartyAuthentication: true },
      [actAs(alice), actAs(alice), readAs(alice)],
    );
    expect(u).toEqual({
      id: 'alice-user',
      primaryParty: alice,
      isDeactivated: false,
      metadata: { resourceVersion: '0', annotations: { 'x.io/k': 'v' } },
      identityProviderId: '',
      primaryPartyAuthentication: true,
    });
    expect(users.rights('alice-user')).toEqual([actAs(alice), readAs(alice)]);
  });

  it('validates the user id: regex, at most 128 chars', () => {
    const { users } = setup();
    expect(users.create({ id: "a@^$.!`-#+'~_|:()Z9" }).id).toBe("a@^$.!`-#+'~_|:()Z9");
    expect(users.create({ id: 'u'.repeat(128) }).id).toHaveLength(128);
    const long = failure(() => users.create({ id: 'u'.repeat(129) }));
    expect(long.code).toBe('INVALID_FIELD');
    expect(long.causeText).toContain('Invalid field id: User ID "');
    expect(failure(() => users.create({ id: 'bad user' })).code).toBe('INVALID_FIELD');
    expect(failure(() => users.create({ id: '' })).code).toBe('MISSING_FIELD');
    expect(users.has('u'.repeat(129))).toBe(false);
  });

  it('requires an empty resourceVersion, a valid primary party, valid annotations', () => {
    const { users } = setup();
    expect(failure(() => users.create({ id: 'x', metadata: { resourceVersion: '1' } })).causeText).toBe(
      'The submitted request has invalid arguments: field user.metadata.resource_version must be not set',
    );
    expect(failure(() => users.create({ id: 'x', primaryParty: 'not valid!' })).code).toBe('INVALID_ARGUMENT');
    expect(failure(() => users.create({ id: 'x', metadata: { annotations: { k: '' } } })).code).toBe('INVALID_ARGUMENT');
    expect(failure(() => users.create({ id: 'x', metadata: { annotations: { 'a/b/c': 'v' } } })).code).toBe('INVALID_ARGUMENT');
    expect(failure(() => users.create({ id: 'x', identityProviderId: 'idp1' })).code).toBe('INVALID_ARGUMENT');
    // a primary party need not be known
    expect(users.create({ id: 'x', primaryParty: 'someone::1220' }).primaryParty).toBe('someone::1220');
  });

  it('USER_ALREADY_EXISTS', () => {
    const { users } = setup();
    users.create({ id: 'dup' });
    const e = failure(() => users.create({ id: 'dup' }));
    expect(e.code).toBe('USER_ALREADY_EXISTS');
    expect(e.httpStatus).toBe(409);
    expect(e.causeText).toBe('creating user failed, as user "dup" already exists');
  });

  it('rights for unknown parties -> UNKNOWN_RESOURCE (404) with the exact cause; the user is not created', () => {
    const { users, alice } = setup();
    const e = failure(() => users.create({ id: 'x' }, [actAs(alice), readAs('ghost::1220'), actAs('ghost2::1220')]));
    expect(e.code).toBe('UNKNOWN_RESOURCE');
    expect(e.httpStatus).toBe(404);
    expect(e.causeText).toBe(
      'The submitted request refers to a non-existing PARTIES: Provided parties have not been found in identity_provider_id=``: [ghost::1220,ghost2::1220].',
    );
    expect(e.options.resources).toEqual([
      ['PARTIES', 'ghost::1220'],
      ['PARTIES', 'ghost2::1220'],
    ]);
    expect(users.has('x')).toBe(false);
    // CanExecuteAs is not checked (Canton checks only act-as / read-as parties)
    expect(() => users.create({ id: 'y' }, [{ kind: 'CanExecuteAs', party: 'ghost::1220' }])).not.toThrow();
  });

  it('with checkPartiesForAdmin=false (Canton 3.5) an admin may name unknown parties, an IdP admin may not', () => {
    const { users } = setup({ checkPartiesForAdmin: false });
    expect(() => users.create({ id: 'x' }, [actAs('ghost::1220')], { participantAdmin: true })).not.toThrow();
    expect(failure(() => users.create({ id: 'y' }, [actAs('ghost::1220')], { participantAdmin: false, userId: 'idp-admin' })).code).toBe(
      'UNKNOWN_RESOURCE',
    );
  });

  it('TOO_MANY_USER_RIGHTS beyond 1000 rights', () => {
    const { parties, users } = setup();
    const many: Right[] = [];
    for (let i = 0; i < 1001; i++) many.push({ kind: 'CanExecuteAs', party: `p${i}::1220` });
    const e = failure(() => users.create({ id: 'x' }, many));
    expect(e.code).toBe('TOO_MANY_USER_RIGHTS');
    expect(e.causeText).toBe('creating user failed, as user "x" would have too many rights.');
    expect(users.has('x')).toBe(false);
    users.create({ id: 'x' }, many.slice(0, 1000));
    const g = failure(() => users.grant('x', [{ kind: 'CanReadAsAnyParty' }]));
    expect(g.code).toBe('TOO_MANY_USER_RIGHTS');
    expect(g.causeText).toBe('grant user rights failed, as user "x" would have too many rights.');
    expect(users.rights('x')).toHaveLength(1000);
    // re-granting held rights adds nothing, so it is fine
    expect(users.grant('x', many.slice(0, 3))).toEqual([]);
    expect(parties).toBeDefined();
  });
});

describe('UserStore.getUser / list / delete', () => {
  it('USER_NOT_FOUND names the operation', () => {
    const { users } = setup();
    const e = failure(() => users.getUser('ghost'));
    expect(e.code).toBe('USER_NOT_FOUND');
    expect(e.httpStatus).toBe(404);
    expect(e.causeText).toBe('getting user failed for unknown user "ghost"');
    expect(failure(() => users.delete('ghost')).causeText).toBe('deleting user failed for unknown user "ghost"');
    expect(failure(() => users.listRights('ghost')).causeText).toBe('list user rights failed for unknown user "ghost"');
    expect(failure(() => users.grant('ghost', [])).causeText).toBe('grant user rights failed for unknown user "ghost"');
    expect(failure(() => users.revoke('ghost', [])).causeText).toBe('revoke user rights failed for unknown user "ghost"');
    expect(failure(() => users.update({ id: 'ghost' }, ['is_deactivated'])).causeText).toBe(
      'updating user failed for unknown user "ghost"',
    );
  });

  it('lists in id order with pageSize 0 -> 1000 and an opaque token', () => {
    const { users } = setup();
    for (const id of ['zed', 'amy', 'Bob', 'carl']) users.create({ id });
    expect(users.list().users.map((u) => u.id)).toEqual(['Bob', 'amy', 'carl', 'participant_admin', 'zed']);
    expect(users.list().nextPageToken).toBe('');
    const p1 = users.list({ pageSize: 2 });
    expect(p1.users.map((u) => u.id)).toEqual(['Bob', 'amy']);
    expect(p1.nextPageToken).toBe(encodePageToken('amy'));
    const p2 = users.list({ pageSize: 2, pageToken: p1.nextPageToken });
    expect(p2.users.map((u) => u.id)).toEqual(['carl', 'participant_admin']);
    const p3 = users.list({ pageSize: 2, pageToken: p2.nextPageToken });
    expect(p3).toEqual({ users: [expect.objectContaining({ id: 'zed' })], nextPageToken: '' });
    expect(users.list({ pageSize: 5000 }).users).toHaveLength(5);
    expect(failure(() => users.list({ pageSize: -1 })).causeText).toContain('Max page size must be non-negative');
    expect(failure(() => users.list({ pageToken: '!!' })).causeText).toContain('Invalid page token');
  });

  it('1000 users fit the default page', () => {
    const { users } = setup();
    for (let i = 0; i < 1000; i++) users.create({ id: `u${String(i).padStart(4, '0')}` });
    const p = users.list();
    expect(p.users).toHaveLength(1000);
    // participant_admin sorts before the u* ids, so u0999 is left for page two
    expect(p.users[0]!.id).toBe('participant_admin');
    expect(users.list({ pageToken: p.nextPageToken })).toEqual({ users: [expect.objectContaining({ id: 'u0999' })], nextPageToken: '' });
  });

  it('delete removes the user and its rights; a user cannot delete itself', () => {
    const { users, alice } = setup();
    users.create({ id: 'x' }, [actAs(alice)]);
    expect(failure(() => users.delete('x', '', { userId: 'x', participantAdmin: true })).causeText).toBe(
      'The submitted request has invalid arguments: Requesting user cannot delete itself',
    );
    users.delete('x');
    expect(users.has('x')).toBe(false);
    expect(users.rights('x')).toEqual([]);
    users.create({ id: 'x' });
    expect(users.rights('x')).toEqual([]);
  });
});

describe('UserStore.update', () => {
  it('bumps resourceVersion per update; rights changes do not', () => {
    const { users, alice } = setup();
    users.create({ id: 'x' });
    expect(users.update({ id: 'x', primaryParty: alice }, ['primary_party']).metadata.resourceVersion).toBe('1');
    users.grant('x', [actAs(alice)]);
    users.revoke('x', [actAs(alice)]);
    expect(users.get('x')!.metadata.resourceVersion).toBe('1');
    expect(users.update({ id: 'x' }, ['metadata.resource_version']).metadata.resourceVersion).toBe('2');
  });

  it('exact paths set defaults; parent path metadata sets only non-defaults', () => {
    const { users, alice } = setup();
    users.create({ id: 'x', primaryParty: alice, metadata: { annotations: { a: '1', b: '2' } } });
    // parent path with empty annotations: annotations untouched
    expect(users.update({ id: 'x' }, ['metadata']).metadata.annotations).toEqual({ a: '1', b: '2' });
    // merge: existing ++ new, "" deletes
    expect(users.update({ id: 'x', metadata: { annotations: { a: '', c: '3' } } }, ['metadata']).metadata.annotations).toEqual({
      b: '2',
      c: '3',
    });
    // exact primary_party with "" clears it; without the path it is kept
    expect(users.update({ id: 'x' }, ['is_deactivated']).primaryParty).toBe(alice);
    expect(users.update({ id: 'x' }, ['primary_party']).primaryParty).toBe('');
    expect(users.update({ id: 'x', isDeactivated: true }, ['is_deactivated']).isDeactivated).toBe(true);
    expect(users.update({ id: 'x' }, ['is_deactivated']).isDeactivated).toBe(false);
    expect(users.update({ id: 'x', primaryPartyAuthentication: true }, ['primary_party_authentication']).primaryPartyAuthentication).toBe(true);
    // id and identity_provider_id are valid paths that change nothing
    expect(users.update({ id: 'x' }, ['id', 'identity_provider_id']).id).toBe('x');
  });

  it('empty or unknown mask paths -> INVALID_USER_UPDATE_REQUEST', () => {
    const { users } = setup();
    users.create({ id: 'x' });
    const e = failure(() => users.update({ id: 'x' }, []));
    expect(e.code).toBe('INVALID_USER_UPDATE_REQUEST');
    expect(e.causeText).toBe("Update operation for user id 'x' failed due to: The update mask contains no entries");
    expect(failure(() => users.update({ id: 'x' }, ['primaryParty'])).causeText).toContain(
      "The update path: 'primaryParty' points to an unknown field.",
    );
    expect(failure(() => users.update({ id: 'x' }, ['metadata.foo'])).code).toBe('INVALID_USER_UPDATE_REQUEST');
    expect(failure(() => users.update({ id: 'x' }, undefined)).code).toBe('MISSING_FIELD');
    expect(users.get('x')!.metadata.resourceVersion).toBe('0');
  });

  it('stale resourceVersion -> CONCURRENT_USER_UPDATE_DETECTED (409), state unchanged', () => {
    const { users, alice } = setup();
    users.create({ id: 'x' });
    users.update({ id: 'x', metadata: { resourceVersion: '0', annotations: { k: 'v' } } }, ['metadata.annotations']);
    const before = users.get('x');
    const e = failure(() => users.update({ id: 'x', primaryParty: alice, metadata: { resourceVersion: '0' } }, ['primary_party']));
    expect(e.code).toBe('CONCURRENT_USER_UPDATE_DETECTED');
    expect(e.httpStatus).toBe(409);
    expect(e.causeText).toBe("Update operation for user 'x' failed due to a concurrent update to the same user");
    expect(e.options.resources).toEqual([['USER', 'x']]);
    expect(users.get('x')).toEqual(before);
    expect(failure(() => users.update({ id: 'x', metadata: { resourceVersion: 'one' } }, ['metadata'])).causeText).toContain(
      'Invalid field user.metadata.resource_version: Invalid resource version number',
    );
  });

  it('annotation key with two slashes is rejected and nothing changed', () => {
    const { users } = setup();
    users.create({ id: 'x', metadata: { annotations: { a: '1' } } });
    const before = users.get('x');
    expect(failure(() => users.update({ id: 'x', metadata: { annotations: { 'a/b/c': 'v' } } }, ['metadata'])).code).toBe(
      'INVALID_ARGUMENT',
    );
    expect(users.get('x')).toEqual(before);
  });

  it('MAX_USER_ANNOTATIONS_SIZE_EXCEEDED on a merge beyond 256 KiB', () => {
    const { users } = setup();
    users.create({ id: 'x', metadata: { annotations: { a: 'x'.repeat(200 * 1024) } } });
    const e = failure(() => users.update({ id: 'x', metadata: { annotations: { b: 'x'.repeat(100 * 1024) } } }, ['metadata']));
    expect(e.code).toBe('MAX_USER_ANNOTATIONS_SIZE_EXCEEDED');
    expect(e.httpStatus).toBe(400);
    expect(users.get('x')!.metadata.resourceVersion).toBe('0');
  });

  it('a user cannot deactivate itself', () => {
    const { users } = setup();
    users.create({ id: 'x' });
    expect(failure(() => users.update({ id: 'x', isDeactivated: true }, ['is_deactivated'], { userId: 'x', participantAdmin: true })).causeText).toBe(
      'The submitted request has invalid arguments: Requesting user cannot self-deactivate',
    );
    expect(users.get('x')!.isDeactivated).toBe(false);
    expect(users.update({ id: 'x', isDeactivated: true }, ['is_deactivated'], { userId: 'admin', participantAdmin: true }).isDeactivated).toBe(true);
  });
});

describe('UserStore grant / revoke', () => {
  it('returns only the diffs', () => {
    const { users, alice, bob } = setup();
    users.create({ id: 'x' }, [actAs(alice)]);
    expect(users.grant('x', [actAs(alice), readAs(bob), readAs(bob), { kind: 'CanReadAsAnyParty' }])).toEqual([
      readAs(bob),
      { kind: 'CanReadAsAnyParty' },
    ]);
    expect(users.revoke('x', [actAs(alice), actAs(bob)])).toEqual([actAs(alice)]);
    expect(users.listRights('x')).toEqual([readAs(bob), { kind: 'CanReadAsAnyParty' }]);
  });

  it('rejects unknown parties on grant and revoke, and own ParticipantAdmin revocation', () => {
    const { users } = setup();
    users.create({ id: 'x' });
    expect(failure(() => users.grant('x', [actAs('ghost::1220')])).code).toBe('UNKNOWN_RESOURCE');
    expect(failure(() => users.revoke('x', [readAs('ghost::1220')])).code).toBe('UNKNOWN_RESOURCE');
    expect(failure(() => users.grant('x', [actAs('bad party!')])).code).toBe('INVALID_ARGUMENT');
    expect(users.rights('x')).toEqual([]);
    const e = failure(() => users.revoke(ADMIN_USER_ID, [{ kind: 'ParticipantAdmin' }], '', { userId: ADMIN_USER_ID, participantAdmin: true }));
    expect(e.causeText).toBe('The submitted request has invalid arguments: Requesting user cannot remove own admin rights');
    expect(users.rights(ADMIN_USER_ID)).toEqual([{ kind: 'ParticipantAdmin' }]);
  });

  it('updateIdentityProviderId: only the default IDP exists', () => {
    const { users } = setup();
    users.create({ id: 'x' });
    expect(users.updateIdentityProviderId('x', '', '').identityProviderId).toBe('');
    expect(failure(() => users.updateIdentityProviderId('x', '', 'idp1')).causeText).toContain('Id(idp1) has not been found');
    expect(failure(() => users.updateIdentityProviderId('ghost', '', '')).causeText).toBe(
      'update user identity provider failed for unknown user "ghost"',
    );
  });
});
