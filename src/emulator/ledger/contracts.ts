import type { ContractRecord } from './types.js';
export class ContractStore {
  readonly byId = new Map<string, ContractRecord>();
  get(cid: string): ContractRecord | undefined { return this.byId.get(cid); }
}
