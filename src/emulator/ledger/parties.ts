/** Party records of the emulated participant. (Being fleshed out: allocation, listing, update.) */
import type { IdGenerator } from '../shared/ids.js';
import type { PartyRecord } from './types.js';

export class PartyStore {
  private readonly records = new Map<string, PartyRecord>();
  constructor(private readonly opts: { ids: IdGenerator; namespace: string }) {}

  get(party: string): PartyRecord | undefined {
    return this.records.get(party);
  }
  has(party: string): boolean {
    return this.records.has(party);
  }
  /** Allocates `hint::<namespace>` (or `party-<uuid>::<namespace>` without a hint). */
  allocate(hint?: string): PartyRecord {
    const name = hint && hint !== '' ? hint : `party-${this.opts.ids.uuid()}`;
    const party = `${name}::${this.opts.namespace}`;
    const rec: PartyRecord = {
      party,
      isLocal: true,
      localMetadata: { resourceVersion: '0', annotations: {} },
      identityProviderId: '',
    };
    this.records.set(party, rec);
    return rec;
  }
}
