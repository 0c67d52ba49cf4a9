/**
 * The contract index in process with its ledger (`ledgerEndHint`, the emulated stack): while the
 * ledger end equals the index's offset it does not ask the ledger for updates at all, and a new
 * transaction is still picked up by the tail within a few idle periods.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCache } from '../../../src/cache/memory-cache.js';
import { ContractIndex } from '../../../src/contracts/contract-index.js';
import { noAuth } from '../../../src/ledger-client/auth.js';
import { LedgerClient } from '../../../src/ledger-client/client.js';
import { inProcessFetch } from '../../../src/ledger-client/in-process.js';
import { assetLedger } from '../../support/asset-ledger.js';

const logger = pino({ level: 'silent' });
let index: ContractIndex | undefined;
afterEach(async () => index?.stop());

describe('ContractIndex with a ledger-end hint', () => {
  it('makes no update reads while nothing is new, and still follows new transactions', async () => {
    const { emu, admin, create } = assetLedger();
    const first = create(1);
    const paths: string[] = [];
    const inner = inProcessFetch(emu.app);
    const counting: typeof fetch = (input, init) => {
      paths.push(new URL(input instanceof Request ? input.url : String(input)).pathname);
      return inner(input, init);
    };
    index = new ContractIndex({
      ledger: new LedgerClient({ baseUrl: 'http://ledger', tokenProvider: noAuth, fetch: counting }),
      admin,
      indexedTemplates: ['#index-test:M:Asset'],
      cachedTemplates: [],
      cache: new MemoryCache({ defaultTtlSeconds: 600, logger }),
      logger,
      pollIdleMs: 10,
      identityCheckMs: 60_000,
      ledgerEndHint: () => emu.engine.ledgerEnd(),
    });
    await index.start();
    expect(index.currentOffset).toBe(emu.engine.ledgerEnd());
    expect(index.find('index-test:M:Asset').map((c) => c.contractId)).toEqual([first]);

    // ~20 idle periods: no update reads
    paths.length = 0;
    await new Promise((r) => setTimeout(r, 200));
    expect(paths.filter((p) => p === '/v2/updates')).toEqual([]);

    // a new contract: the tail reads the gap and indexes it
    const cid = create(2);
    const end = Date.now() + 3000;
    while (index.currentOffset < emu.engine.ledgerEnd() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    expect(index.currentOffset).toBe(emu.engine.ledgerEnd());
    expect(index.find('index-test:M:Asset').map((c) => c.contractId).sort()).toEqual([first, cid].sort());
  });
});
