/** Users and their rights. (Being fleshed out: create/update/delete, rights grant/revoke.) */
import type { PartyStore } from './parties.js';
import type { Right, UserRecord } from './types.js';

export const ADMIN_USER_ID = 'participant_admin';

export class UserStore {
  private readonly users = new Map<string, { user: UserRecord; rights: Right[] }>();
  constructor(private readonly opts: { parties: PartyStore }) {
    this.users.set(ADMIN_USER_ID, {
      user: { id: ADMIN_USER_ID, primaryParty: '', isDeactivated: false, metadata: { resourceVersion: '0', annotations: {} }, identityProviderId: '' },
      rights: [{ kind: 'ParticipantAdmin' }],
    });
  }
  get(id: string): UserRecord | undefined {
    return this.users.get(id)?.user;
  }
  rights(id: string): Right[] {
    return this.users.get(id)?.rights ?? [];
  }
}
