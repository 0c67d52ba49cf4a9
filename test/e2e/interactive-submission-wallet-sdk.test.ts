/**
 * End to end: the official wallet SDK's own interactive-submission path against the emulated
 * ledger over real loopback HTTP:
 *   sdk.ledger.prepare({ partyId, commands, disclosedContracts }).sign(privateKey).execute({ partyId })
 * i.e. POST /v2/interactive-submission/prepare, tweetnacl Ed25519 over the returned hash, POST
 * /v2/interactive-submission/executeAndWait with `signedBy` = the party's namespace (wallet-sdk
 * dist, LedgerNamespace.execute).
 *
 * The external party: the SDK names the signing key by the party id's namespace, which for an
 * external party is its key's fingerprint. Until external party allocation lands, the test makes
 * such a party known to the node (`addRemote`) and registers its key in `engine.externalParties`.
 */
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { CustomLogAdapter, SDK } from '@canton-network/wallet-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerEngine } from '../../src/emulator/ledger/engine.js';
import { createLedgerApiApp } from '../../src/emulator/ledger-api/app.js';
import { ledgerApiRoutes } from '../../src/emulator/ledger-api/index.js';
import { publicKeyFromBytes } from '../../src/emulator/ledger/external-parties.js';
import { createTestTokenV1Rules, mintTestTokenV1, registerTestTokenV1, testTokenV1TemplateId } from '../../src/emulator/templates/test-token-v1/index.js';
import { formatTime } from '../../src/emulator/templates/lf.js';
import { formatId } from '../../src/emulator/ledger/types.js';

const TRANSFER_FACTORY_V1 = '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory';

describe('wallet SDK prepare → sign → execute against the emulated ledger over HTTP', () => {
  let engine: LedgerEngine;
  let server: ServerType | undefined;
  let baseUrl: string;

  beforeAll(async () => {
    engine = new LedgerEngine({ seed: 'e2e-isub' });
    registerTestTokenV1(engine.templates);
    const app = createLedgerApiApp({ engine }, ledgerApiRoutes);
    const info = await new Promise<AddressInfo>((resolve) => {
      server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, resolve);
    });
    baseUrl = `http://127.0.0.1:${info.port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it('a TestTokenV1 transfer offer signed by the SDK is committed, and a bad signature is refused', async () => {
    const sdk = await SDK.create({
      auth: { method: 'self_signed', issuer: 'unsafe-auth', credentials: { clientId: 'isub-user', clientSecret: 'unsafe', audience: 'https://canton.network.global', scope: '' } },
      ledgerClientUrl: baseUrl,
      logAdapter: new CustomLogAdapter(() => {}),
    });
    const keys = sdk.keys.generate();
    const fingerprint = await sdk.keys.fingerprint(keys.publicKey);
    const alice = engine.parties.addRemote(`alice::${fingerprint}`).party;
    engine.externalParties.register({
      party: alice,
      keys: [{ fingerprint, spec: 'SIGNING_KEY_SPEC_EC_CURVE25519', key: publicKeyFromBytes(Buffer.from(keys.publicKey, 'base64'), 'raw') }],
      threshold: 1,
    });
    const admin = engine.parties.allocate('admin').party;
    const bob = engine.parties.allocate('bob').party;
    const rulesCid = createTestTokenV1Rules(engine, admin);
    const holding = mintTestTokenV1(engine, { admin, owner: alice, instrumentId: 'X1', amount: '100' });
    const rules = engine.contracts.get(rulesCid)!;
    const disclosedContracts = [{ templateId: formatId(rules.templateId), contractId: rulesCid, createdEventBlob: rules.blob, synchronizerId: engine.synchronizerId }];
    const now = engine.clock.nowMicros();
    const commands = {
      ExerciseCommand: {
        templateId: TRANSFER_FACTORY_V1,
        contractId: rulesCid,
        choice: 'TransferFactory_Transfer',
        choiceArgument: {
          expectedAdmin: admin,
          transfer: {
            sender: alice,
            receiver: bob,
            amount: '30',
            instrumentId: { admin, id: 'X1' },
            requestedAt: formatTime(now - 60_000_000n),
            executeBefore: formatTime(now + 3_600_000_000n),
            inputHoldingCids: [holding],
            meta: { values: {} },
          },
          extraArgs: { context: { values: {} }, meta: { values: {} } },
        },
      },
    };
    const end = engine.ledgerEnd();
    const result = (await sdk.ledger.prepare({ partyId: alice, commands, disclosedContracts }).sign(keys.privateKey).execute({ partyId: alice })) as {
      updateId: string;
      completionOffset: number;
    };
    expect(result.completionOffset).toBe(end + 1);
    const tx = engine.updates.atOffset(result.completionOffset)!;
    expect(tx.updateId).toBe(result.updateId);
    expect(tx.actAs).toEqual([alice]);
    expect(tx.externalTransactionHash).toMatch(/^[A-Za-z0-9+/]+=*$/);
    // the input holding is consumed; an offer and alice's locked change exist
    expect(engine.contracts.getActive(holding)).toBeUndefined();
    const created = tx.nodes.filter((n) => n.kind === 'create').map((n) => (n.kind === 'create' ? formatId(n.contract.templateId) : ''));
    expect(created).toContain(testTokenV1TemplateId('TokenTransferOffer').replace('#splice-test-token-v1', rules.templateId.packageId));

    // signed with another key: refused with Canton's error, nothing written
    const other = sdk.keys.generate();
    const before = engine.ledgerEnd();
    const holding2 = mintTestTokenV1(engine, { admin, owner: alice, instrumentId: 'X1', amount: '5' });
    const cmd2 = { ...commands, ExerciseCommand: { ...commands.ExerciseCommand, choiceArgument: { ...commands.ExerciseCommand.choiceArgument, transfer: { ...commands.ExerciseCommand.choiceArgument.transfer, amount: '5', inputHoldingCids: [holding2] } } } };
    const failure = await sdk.ledger
      .prepare({ partyId: alice, commands: cmd2, disclosedContracts })
      .sign(other.privateKey)
      .execute({ partyId: alice })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(failure).toMatchObject({ code: 'FAILED_TO_EXECUTE_TRANSACTION' });
    expect(engine.ledgerEnd()).toBe(before + 1); // only the mint
    expect(engine.contracts.getActive(holding2)).toBeDefined();
  });
});
