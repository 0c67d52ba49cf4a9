import { describe, expect, it } from 'vitest';
import { buildEmulator } from '../../../../../src/emulator/index.js';
import {
  ADMIN_WORKFLOW_PING_PACKAGE_ID,
  installAdminWorkflows,
  PING_TEMPLATE_REF,
} from '../../../../../src/emulator/templates/admin-workflows/ping.js';
import { ListPackagesResponseSchema } from '../../../../../src/ledger-client/schemas/packages.js';
import { cmds, create, exercise } from '../../../../support/ledger-fixtures.js';
import { buildDar } from '../../../../support/dar-builder.js';
import { createdOf, exercisedOf, LedgerResponse } from '../wire.js';

const PING_ID_OUT = `${ADMIN_WORKFLOW_PING_PACKAGE_ID}:Canton.Internal.Ping:Ping`;

async function json(r: Response): Promise<unknown> {
  return JSON.parse(await r.text());
}

/** The response's status and JSON body, readable as a transaction or a Canton error. */
async function response(r: Response): Promise<LedgerResponse> {
  return new LedgerResponse(r.status, await json(r));
}

function emulator(demoWorld: boolean) {
  const { engine, app } = buildEmulator({ config: { demoWorld, logLevel: 'silent' } });
  const post = (path: string, body: unknown) => app.request(path, { method: 'POST', body: JSON.stringify(body) });
  const submit = async (actAs: string[], commands: unknown[]) => {
    const r = await post('/v2/commands/submit-and-wait-for-transaction', {
      commands: cmds(actAs, commands),
      transactionFormat: {
        eventFormat: { filtersByParty: Object.fromEntries(actAs.map((p) => [p, { cumulative: [] }])), verbose: true },
        transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
      },
    });
    return response(r);
  };
  return { engine, app, post, submit };
}

describe('the built-in admin-workflows package (canton-builtin-admin-workflow-ping)', () => {
  for (const demoWorld of [false, true]) {
    it(`is listed, registered and vetted from start (demo world ${demoWorld ? 'on' : 'off'})`, async () => {
      const { app, post, engine } = emulator(demoWorld);
      const list = ListPackagesResponseSchema.parse(await json(await app.request('/v2/packages')));
      expect(list.packageIds[0]).toBe('de2cc2f90eb523414ff54e899951dadd8789a4c07e0f71f6d6c9eaf57d412a54');
      const status = await json(await app.request(`/v2/packages/${ADMIN_WORKFLOW_PING_PACKAGE_ID}/status`));
      expect(status).toEqual({ packageStatus: 'PACKAGE_STATUS_REGISTERED' });
      const vetted = await json(await post('/v2/package-vetting/list', { packageMetadataFilter: { packageNamePrefixes: ['canton-builtin'] } }));
      expect(vetted).toEqual({
        vettedPackages: [
          {
            packages: [{ packageId: ADMIN_WORKFLOW_PING_PACKAGE_ID, packageName: 'canton-builtin-admin-workflow-ping', packageVersion: '3.4.0' }],
            participantId: engine.participantId,
            synchronizerId: engine.synchronizerId,
            topologySerial: 1,
          },
        ],
        nextPageToken: '',
      });
    });
  }

  it('says that its archive bytes are not available instead of serving other bytes', async () => {
    const { app } = emulator(false);
    const res = await app.request(`/v2/packages/${ADMIN_WORKFLOW_PING_PACKAGE_ID}`);
    expect(res.status).toBe(404);
    const r = await response(res);
    expect(r.body).toMatchObject({ code: 'PACKAGE_NOT_FOUND', resources: [['PACKAGE', ADMIN_WORKFLOW_PING_PACKAGE_ID]] });
    expect(r.error.cause).toContain('canton-builtin-admin-workflow-ping 3.4.0 is built into the emulated participant');
  });

  it('is installed once however often it is installed', () => {
    const { engine } = emulator(false);
    installAdminWorkflows(engine);
    expect(engine.packages.list()).toEqual([ADMIN_WORKFLOW_PING_PACKAGE_ID]);
    expect(engine.packages.vettedPackages().serial).toBe(1);
    expect(engine.templates.allTemplates().filter((t) => t.id.entityName === 'Ping')).toHaveLength(1);
  });

  it('refuses to vet another package with its name and version (KNOWN_PACKAGE_VERSION), changing nothing', async () => {
    const { app, engine } = emulator(false);
    const impostor = buildDar({
      name: 'canton-builtin-admin-workflow-ping',
      version: '3.4.0',
      modules: [{ name: 'Canton.Internal.Ping', templates: [{ name: 'Ping', fields: [['initiator', 'Party']] }] }],
    });
    const res = await app.request('/v2/dars', { method: 'POST', body: new Uint8Array(impostor.bytes) });
    expect(res.status).toBe(400);
    expect((await response(res)).error.code).toBe('KNOWN_PACKAGE_VERSION');
    expect(engine.packages.list()).toEqual([ADMIN_WORKFLOW_PING_PACKAGE_ID]);
  });
});

describe('Canton.Internal.Ping:Ping', () => {
  function parties() {
    const l = emulator(false);
    return { ...l, alice: l.engine.parties.allocate('alice').party, bob: l.engine.parties.allocate('bob').party };
  }

  it('is created by package-name reference as the wallet SDK does: signatory initiator, observer responder', async () => {
    const { submit, alice, bob } = parties();
    const r = await submit([alice], [create(PING_TEMPLATE_REF, { id: 'ping-1', initiator: alice, responder: bob })]);
    expect(r.status).toBe(200);
    const ev = createdOf(r.transaction.events[0]);
    expect(ev.templateId).toBe(PING_ID_OUT);
    expect(ev.packageName).toBe('canton-builtin-admin-workflow-ping');
    expect(ev.createArgument).toEqual({ id: 'ping-1', initiator: alice, responder: bob });
    expect(ev.signatories).toEqual([alice]);
    expect(ev.observers).toEqual([bob]);
  });

  it('Respond: only the responder may, it archives the ping and returns ()', async () => {
    const { submit, engine, alice, bob } = parties();
    const created = await submit([alice], [create(PING_TEMPLATE_REF, { id: 'p', initiator: alice, responder: bob })]);
    const cid = createdOf(created.transaction.events[0]).contractId;

    const end = engine.ledgerEnd();
    const byInitiator = await submit([alice], [exercise(PING_TEMPLATE_REF, cid, 'Respond', {})]);
    expect(byInitiator.status).toBe(400);
    expect(byInitiator.error.code).toBe('DAML_AUTHORIZATION_ERROR');
    expect(engine.ledgerEnd()).toBe(end);

    const responded = await submit([bob], [exercise(PING_TEMPLATE_REF, cid, 'Respond', {})]);
    expect(responded.status).toBe(200);
    const ex = exercisedOf(responded.transaction.events[0]);
    expect(ex).toMatchObject({ contractId: cid, choice: 'Respond', consuming: true, exerciseResult: {}, actingParties: [bob] });
    expect(engine.contracts.get(cid)?.archivedOffset).toBe(engine.ledgerEnd());
    expect(engine.contracts.getActive(cid)).toBeUndefined();

    const again = await submit([bob], [exercise(PING_TEMPLATE_REF, cid, 'Respond', {})]);
    expect(again.status).toBe(404);
    expect(again.error.code).toBe('CONTRACT_NOT_FOUND');
  });

  it('AbortPing: any stakeholder names itself as `anyone` and archives it', async () => {
    const { submit, alice, bob } = parties();
    const created = await submit([alice], [create(PING_TEMPLATE_REF, { id: 'p', initiator: alice, responder: bob })]);
    const cid = createdOf(created.transaction.events[0]).contractId;
    const notAuthorized = await submit([bob], [exercise(PING_TEMPLATE_REF, cid, 'AbortPing', { anyone: alice })]);
    expect(notAuthorized.error.code).toBe('DAML_AUTHORIZATION_ERROR');
    const aborted = await submit([bob], [exercise(PING_TEMPLATE_REF, cid, 'AbortPing', { anyone: bob })]);
    expect(aborted.status).toBe(200);
    expect(aborted.transaction.events[0]!.ExercisedEvent).toMatchObject({ choice: 'AbortPing', consuming: true, actingParties: [bob] });
  });

  it('rejects malformed arguments as command preprocessing failures, changing nothing', async () => {
    const { submit, engine, alice, bob } = parties();
    const end = engine.ledgerEnd();
    const missing = await submit([alice], [create(PING_TEMPLATE_REF, { id: 'p', initiator: alice })]);
    expect(missing.status).toBe(400);
    expect(missing.error.code).toBe('COMMAND_PREPROCESSING_FAILED');
    expect(missing.error.cause).toContain('responder');
    const created = await submit([alice], [create(PING_TEMPLATE_REF, { id: 'p', initiator: alice, responder: bob })]);
    const cid = createdOf(created.transaction.events[0]).contractId;
    const noAnyone = await submit([bob], [exercise(PING_TEMPLATE_REF, cid, 'AbortPing', {})]);
    expect(noAnyone.error.code).toBe('COMMAND_PREPROCESSING_FAILED');
    expect(engine.ledgerEnd()).toBe(end + 1);
  });
});
