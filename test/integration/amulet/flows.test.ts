/**
 * Canton Coin over real loopback HTTP: the emulator's JSON Ledger API with the Amulet world
 * seeded; a wallet-like client taps, offers a transfer through the token-standard factory with
 * the DSO's contracts disclosed (read the way a wallet gets them: the DSO's ACS with the blob),
 * the receiver accepts, and holdings and the update stream show it; then the clock moves and the
 * rounds advance on the next submission.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { ManualClock } from '../../../src/canton/clock.js';
import { formatTime } from '../../../src/canton/lf-value.js';
import { openMiningRounds, registerAmulet, seedAmuletWorld, tapAmulet, type AmuletWorld } from '../../../src/emulator/templates/amulet/index.js';
import { AmuletClient, IFACE, exercise, trace, type Disclosed } from '../../unit/emulator/templates/amulet/fixture.js';
import { AllocatePartyResponseSchema } from '../../../src/ledger-client/schemas/parties.js';
import type { PendingTransfer, TransferInstructionResult } from '../../unit/emulator/templates/wire.js';

let emu: RunningEmulator;
let clock: ManualClock;
let client: AmuletClient;
let world: AmuletWorld;

beforeAll(async () => {
  clock = new ManualClock('2026-05-01T10:00:00Z');
  emu = await startEmulator({ config: { port: 0, demoWorld: false, logLevel: 'silent' }, clock });
  registerAmulet(emu.engine.templates);
  world = seedAmuletWorld(emu.engine);
  client = new AmuletClient((path, init) => fetch(emu.ledgerUrl + path, init));
});

afterAll(async () => {
  await emu?.close();
});

const at = (ms: number) => formatTime(clock.nowMicros() + BigInt(ms) * 1000n);
const cid = (c: string) => ({ tag: 'AV_ContractId', value: c });

/** A disclosed contract with its create arguments (LF JSON). */
type WithPayload = Disclosed & { payload: unknown };

/** The DSO's contracts as a wallet receives them: read with the created-event blob. */
async function dsoDisclosed(): Promise<{ byEntity: Record<string, WithPayload[]> }> {
  const events = await client.acs(world.dso, { WildcardFilter: { value: { includeCreatedEventBlob: true } } });
  const byEntity: Record<string, WithPayload[]> = {};
  for (const e of events) {
    const entity = e.templateId.split(':').pop()!;
    (byEntity[entity] ??= []).push({ templateId: e.templateId, contractId: e.contractId, createdEventBlob: e.createdEventBlob, synchronizerId: emu.engine.synchronizerId, payload: e.createArgument });
  }
  return { byEntity };
}

/** The round number of an OpenMiningRound's create arguments. */
const roundNumber = (c: WithPayload): number => Number(z.object({ round: z.object({ number: z.string() }) }).parse(c.payload).round.number);

describe('Amulet over HTTP', () => {
  it('tap, offer through the factory, accept; holdings and updates agree; rounds advance with the clock', async () => {
    const allocate = async (hint: string) => AllocatePartyResponseSchema.parse((await client.post('/v2/parties', { partyIdHint: hint, identityProviderId: '' })).body).partyDetails.party;
    const alice = await allocate('alice');
    const bob = await allocate('bob');
    const h = tapAmulet(emu.engine, { dso: world.dso, receiver: alice, amount: '100' });
    expect(await client.balance(alice)).toBe('100.0000000000');

    const { byEntity } = await dsoDisclosed();
    const rules = byEntity.AmuletRules![0]!;
    const factory = byEntity.ExternalPartyAmuletRules![0]!;
    const rounds = byEntity.OpenMiningRound!.sort((a, b) => roundNumber(a) - roundNumber(b));
    const round = rounds[1]!; // round 1 is open, round 2 opens after a tick
    const strip = ({ payload: _p, ...d }: WithPayload): Disclosed => d;
    const context = { values: { 'amulet-rules': cid(rules.contractId!), 'open-round': cid(round.contractId!) } };

    // without the factory disclosed, alice (not a stakeholder) cannot use it
    const arg = {
      expectedAdmin: world.dso,
      transfer: {
        sender: alice,
        receiver: bob,
        amount: '25',
        instrumentId: { admin: world.dso, id: 'Amulet' },
        requestedAt: at(-60_000),
        executeBefore: at(3600_000),
        inputHoldingCids: [h],
        meta: { values: {} },
      },
      extraArgs: { context, meta: { values: {} } },
    };
    const hidden = await client.submit([alice], [exercise(IFACE.TransferFactoryV1, factory.contractId!, 'TransferFactory_Transfer', arg)], [strip(rules), strip(round)]);
    expect(hidden.error.code).toBe('CONTRACT_NOT_FOUND');

    const begin = await client.ledgerEnd();
    const offer = await client.ok<TransferInstructionResult<PendingTransfer>>([alice], [exercise(IFACE.TransferFactoryV1, factory.contractId!, 'TransferFactory_Transfer', arg)], [strip(rules), strip(round), strip(factory)]);
    const instr = offer.result.output.value.transferInstructionCid;
    expect(await client.balance(alice, true)).toBe('25.0000000000');

    // bob reads the instruction and the DSO-held LockedAmulet comes from the DSO's ACS (as the registry serves it)
    const locked = (await dsoDisclosed()).byEntity.LockedAmulet![0]!;
    const accept = await client.ok<TransferInstructionResult>(
      [bob],
      [exercise(IFACE.TransferInstructionV1, instr, 'TransferInstruction_Accept', { extraArgs: { context: { values: { ...context.values, 'expire-lock': { tag: 'AV_Bool', value: true } } }, meta: { values: {} } } })],
      [strip(rules), strip(round), strip(locked)],
    );
    expect(accept.result.output.tag).toBe('TransferInstructionResult_Completed');
    expect(await client.balance(bob)).toBe('25.0000000000');
    expect(await client.balance(alice)).toBe('75.0000000000');
    expect(await client.balance(alice, true)).toBe('0.0000000000');

    const updates = await client.updates(alice, begin);
    expect(updates.map((u) => trace(u.events))).toEqual([
      [
        'exercise ExternalPartyAmuletRules.TransferFactory_Transfer',
        'exercise AmuletRules.AmuletRules_Transfer',
        'consume Amulet.Archive',
        'create LockedAmulet',
        'create Amulet',
        'create AmuletTransferInstruction',
      ],
      [
        'consume AmuletTransferInstruction.TransferInstruction_Accept',
        'consume LockedAmulet.LockedAmulet_Unlock',
        'create Amulet',
        'exercise AmuletRules.AmuletRules_Transfer',
        'consume Amulet.Archive',
        'create Amulet',
      ],
    ]);

    // the clock moves a tick: the next submission (any) first advances the rounds
    expect(openMiningRounds(emu.engine, world.dso).map((r) => r.payload.round.number)).toEqual(['0', '1', '2']);
    clock.advance(600_000);
    tapAmulet(emu.engine, { dso: world.dso, receiver: bob, amount: '1' });
    expect(openMiningRounds(emu.engine, world.dso).map((r) => r.payload.round.number)).toEqual(['1', '2', '3']);
  });
});
