import { describe, expect, it } from 'vitest';
import { createLedgerApiApp, ledgerApiRoutes } from '../../../../src/emulator/ledger-api/routes.js';
import { LedgerEngine } from '../../../../src/emulator/participant/engine.js';
import type { QualifiedId } from '../../../../src/emulator/participant/types.js';
import { buildDar } from '../../../support/dar-builder.js';
import { activeContracts, cantonError, createdEvent, fieldsOf, transactionOf } from '../../../support/ledger-wire.js';

/**
 * A declared template whose package was uploaded as a DAR: its create argument is type-checked
 * and normalised to the transcode JSON encoding (Canton `JsonCodec.scala`) as Canton would store
 * and print it.
 */
const dar = buildDar({
  name: 'typed-pkg',
  version: '1.0.0',
  modules: [
    {
      name: 'Main',
      dataTypes: [
        { name: 'Point', record: [['x', 'Int64'], ['y', 'Int64']] },
        { name: 'Shape', variant: [['Circle', 'Numeric 10'], ['Rect', 'Main:Point'], ['Empty', 'Unit']] },
        { name: 'Color', enum: ['Red', 'Green', 'Blue'] },
        { name: 'Pair', params: ['a', 'b'], record: [['fst', 'a'], ['snd', 'b']] },
      ],
      templates: [
        {
          name: 'Deal',
          fields: [
            ['owner', 'Party'],
            ['amount', 'Numeric 10'],
            ['count', 'Int64'],
            ['memo', 'Optional Text'],
            ['deep', 'Optional (Optional Int64)'],
            ['home', 'Main:Point'],
            ['shape', 'Main:Shape'],
            ['color', 'Main:Color'],
            ['tags', 'List Text'],
            ['attrs', 'TextMap Int64'],
            ['scores', 'GenMap Text Int64'],
            ['pair', 'Main:Pair Int64 (Numeric 2)'],
            ['when', 'Timestamp'],
            ['observers', 'List Party'],
          ],
        },
      ],
    },
  ],
});

const DEAL: QualifiedId = { packageId: dar.mainPackageId, packageName: 'typed-pkg', moduleName: 'Main', entityName: 'Deal' };
const DEAL_REF = '#typed-pkg:Main:Deal';

function setup(opts: { upload?: boolean; id?: QualifiedId } = {}) {
  const engine = new LedgerEngine({ seed: 'test' });
  const app = createLedgerApiApp({ engine }, ledgerApiRoutes);
  engine.templates.declare({ id: opts.id ?? DEAL, signatories: ['owner'], observers: ['observers'] });
  const alice = engine.parties.allocate('alice').party;
  const bob = engine.parties.allocate('bob').party;
  const upload = () => app.request('/v2/dars', { method: 'POST', body: dar.bytes, headers: { 'content-type': 'application/octet-stream' } });
  return { engine, app, alice, bob, upload };
}

type App = ReturnType<typeof setup>['app'];

async function submit(app: App, actAs: string, commands: unknown[]) {
  const res = await app.request('/v2/commands/submit-and-wait-for-transaction', {
    method: 'POST',
    body: JSON.stringify({
      commands: { commands, commandId: `c-${Math.random()}`, actAs: [actAs], userId: 'tester' },
      transactionFormat: {
        eventFormat: { filtersByParty: { [actAs]: { cumulative: [] } }, verbose: true },
        transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
      },
    }),
  });
  return { status: res.status, body: await res.json() };
}

const createDeal = (args: unknown, templateId = DEAL_REF) => ({ CreateCommand: { templateId, createArguments: args } });

/** Loose but valid input: numbers for Int64 and Numeric, keys out of order, optionals left out, an offset timestamp. */
function looseArgs(owner: string, observer: string): Record<string, unknown> {
  return {
    observers: [observer],
    when: '2025-01-27T17:30:36.430000+02:00',
    pair: { snd: 1.5, fst: '7' },
    scores: [['b', 2], ['a', '1']],
    attrs: { z: 26, a: '1' },
    tags: ['x', 'y'],
    color: 'Green',
    shape: { tag: 'Rect', value: { y: 2, x: '1' } },
    home: { y: -4, x: 3 },
    deep: [[]],
    count: 42,
    amount: '10.5',
    owner,
  };
}

function canonical(owner: string, observer: string): Record<string, unknown> {
  return {
    owner,
    amount: '10.5000000000',
    count: '42',
    memo: null,
    deep: [[]],
    home: { x: '3', y: '-4' },
    shape: { tag: 'Rect', value: { x: '1', y: '2' } },
    color: 'Green',
    tags: ['x', 'y'],
    attrs: { a: '1', z: '26' },
    scores: [['a', '1'], ['b', '2']],
    pair: { fst: '7', snd: '1.50' },
    when: '2025-01-27T15:30:36.43Z',
    observers: [observer],
  };
}

describe('declared template with its DAR uploaded: typed create arguments', () => {
  it('stores and prints the create argument in canonical transcode form, fields in declaration order', async () => {
    const { app, alice, bob, upload } = setup();
    expect((await upload()).status).toBe(200);
    const res = await submit(app, alice, [createDeal(looseArgs(alice, bob))]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const ev = createdEvent(transactionOf(res.body).events[0]);
    expect(ev.createArgument).toEqual(canonical(alice, bob));
    expect(Object.keys(fieldsOf(ev.createArgument))).toEqual(Object.keys(canonical(alice, bob)));
    expect(Object.keys(fieldsOf(fieldsOf(ev.createArgument).attrs))).toEqual(['a', 'z']);
    expect(ev.signatories).toEqual([alice]);
    expect(ev.observers).toEqual([bob]);

    // the ACS reads back the same canonical payload
    const acs = await app.request('/v2/state/active-contracts', {
      method: 'POST',
      body: JSON.stringify({ eventFormat: { filtersByParty: { [bob]: { cumulative: [] } }, verbose: true }, activeAtOffset: 1 }),
    });
    const entries = activeContracts(await acs.json());
    expect(entries[0]!.createdEvent.createArgument).toEqual(canonical(alice, bob));

    // Archive (the implicit choice) still works on a typed contract
    const archived = await submit(app, alice, [{ ExerciseCommand: { templateId: DEAL_REF, contractId: ev.contractId, choice: 'Archive', choiceArgument: {} } }]);
    expect(archived.status, JSON.stringify(archived.body)).toBe(200);
  });

  it('normalises the nested optional forms and variants with unit constructors', async () => {
    const { app, alice, bob, upload } = setup();
    await upload();
    const args = { ...looseArgs(alice, bob), memo: 'hi', deep: [[5]], shape: { tag: 'Empty', value: {} } };
    const res = await submit(app, alice, [createDeal(args)]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const arg = fieldsOf(createdEvent(transactionOf(res.body).events[0]).createArgument);
    expect([arg.memo, arg.deep, arg.shape]).toEqual(['hi', [['5']], { tag: 'Empty', value: {} }]);
  });

  it('rejects a missing non-optional field with COMMAND_PREPROCESSING_FAILED and creates nothing', async () => {
    const { app, engine, alice, bob, upload } = setup();
    await upload();
    const { amount: _omitted, ...args } = looseArgs(alice, bob);
    const res = await submit(app, alice, [createDeal(args)]);
    expect(res.status).toBe(400);
    expect(cantonError(res.body)).toMatchObject({ code: 'COMMAND_PREPROCESSING_FAILED', cause: 'Missing non-optional field: amount' });
    expect(engine.ledgerEnd()).toBe(0);
    expect(engine.contracts.activeAt(0, 0)).toEqual([]);
  });

  it('rejects unexpected fields with INVALID_ARGUMENT and creates nothing', async () => {
    const { app, engine, alice, bob, upload } = setup();
    await upload();
    const res = await submit(app, alice, [createDeal({ ...looseArgs(alice, bob), colour: 'Red', extra: 1, ignored: null })]);
    expect(res.status).toBe(400);
    expect(cantonError(res.body)).toMatchObject({ code: 'INVALID_ARGUMENT', cause: 'The submitted request has invalid arguments: Unexpected fields: colour, extra' });
    expect(engine.ledgerEnd()).toBe(0);
  });

  it('rejects ill-typed values: too many decimals, unknown variant tag, unknown enum constructor', async () => {
    const { app, engine, alice, bob, upload } = setup();
    await upload();
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ amount: '1.00000000001' }, 'COMMAND_PREPROCESSING_FAILED', 'amount: Cannot represent 1.00000000001 as (Numeric 10) without loss of precision'],
      [{ pair: { fst: 1, snd: '0.125' } }, 'COMMAND_PREPROCESSING_FAILED', 'pair.snd: Cannot represent 0.125 as (Numeric 2)'],
      [{ shape: { tag: 'Triangle', value: {} } }, 'INVALID_ARGUMENT', 'shape: Unexpected variant tag: "Triangle"'],
      [{ color: 'Purple' }, 'INVALID_ARGUMENT', 'color: Unexpected enum constructor: Purple'],
      [{ count: 'many' }, 'INVALID_ARGUMENT', 'count: expected an Int64, got "many"'],
      [{ deep: 5 }, 'INVALID_ARGUMENT', 'deep: expected a nested Optional'],
    ];
    for (const [patch, code, cause] of cases) {
      const res = await submit(app, alice, [createDeal({ ...looseArgs(alice, bob), ...patch })]);
      expect(res.status, JSON.stringify(patch)).toBe(400);
      const error = cantonError(res.body);
      expect(error.code).toBe(code);
      expect(error.cause).toContain(cause);
    }
    expect(engine.ledgerEnd()).toBe(0);
  });

  it('stores the payload verbatim while the package is not uploaded, and types it once it is', async () => {
    const { app, alice, bob, upload } = setup();
    const loose = { owner: alice, amount: '10.0', observers: [bob], whatever: true };
    const before = await submit(app, alice, [createDeal(loose)]);
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    expect(createdEvent(transactionOf(before.body).events[0]).createArgument).toEqual(loose);

    await upload();
    const after = await submit(app, alice, [createDeal(loose)]);
    expect(after.status).toBe(400);
    expect(cantonError(after.body).code).toBe('COMMAND_PREPROCESSING_FAILED'); // many fields are missing now
  });

  it('finds the package by name when the declared package id is not an uploaded one', async () => {
    const synthetic: QualifiedId = { ...DEAL, packageId: 'e'.repeat(64) };
    const { app, alice, bob, upload } = setup({ id: synthetic });
    await upload();
    const res = await submit(app, alice, [createDeal(looseArgs(alice, bob), `${'e'.repeat(64)}:Main:Deal`)]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(createdEvent(transactionOf(res.body).events[0]).createArgument).toEqual(canonical(alice, bob));
  });
});
