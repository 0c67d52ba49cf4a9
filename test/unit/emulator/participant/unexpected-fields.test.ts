/**
 * Canton's transcode rejects a record field its type does not declare, for every template, with
 * INVALID_ARGUMENT "Unexpected fields: ..." (Canton `http/json/v2/Endpoints.scala`, `handleError`).
 * Checked here for EVERY native template the emulator installs (test tokens, Amulet, wallet,
 * admin workflows): a create whose argument has all declared fields plus one unknown field, and
 * an exercise of every choice of a seeded contract with such an argument, are rejected that way
 * and leave the ledger end where it was.
 */
import { describe, expect, it } from 'vitest';
import { buildEmulator } from '../../../../src/emulator/index.js';
import { unexpectedFieldsIn, type NativeValueType } from '../../../../src/emulator/lf-value/native-type.js';
import { formatId } from '../../../../src/emulator/participant/types.js';

/** A value of type `t` with every field present (content irrelevant: the check runs before parsing). */
function sample(t: NativeValueType, party: string, depth = 0): unknown {
  if (typeof t === 'string') {
    switch (t) {
      case 'party':
        return party;
      case 'text':
        return 'x';
      case 'decimal':
        return '1.0';
      case 'int':
        return '1';
      case 'time':
        return '2026-01-01T00:00:00Z';
      case 'date':
        return '2026-01-01';
      case 'bool':
        return true;
      case 'cid':
        return '00'.repeat(33);
      case 'unit':
        return {};
      case 'any':
        return {};
    }
  }
  if ('custom' in t) return {};
  if ('opt' in t) return null;
  if ('list' in t || 'set' in t) return [];
  if ('map' in t) return [];
  if ('textMap' in t) return {};
  if ('enum' in t) return t.enum[0];
  if ('variant' in t) {
    const [tag, vt] = Object.entries(t.variant)[0]!;
    return { tag, value: depth > 8 ? {} : sample(vt, party, depth + 1) };
  }
  return Object.fromEntries(t.rec.map(([n, ft]) => [n, depth > 8 ? {} : sample(ft, party, depth + 1)]));
}

describe('unknown record fields are rejected for every native template, as transcode does', () => {
  it('unexpectedFieldsIn: nested paths, null extras ignored, a missing field left to the parser', () => {
    const t: NativeValueType = { rec: [['a', 'text'], ['b', { rec: [['c', 'party'], ['d', { opt: 'text' }]] }], ['l', { list: { rec: [['x', 'int']] } }]] };
    expect(unexpectedFieldsIn(t, { a: 'x', b: { c: 'p' }, l: [], z: 1 })).toEqual(['z']);
    expect(unexpectedFieldsIn(t, { a: 'x', b: { c: 'p', e: 1 }, l: [] })).toEqual(['b.e']);
    expect(unexpectedFieldsIn(t, { a: 'x', b: { c: 'p' }, l: [{ x: '1' }, { x: '2', y: 3 }] })).toEqual(['l[1].y']);
    expect(unexpectedFieldsIn(t, { a: 'x', b: { c: 'p' }, l: [], z: null })).toBeUndefined();
    expect(unexpectedFieldsIn(t, { b: { c: 'p' }, l: [], z: 1 })).toBeUndefined();
    expect(unexpectedFieldsIn(t, 'not a record')).toBeUndefined();
  });

  it('creates and choice arguments of every native template', async () => {
    const { engine, app, seeded } = buildEmulator({ config: { logLevel: 'silent', port: 0 } });
    const party = seeded!.parties[0]!.party;
    const submit = async (actAs: string[], command: unknown) => {
      const res = await app.request('/v2/commands/submit-and-wait', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ commands: [command], commandId: `c-${Math.random()}`, actAs, userId: 'participant_admin' }),
      });
      return { status: res.status, body: (await res.json()) as { code: string; cause: string } };
    };
    const end = engine.ledgerEnd();
    const natives = engine.templates.allTemplates().filter((t) => t.kind === 'native' && t.payloadType);
    expect(natives.length).toBeGreaterThan(20);
    const creates: string[] = [];
    for (const def of natives) {
      const createArguments = { ...(sample(def.payloadType!, party) as object), unexpectedField: 'x' };
      const r = await submit([party], { CreateCommand: { templateId: formatId(def.id), createArguments } });
      if (r.body.code !== 'INVALID_ARGUMENT') creates.push(`${formatId(def.id)}: ${r.status} ${r.body.code} ${r.body.cause}`);
      else expect(r.body.cause).toBe('The submitted request has invalid arguments: Unexpected fields: unexpectedField');
    }
    expect(creates).toEqual([]);

    // every choice (with a declared argument type) of every seeded contract of a native template
    const choices: string[] = [];
    let exercised = 0;
    const seen = new Set<string>();
    for (const c of engine.contracts.activeAt(engine.ledgerEnd(), engine.ledgerEnd())) {
      const def = engine.templates.templateById(c.templateId);
      if (!def || def.kind !== 'native' || seen.has(formatId(def.id))) continue;
      seen.add(formatId(def.id));
      for (const [name, choice] of Object.entries(def.choices)) {
        if (!choice.argumentType || !('rec' in (choice.argumentType as object))) continue;
        const choiceArgument = { ...(sample(choice.argumentType, party) as object), unexpectedField: 'x' };
        const r = await submit(c.signatories, { ExerciseCommand: { templateId: formatId(def.id), contractId: c.contractId, choice: name, choiceArgument } });
        exercised++;
        if (r.body.code !== 'INVALID_ARGUMENT' || !r.body.cause.endsWith('Unexpected fields: unexpectedField')) {
          choices.push(`${formatId(def.id)} ${name}: ${r.status} ${r.body.code} ${r.body.cause}`);
        }
      }
    }
    expect(choices).toEqual([]);
    expect(exercised).toBeGreaterThan(10);
    expect(engine.ledgerEnd()).toBe(end);
  });
});
