/**
 * End to end: what the wallet SDK's LocalNet flows assume of a participant, against the emulated
 * stack started with `auth: { mode: 'localnet' }` (LEDGER_AUTH=localnet) over real loopback HTTP:
 *  - the SDK's `self_signed` tokens (HS256 `unsafe`, aud `https://canton.network.global`, user in
 *    `sub`, empty scope) are verified and accepted as they are; a token signed with another secret
 *    is UNAUTHENTICATED (401, redacted as Canton redacts it);
 *  - the built-in `canton-builtin-admin-workflow-ping` package is there: listed, and its Ping
 *    created with the SDK's own `PingService` command, then answered with Respond;
 *  - the validator's ledger user (`GET /v0/validator-user` → `ledger-api-user`) has the validator
 *    party as primary party and may act as it, so `amulet.tapInternal` (acting as the validator
 *    party the SDK learnt from the validator) succeeds.
 */
import { CustomLogAdapter, SDK } from '@canton-network/wallet-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_WORKFLOW_PING_PACKAGE_ID, PING_TEMPLATE_REF } from '../../src/emulator/templates/admin-workflows/ping.js';
import { startStack, type RunningStack } from '../../src/stack.js';
import { amuletUrls, createAmuletSdk, validatorJwt, type AmuletSdk } from './support/amulet.js';
import { createWalletSdk, selfSignedAuth, type WalletSdk } from './support/wallet-sdk.js';

const VALIDATOR_USER = 'ledger-api-user';

/** The fields of the JSON API's CreatedEvent read here. */
interface CreatedEvent {
  contractId: string;
  templateId: string;
  createArgument: unknown;
}
/** One `POST /v2/state/active-contracts` entry (an active contract). */
interface ActiveContractEntry {
  contractEntry: { JsActiveContract: { createdEvent: CreatedEvent } };
}

describe('LocalNet conventions: LEDGER_AUTH=localnet, the admin-workflows Ping, the validator user', () => {
  let stack: RunningStack;
  let alice: string;
  let bob: string;
  let validator: string;
  let aliceSdk: WalletSdk;
  let bobSdk: WalletSdk;

  /** A raw ledger call with a LocalNet token (the SDK's token format) of `user`. */
  const ledger = async <T = Record<string, unknown>>(method: 'GET' | 'POST', path: string, user: string, body?: unknown, secret?: string) => {
    const token = await validatorJwt(user, secret === undefined ? {} : { secret });
    const res = await fetch(`${stack.ledgerUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}` },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as T };
  };

  beforeAll(async () => {
    stack = await startStack({ config: { port: 0, logLevel: 'silent', auth: { mode: 'localnet' } }, registryPort: 0, scanPort: 0, validatorPort: 0 });
    const party = (hint: string) => stack.seeded!.parties.find((p) => p.hint === hint)!.party;
    alice = party('alice');
    bob = party('bob');
    validator = stack.seeded!.amulet!.validator;
    [aliceSdk, bobSdk] = await Promise.all([
      createWalletSdk(stack.ledgerUrl, stack.registryUrl!, 'alice'),
      createWalletSdk(stack.ledgerUrl, stack.registryUrl!, 'bob'),
    ]);
  });

  afterAll(async () => {
    await stack?.close();
  });

  describe('LEDGER_AUTH=localnet', () => {
    it("accepts the SDK's self-signed token as it is: the SDK learns its user from /v2/authenticated-user", async () => {
      const me = await ledger<{ user: unknown }>('GET', '/v2/authenticated-user', 'alice');
      expect(me.status).toBe(200);
      expect(me.body.user).toMatchObject({ id: 'alice', primaryParty: alice });
      // The SDK's own requests carry its token: a party read and a submission succeed below.
      const parties = await ledger('GET', `/v2/parties/${encodeURIComponent(alice)}`, 'alice');
      expect(parties.status).toBe(200);
    });

    it('rejects a token signed with another secret (401), and the SDK cannot start with it', async () => {
      const res = await ledger('GET', '/v2/authenticated-user', 'alice', undefined, 'not-unsafe');
      expect(res.status).toBe(401);
      // Canton redacts authentication failures ("security-sensitive"): gRPC UNAUTHENTICATED = 16.
      expect(res.body).toMatchObject({ code: 'NA', cause: 'A security-sensitive error has been received', grpcCodeValue: 16 });
      const wrong = selfSignedAuth('alice');
      wrong.credentials.clientSecret = 'not-unsafe';
      await expect(
        SDK.create({ auth: wrong, ledgerClientUrl: stack.ledgerUrl, logAdapter: new CustomLogAdapter(() => {}) }),
      ).rejects.toMatchObject({ code: 'NA', grpcCodeValue: 16 });
    });
  });

  describe('canton-builtin-admin-workflow-ping', () => {
    it('is listed and registered', async () => {
      const list = await ledger<{ packageIds: string[] }>('GET', '/v2/packages', 'alice');
      expect(list.status).toBe(200);
      expect(list.body.packageIds).toContain(ADMIN_WORKFLOW_PING_PACKAGE_ID);
      const status = await ledger('GET', `/v2/packages/${ADMIN_WORKFLOW_PING_PACKAGE_ID}/status`, 'alice');
      expect(status.body).toEqual({ packageStatus: 'PACKAGE_STATUS_REGISTERED' });
    });

    it("alice pings bob with the SDK's PingService command; bob sees it and responds", async () => {
      const commands = aliceSdk.utils.ping.create([{ initiator: alice, responder: bob, id: 'sdk-ping-1' }]);
      expect(commands[0]!.CreateCommand.templateId).toBe(PING_TEMPLATE_REF);
      const created = await aliceSdk.ledger.internal.submit({ commands, actAs: [alice] });
      expect(created.completionOffset).toBeGreaterThan(0);

      const acs = await ledger<ActiveContractEntry[]>('POST', '/v2/state/active-contracts', 'bob', {
        eventFormat: { filtersByParty: { [bob]: { cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: PING_TEMPLATE_REF, includeCreatedEventBlob: false } } } }] } }, verbose: false },
        activeAtOffset: created.completionOffset,
      });
      expect(acs.status).toBe(200);
      const pings = acs.body.map((e) => e.contractEntry.JsActiveContract.createdEvent);
      expect(pings.map((p) => p.createArgument)).toEqual([{ id: 'sdk-ping-1', initiator: alice, responder: bob }]);

      const responded = await bobSdk.ledger.internal.submit({
        commands: [{ ExerciseCommand: { templateId: PING_TEMPLATE_REF, contractId: pings[0]!.contractId, choice: 'Respond', choiceArgument: {} } }],
        actAs: [bob],
      });
      expect(responded.completionOffset).toBeGreaterThan(created.completionOffset);
      expect(stack.engine.contracts.getActive(pings[0]!.contractId)).toBeUndefined();
    });
  });

  describe("the validator's ledger user", () => {
    let validatorSdk: AmuletSdk;

    beforeAll(async () => {
      validatorSdk = await createAmuletSdk(stack, VALIDATOR_USER, { viaValidator: true, registry: amuletUrls(stack).registry });
    });

    it('is ledger-api-user with the validator party as primary party, CanActAs it and ParticipantAdmin', async () => {
      const info = await fetch(`${stack.validatorUrl}/api/validator/v0/validator-user`).then((r) => r.json());
      expect(info).toMatchObject({ party_id: validator, user_name: VALIDATOR_USER });
      const user = await ledger<{ user: unknown }>('GET', `/v2/users/${VALIDATOR_USER}`, VALIDATOR_USER);
      expect(user.body.user).toMatchObject({ id: VALIDATOR_USER, primaryParty: validator });
      const rights = await ledger<{ rights: unknown[] }>('GET', `/v2/users/${VALIDATOR_USER}/rights`, VALIDATOR_USER);
      expect(rights.body.rights).toEqual(
        expect.arrayContaining([{ kind: { ParticipantAdmin: { value: {} } } }, { kind: { CanActAs: { value: { party: validator } } } }]),
      );
      expect(rights.body.rights).toHaveLength(2);
    });

    it('amulet.tapInternal acting as the validator party (learnt from the validator) succeeds', async () => {
      const before = stack.engine.ledgerEnd();
      const submitted = await validatorSdk.amulet.tapInternal('25');
      expect(submitted.completionOffset).toBeGreaterThan(before);
      const tx = await ledger<{ transaction: { events: Array<{ CreatedEvent?: CreatedEvent }> } }>('POST', '/v2/updates/transaction-by-offset', VALIDATOR_USER, {
        offset: submitted.completionOffset,
        transactionFormat: { eventFormat: { filtersByParty: { [validator]: { cumulative: [] } }, verbose: true }, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' },
      });
      expect(tx.status).toBe(200);
      const amulets = tx.body.transaction.events.flatMap((e) => (e.CreatedEvent?.templateId.endsWith(':Splice.Amulet:Amulet') ? [e.CreatedEvent] : []));
      const amuletArgs = amulets.map((c) => c.createArgument as { owner: string; amount: { initialAmount: string } });
      expect(amuletArgs.map((a) => [a.owner, a.amount.initialAmount])).toEqual([
        [validator, '25.0000000000'],
      ]);
    });

    it('another user still may not act as the validator party', async () => {
      const denied = await ledger<{ code: string }>('POST', '/v2/commands/submit-and-wait', 'alice', {
        commands: [{ CreateCommand: { templateId: PING_TEMPLATE_REF, createArguments: { id: 'x', initiator: validator, responder: alice } } }],
        commandId: 'alice-as-validator',
        userId: 'alice',
        actAs: [validator],
      });
      expect(denied.status).toBe(403);
      // Redacted as Canton does; gRPC PERMISSION_DENIED = 7.
      expect(denied.body).toMatchObject({ code: 'NA', grpcCodeValue: 7 });
    });
  });
});
