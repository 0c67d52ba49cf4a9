/** The client pointed at the emulator in-process (no socket): `fetch` is the Hono app's `request`. */
import { describe, expect, it } from 'vitest';
import { buildEmulator } from '../../../src/emulator/index.js';
import { noAuth } from '../../../src/ledger-client/auth.js';
import { LedgerClient } from '../../../src/ledger-client/client.js';
import { DEFAULT_DEMO_WORLD } from '../../../src/emulator/world/seed.js';

describe('LedgerClient in-process', () => {
  it('reads the emulator through app.request', async () => {
    const emu = buildEmulator({
      world: { ...DEFAULT_DEMO_WORLD, instruments: [], amulet: undefined },
      config: {
        logLevel: 'silent',
        declaredTemplates: [{ packageName: 'acme', moduleName: 'M', entityName: 'T', signatories: ['owner'], observers: [], implements: [] }],
      },
    });
    const owner = emu.seeded!.parties[0]!.party;
    const c = new LedgerClient({
      baseUrl: 'http://emulator.invalid',
      tokenProvider: noAuth,
      fetch: async (input, init) => emu.app.request(String(input), init),
    });
    expect(await c.ledgerEnd()).toBe(0);
    const set0 = await c.activeContracts({ parties: [owner] });
    expect(set0).toEqual({ activeAtOffset: 0, contracts: [], incompleteAssigned: [], incompleteUnassigned: [] });

    const r = await emu.app.request('/v2/commands/submit-and-wait', {
      method: 'POST',
      body: JSON.stringify({
        commands: [{ CreateCommand: { templateId: '#acme:M:T', createArguments: { owner } } }],
        commandId: 'c1',
        actAs: [owner],
        userId: 'tester',
      }),
    });
    expect(r.status).toBe(200);
    const set = await c.activeContracts({ parties: [owner], templateIds: ['#acme:M:T'] });
    expect(set.activeAtOffset).toBe(1);
    expect(set.contracts[0]!.createdEvent.createArgument).toEqual({ owner });
    const ev = await c.eventsByContractId(set.contracts[0]!.createdEvent.contractId, [owner]);
    expect(ev?.created?.createdEvent.signatories).toEqual([owner]);
  });
});
