/**
 * A hand-built DAR whose choices loop forever, recurse a million deep, or use an LF feature the
 * evaluator lacks, over real loopback HTTP: it uploads, each bad choice fails with a participant
 * error that names the budget / the feature (never a 5xx), nothing is committed for them, and the
 * ledger keeps serving. Also: what an upload of an unknown (newer) LF minor version does.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPECS, createSpecValidator, expectConformant } from '../../support/openapi-conformance.js';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { ProtoWriter } from '../../../src/emulator/shared/protobuf-writer.js';
import { Lf2Builder } from '../../support/lf2-package-builder.js';
import { archiveBytes, buildManifest, buildRawDar } from '../../support/dar-builder.js';
import { GetLedgerEndResponseSchema, JsCantonErrorSchema, type JsCantonError } from '../../../src/ledger-client/schemas/events.js';
import { AllocatePartyResponseSchema } from '../../../src/ledger-client/schemas/parties.js';
import { createdEvent, exercisedEvent, transactionOf } from '../../support/ledger-wire.js';

const M = 'Bad.Loop';
// BuiltinType codes (daml_lf2.proto)
const INT64 = 2;
const PARTY = 6;
const ARROW = 16;
const BIGNUMERIC = 1002;
// BuiltinFunction codes
const EQUAL = 2;
const ADD_INT64 = 7;
const SUB_INT64 = 8;
const NUMERIC_TO_BIGNUMERIC = 2009;

function sub(...fields: Array<[number, ProtoWriter | number]>): ProtoWriter {
  const w = new ProtoWriter();
  for (const [n, v] of fields) {
    if (typeof v === 'number') w.uint(n, v);
    else w.message(n, v);
  }
  return w;
}

/** The payload of package `bad-loop`: template Bad.Loop:T { owner : Party } with Spin, Deep, Exotic, Fine. */
function badLoopPayload(minor = '1', name = 'bad-loop'): Buffer {
  const b = new Lf2Builder();
  const tParty = b.tBuiltin(PARTY);
  const tInt = b.tBuiltin(INT64);
  const T = b.tyConApp(b.ref(M, 'T'));
  const intToInt = b.tBuiltin(ARROW, tInt, tInt);
  // spin : Int64 -> Int64 = \n -> spin n        (never terminates; each call is a step)
  const spin = b.value('spin', intToInt, b.abs([['n', tInt]], b.app(b.val(M, 'spin'), b.var('n'))));
  // `name : Int64 -> Int64 = \n -> case n == 0 of True -> 0; _ -> otherwise`
  const zeroOr = (name: string, otherwise: ProtoWriter) =>
    b.value(
      name,
      intToInt,
      b.abs(
        [['n', tInt]],
        b.case(b.app(b.tyApp(b.builtin(EQUAL), tInt), b.var('n'), b.int64(0n)), b.alt(4, 2, b.int64(0n)), b.alt(2, new ProtoWriter(), otherwise)),
      ),
    );
  const selfCall = (name: string) => b.app(b.val(M, name), b.app(b.builtin(SUB_INT64), b.var('n'), b.int64(1n)));
  // deep: 1 + deep (n - 1)   (not a tail call)
  const deep = zeroOr('deep', b.app(b.builtin(ADD_INT64), b.int64(1n), selfCall('deep')));
  // burn: burn (n - 1) + burn (n - 1)   (2^n calls at a depth of only n: a huge evaluation that no stack limit stops)
  const burn = zeroOr('burn', b.app(b.builtin(ADD_INT64), selfCall('burn'), selfCall('burn')));
  const owner = b.exprCase(8, sub([1, T], [4, b.str('owner')], [3, b.var('this')]));
  const ownerList = b.exprCase(22, sub([1, tParty], [2, owner], [3, b.exprCase(21, sub([1, tParty]))]));
  const record = (name: string, fields: Array<[string, ProtoWriter]>) =>
    sub([2, b.dname(name)], [4, 1], [5, sub(...fields.map(([f, t]): [number, ProtoWriter] => [1, sub([3, b.str(f)], [2, t])]))]);
  const pure = (type: ProtoWriter, e: ProtoWriter) => b.update(1, sub([1, type], [2, e]));
  const choice = (name: string, ret: ProtoWriter, update: ProtoWriter) =>
    sub(
      [2, b.str(name)],
      [3, 0],
      [4, ownerList],
      [6, b.varWithType('arg', b.tCon(b.ref(M, name)))],
      [8, ret],
      [9, update],
      [10, b.str('self')],
    );
  const template = sub(
    [1, b.dname('T')],
    [2, b.str('this')],
    [3, b.con(2)],
    [4, ownerList],
    [6, choice('Spin', tInt, pure(tInt, b.app(b.val(M, 'spin'), b.int64(0n))))],
    [6, choice('Burn', tInt, pure(tInt, b.app(b.val(M, 'burn'), b.int64(60n))))],
    [6, choice('Deep', tInt, pure(tInt, b.app(b.val(M, 'deep'), b.int64(1_000_000n))))],
    // BuiltinFunction 4242 is not in daml_lf2.proto: the decoder keeps it as an `experimental` marker
    [6, choice('Exotic', tInt, pure(tInt, b.app(b.builtin(4242), b.int64(1n))))],
    // BigNumeric (LF 2.dev) in a 2.1 package: decoded, but the evaluator has no such builtins
    [6, choice('ExoticBig', b.tBuiltin(BIGNUMERIC), pure(b.tBuiltin(BIGNUMERIC), b.app(b.tyApp(b.builtin(NUMERIC_TO_BIGNUMERIC), b.tNat(10)), b.numeric('1.0000000000'))))],
    [6, choice('Fine', tInt, pure(tInt, b.app(b.builtin(ADD_INT64), b.int64(40n), b.int64(2n))))],
    [7, b.exprCase(21, sub([1, tParty]))],
  );
  return b.payload(
    [
      b.module(M, {
        dataTypes: [record('T', [['owner', tParty]]), record('Spin', []), record('Burn', []), record('Deep', []), record('Exotic', []), record('ExoticBig', []), record('Fine', [])],
        values: [spin, deep, burn],
        templates: [template],
      }),
    ],
    { name, version: '1.0.0', minor },
  );
}

function dar(payload: Buffer, name = 'bad-loop'): { bytes: Buffer; packageId: string } {
  const packageId = createHash('sha256').update(payload).digest('hex');
  const path = `${name}-1.0.0-${packageId}/${name}-1.0.0-${packageId}.dalf`;
  const manifest = buildManifest([
    ['Manifest-Version', '1.0'],
    ['Created-By', 'damlc'],
    ['Name', `${name}-1.0.0`],
    ['Sdk-Version', '3.4.0'],
    ['Main-Dalf', path],
    ['Dalfs', path],
    ['Format', 'daml-lf'],
    ['Encryption', 'non-encrypted'],
  ]);
  return { bytes: buildRawDar(manifest, [{ path, bytes: archiveBytes(payload, packageId) }]), packageId };
}

let emu: RunningEmulator;
let seq = 0;

beforeAll(async () => {
  emu = await startEmulator({ config: { port: 0, demoWorld: false, logLevel: 'silent' } });
});
afterAll(async () => {
  await emu?.close();
});

const ledgerSpec = createSpecValidator(SPECS.ledgerApi35);

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const init: RequestInit = { method };
  if (Buffer.isBuffer(body)) {
    init.body = body;
    init.headers = { 'content-type': 'application/octet-stream' };
  } else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { 'content-type': 'application/json' };
  }
  const r = await fetch(emu.ledgerUrl + path, init);
  // Every answer, the errors included, in the shapes of the official JSON Ledger API spec.
  await expectConformant(ledgerSpec, r, method, path.split('?')[0]!);
  const text = await r.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: r.status, body: parsed };
}

const ledgerEnd = async (): Promise<number> => GetLedgerEndResponseSchema.parse((await call('GET', '/v2/state/ledger-end')).body).offset;
const partyOf = (body: unknown): string => AllocatePartyResponseSchema.parse(body).partyDetails.party;
/** The Canton error of an answer; `undefined` when the body is not one. */
const cantonError = (body: unknown): JsCantonError | undefined => JsCantonErrorSchema.safeParse(body).data;

function submit(party: string, command: unknown) {
  return call('POST', '/v2/commands/submit-and-wait-for-transaction', {
    commands: { commands: [command], commandId: `bad-dar-${++seq}`, actAs: [party], userId: 'bad-dar' },
    transactionFormat: {
      eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: true },
      transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
    },
  });
}

describe('a DAR with non-terminating, too deep and unsupported choices', () => {
  const built = dar(badLoopPayload());
  const T = `${built.packageId}:${M}:T`;
  let alice: string;
  let cid: string;
  const exercise = (choice: string) => submit(alice, { ExerciseCommand: { templateId: T, contractId: cid, choice, choiceArgument: {} } });

  beforeAll(async () => {
    const up = await call('POST', '/v2/packages', built.bytes);
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    const p = await call('POST', '/v2/parties', { partyIdHint: 'aliceBad', identityProviderId: '' });
    expect(p.status).toBe(200);
    alice = partyOf(p.body);
    const c = await submit(alice, { CreateCommand: { templateId: T, createArguments: { owner: alice } } });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    cid = createdEvent(transactionOf(c.body).events[0]).contractId;
  });

  it('uploads, and its template is evaluated', () => {
    expect(emu.engine.templates.templateByNameKey(`bad-loop:${M}:T`)?.kind).toBe('daml');
  });

  /** The choice is refused with DAML_INTERPRETATION_ERROR naming `cause`, and the ledger end does not move. */
  async function expectInterpretationErrorWithoutEffect(choice: string, cause: RegExp): Promise<void> {
    const end = await ledgerEnd();
    const r = await exercise(choice);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(cantonError(r.body)?.code, JSON.stringify(r.body)).toBe('DAML_INTERPRETATION_ERROR');
    expect(cantonError(r.body)?.cause).toMatch(cause);
    expect(await ledgerEnd()).toBe(end);
  }

  it('Fine works', async () => {
    const r = await exercise('Fine');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(exercisedEvent(transactionOf(r.body).events[0]).exerciseResult).toBe('42');
  });

  it('Burn (2^60 calls) is stopped by the step budget, nothing is committed, and the ledger keeps serving', async () => {
    const t0 = Date.now();
    await expectInterpretationErrorWithoutEffect('Burn', /step budget exceeded/);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect((await exercise('Fine')).status).toBe(200);
  });

  it('Spin (a self call that never returns) fails with an interpretation error, not a 500', async () => {
    // The evaluator, like a call-by-value interpreter without tail calls, nests a JS frame per
    // call: the endless self call runs out of stack (reported as such) before the step budget.
    await expectInterpretationErrorWithoutEffect('Spin', /ran out of stack|step budget exceeded/);
    expect((await exercise('Fine')).status).toBe(200);
  });

  it('Deep (a million non-tail calls) fails with an interpretation error, not a 500', async () => {
    await expectInterpretationErrorWithoutEffect('Deep', /ran out of stack/);
    expect((await exercise('Fine')).status).toBe(200);
  });

  it('Exotic names the unsupported feature', async () => {
    await expectInterpretationErrorWithoutEffect('Exotic', /BuiltinFunction 4242/);
    expect((await exercise('Fine')).status).toBe(200);
  });

  it('ExoticBig (a BigNumeric builtin) names the builtin', async () => {
    await expectInterpretationErrorWithoutEffect('ExoticBig', /feature not supported .*: NUMERIC_TO_BIGNUMERIC/);
  });
});

describe('a package of an unknown LF minor version (2.99)', () => {
  // Today the package store takes any `2.<minor>` (it reads the version, and decodes by the proto
  // fields it knows), so the upload succeeds and the template runs; a Canton participant refuses
  // such a package at upload with ALLOWED_LANGUAGE_VERSIONS (PackageServiceErrors, "Package ...
  // has a language version ... not allowed"). This test pins the emulator's current behaviour.
  it('is accepted (200) without a crash, and its template still runs', async () => {
    const built = dar(badLoopPayload('99', 'future-lf'), 'future-lf');
    const r = await call('POST', '/v2/packages', built.bytes);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const p = await call('POST', '/v2/parties', { partyIdHint: 'bobFuture', identityProviderId: '' });
    const bob = partyOf(p.body);
    const T = `${built.packageId}:${M}:T`;
    const c = await submit(bob, { CreateCommand: { templateId: T, createArguments: { owner: bob } } });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    const cid = createdEvent(transactionOf(c.body).events[0]).contractId;
    const fine = await submit(bob, { ExerciseCommand: { templateId: T, contractId: cid, choice: 'Fine', choiceArgument: {} } });
    expect(fine.status, JSON.stringify(fine.body)).toBe(200);
    const exotic = await submit(bob, { ExerciseCommand: { templateId: T, contractId: cid, choice: 'Exotic', choiceArgument: {} } });
    expect(exotic.status).toBe(400);
    expect(cantonError(exotic.body)?.cause).toMatch(/BuiltinFunction 4242/);
    expect((await call('GET', '/v2/state/ledger-end')).status).toBe(200);
  });
});
