/**
 * The registry over the emulated ledger (in process), with TestTokenV1: the wallet asks for a
 * factory and context, submits exactly what it got, and the transfer happens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { buildEmulator } from '../../../src/emulator/index.js';
import { ManualClock } from '../../../src/canton/clock.js';
import { createTestTokenV1Rules, mintTestTokenV1, registerTestTokenV1 } from '../../../src/emulator/templates/test-token-v1/index.js';
import { MemoryCache } from '../../../src/cache/memory-cache.js';
import { LedgerClient } from '../../../src/ledger-client/client.js';
import { noAuth } from '../../../src/ledger-client/auth.js';
import { createRegistry, type Registry } from '../../../src/registry/index.js';
import { TestTokenV1Recipe } from '../../../src/registry/recipes/test-token-v1.js';
import { inProcessFetch as inProcess } from '../../../src/ledger-client/in-process.js';
import { ListInstrumentsResponseSchema } from '../../../src/registry/schemas.js';
import { errorOf, factoryOf } from '../../support/registry-wire.js';
import { createdEvent, transactionOf } from '../../support/ledger-wire.js';

const logger = pino({ level: 'silent' });
const clock = new ManualClock('2026-05-01T10:00:00Z');
const emu = buildEmulator({ config: { demoWorld: false, logLevel: 'silent' }, clock });
const engine = emu.engine;
registerTestTokenV1(engine.templates);
const admin = engine.parties.allocate('admin').party;
const alice = engine.parties.allocate('alice').party;
const bob = engine.parties.allocate('bob').party;
let registry: Registry;
let ledgerCalls = 0;

const inProcessFetch = inProcess(emu.app, () => ledgerCalls++);

/** The registry's answer: its status and JSON body (read with registry-wire's `factoryOf`, `errorOf`). */
async function post(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const r = await registry.app.request(path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  return { status: r.status, body: await r.json() };
}

async function ledger(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const r = await emu.app.request(path, { method: 'POST', body: JSON.stringify(body) });
  return { status: r.status, body: await r.json() };
}

type TransferArgs = ReturnType<typeof transferArgs>;
function transferArgs(sender: string, receiver: string, amount: string, inputs: string[], context: unknown = { values: {} }) {
  return {
    expectedAdmin: admin,
    transfer: {
      sender,
      receiver,
      amount,
      instrumentId: { admin, id: 'X1' },
      requestedAt: '2026-05-01T09:59:00Z',
      executeBefore: '2026-05-02T10:00:00Z',
      inputHoldingCids: inputs,
      meta: { values: {} },
    },
    extraArgs: { context, meta: { values: {} } },
  };
}

beforeAll(async () => {
  createTestTokenV1Rules(engine, admin);
  const ledgerClient = new LedgerClient({ baseUrl: 'http://ledger', tokenProvider: noAuth, fetch: inProcessFetch });
  registry = createRegistry({
    admin,
    instruments: [{ id: 'X1', name: 'Test token one', symbol: 'TT1', decimals: 4, recipe: 'splice-test-token-v1', totalSupply: 'ledger' }],
    recipes: [new TestTokenV1Recipe()],
    ledger: ledgerClient,
    cache: new MemoryCache({ defaultTtlSeconds: 600, logger }),
    clock,
    logger,
    pollIdleMs: 20,
  });
  await registry.start();
});
afterAll(async () => registry.stop());

describe('registry with TestTokenV1 over the emulated ledger', () => {
  it('serves metadata with the total supply computed from the ledger', async () => {
    mintTestTokenV1(engine, { admin, owner: alice, instrumentId: 'X1', amount: '100' });
    const r = await registry.app.request('/registry/metadata/v1/instruments');
    const body = ListInstrumentsResponseSchema.parse(await r.json());
    expect(body.instruments[0]).toMatchObject({ id: 'X1', decimals: 4, totalSupply: '100.0000000000' });
    expect(await (await registry.app.request('/registry/metadata/v1/info')).json()).toEqual({
      adminId: admin,
      supportedApis: { 'splice-api-token-metadata-v1': 1 },
    });
  });

  it('hands out a factory and context with which the wallet transfers, then an accept context', async () => {
    const holding = mintTestTokenV1(engine, { admin, owner: alice, instrumentId: 'X1', amount: '10' });
    const answer = await post('/registry/transfer-instruction/v1/transfer-factory', { choiceArguments: transferArgs(alice, bob, '4', [holding]), excludeDebugFields: true });
    expect(answer.status).toBe(200);
    const f = factoryOf(answer.body);
    expect(f.transferKind).toBe('offer');
    expect(f.choiceContext.disclosedContracts).toHaveLength(1);
    expect(f.choiceContext.disclosedContracts[0]!.debugPayload).toBeUndefined();
    const args = transferArgs(alice, bob, '4', [holding]);
    args.extraArgs.context = f.choiceContext.choiceContextData;
    const tx = await ledger('/v2/commands/submit-and-wait-for-transaction', {
      commands: {
        commands: [
          {
            ExerciseCommand: {
              templateId: '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory',
              contractId: f.factoryId,
              choice: 'TransferFactory_Transfer',
              choiceArgument: args,
            },
          },
        ],
        commandId: 'tf-1',
        actAs: [alice],
        userId: 'alice',
        disclosedContracts: f.choiceContext.disclosedContracts,
      },
    });
    expect(tx.status).toBe(200);
    const offer = transactionOf(tx.body)
      .events.filter((e) => 'CreatedEvent' in e)
      .map(createdEvent)
      .find((e) => e.templateId.endsWith(':TokenTransferOffer'));
    expect(offer).toBeDefined();
    // the offer was created a moment ago: the accept context must not 404
    const accept = await post(`/registry/transfer-instruction/v1/${offer!.contractId}/choice-contexts/accept`, {});
    expect(accept.status).toBe(200);
    expect(accept.body).toEqual({ choiceContextData: { values: {} }, disclosedContracts: [] });
    // v2 is not implemented by TestTokenV1
    const v2 = await post(`/registry/transfer-instruction/v2/${offer!.contractId}/choice-contexts/accept`, {});
    expect(v2.status).toBe(400);
    expect(errorOf(v2.body)).toMatch(/only the V1/);
  });

  it('rejects what the token would reject anyway, with a 400 that says why', async () => {
    const factory = (choiceArguments: unknown) => post('/registry/transfer-instruction/v1/transfer-factory', { choiceArguments });
    const bad = async (mut: (a: TransferArgs) => void) => {
      const a = transferArgs(alice, bob, '1', []);
      mut(a);
      return errorOf((await factory(a)).body);
    };
    expect(await bad((a) => (a.expectedAdmin = bob))).toMatch(/expectedAdmin/);
    expect(await bad((a) => (a.transfer.instrumentId.id = 'NOPE'))).toMatch(/Unknown instrument NOPE/);
    expect(await bad((a) => (a.transfer.amount = '0'))).toMatch(/must be positive/);
    expect(await bad((a) => (a.transfer.amount = '1.00001'))).toMatch(/decimal places/);
    expect(await bad((a) => (a.transfer.executeBefore = '2026-05-01T09:00:00Z'))).toMatch(/in the past/);
    expect(await bad((a) => (a.transfer.requestedAt = '2026-05-01T11:00:00Z'))).toMatch(/in the future/);
    const { transfer: _dropped, ...noTransfer } = transferArgs(alice, bob, '1', []);
    expect((await factory(noTransfer)).status).toBe(400);
    const unknown = await post('/registry/transfer-instruction/v1/00abcdef/choice-contexts/accept', {});
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown.body)).toMatch(/00abcdef/);
  });
  it('answers a warm factory request without any ledger call', async () => {
    const holding = mintTestTokenV1(engine, { admin, owner: alice, instrumentId: 'X1', amount: '1' });
    await post('/registry/transfer-instruction/v1/transfer-factory', { choiceArguments: transferArgs(alice, alice, '1', [holding]) });
    // stop following the ledger, so that any call counted below is one the request made
    await registry.stop();
    const before = ledgerCalls;
    const answer = await post('/registry/transfer-instruction/v1/transfer-factory', { choiceArguments: transferArgs(alice, alice, '1', [holding]) });
    expect(answer.status).toBe(200);
    const f = factoryOf(answer.body);
    expect(f.transferKind).toBe('self');
    expect(f.choiceContext.disclosedContracts[0]!.debugPackageName).toBe('splice-test-token-v1');
    expect(ledgerCalls - before).toBe(0);
  });
});
