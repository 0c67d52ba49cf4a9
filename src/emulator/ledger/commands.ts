import type { LedgerEngine } from './engine.js';
export class CommandService {
  constructor(readonly engine: LedgerEngine) {}
}
