/**
 * The testcontainers module reads the seeded world from what `emulate` prints. The sample is the
 * real output of `emulate` (src/main.ts renders it with the same table layout), with a pino line
 * interleaved as a container's log stream may have it.
 */
import { describe, expect, it } from 'vitest';
import { parseStartOutput } from '../../../src/testcontainers/start-output.js';

const NS = '12208befb37f6f2598760536c3b530b222f9b0668082fabbf8169f715025e4a64e3d';
const OUTPUT = `{"level":30,"time":1,"msg":"starting"}
token-registry emulator ready in 412 ms (auth: none, participant: participant1::${NS})

service                       url
ledger JSON API v2            http://127.0.0.1:7575
token-standard registry       http://127.0.0.1:7576

party${' '.repeat(78)}user         role
token-admin::${NS}  token-admin  instrument admin
alice::${NS}        alice        holder
{"level":30,"time":2,"msg":"interleaved"}
validator::${NS}    validator    validator operator (hosts the wallets)

instrument  token                 symbol  holdings
TT1         splice-test-token-v1  TT1     alice 1000, bob 500
TT2-EUR     splice-test-token-v2  TEUR    alice 300
EMPTY       splice-test-token-v2  EMT
`;

describe('parseStartOutput', () => {
  it('reads the header, the parties and the instruments, skipping log lines', () => {
    const out = parseStartOutput(OUTPUT)!;
    expect(out.auth).toBe('none');
    expect(out.participantId).toBe(`participant1::${NS}`);
    expect(out.readyInMs).toBe(412);
    expect(out.parties).toEqual([
      { party: `token-admin::${NS}`, hint: 'token-admin', userId: 'token-admin', role: 'instrument admin' },
      { party: `alice::${NS}`, hint: 'alice', userId: 'alice', role: 'holder' },
      { party: `validator::${NS}`, hint: 'validator', userId: 'validator', role: 'validator operator (hosts the wallets)' },
    ]);
    expect(out.instruments).toEqual([
      { id: 'TT1', token: 'splice-test-token-v1', symbol: 'TT1', holdings: [{ owner: 'alice', amount: '1000' }, { owner: 'bob', amount: '500' }] },
      { id: 'TT2-EUR', token: 'splice-test-token-v2', symbol: 'TEUR', holdings: [{ owner: 'alice', amount: '300' }] },
      { id: 'EMPTY', token: 'splice-test-token-v2', symbol: 'EMT', holdings: [] },
    ]);
  });

  it('is undefined before the ready line, and while the last line is incomplete', () => {
    expect(parseStartOutput('{"level":30}\n')).toBeUndefined();
    expect(parseStartOutput(OUTPUT.slice(0, -3))).toBeUndefined();
  });

  it('an empty ledger (DEMO_WORLD=false) has no parties and no instruments', () => {
    const out = parseStartOutput(`token-registry emulator ready (auth: jwt, participant: p::${NS})\n\nservice  url\nledger   http://127.0.0.1:7575\n`)!;
    expect(out).toEqual({ auth: 'jwt', participantId: `p::${NS}`, parties: [], instruments: [] });
  });

  it('a participant list and the output of a build that did not print its start-up time', () => {
    const out = parseStartOutput(`token-registry emulator ready (auth: none, participants: a::${NS}, b::${NS})\n\nservice  url\nledger   http://127.0.0.1:7575\n`)!;
    expect(out).toEqual({ auth: 'none', participantId: `a::${NS}`, parties: [], instruments: [] });
  });

  it('the profile, printed last (PROFILE=localnet), leaves auth and the first participant as they were', () => {
    const out = parseStartOutput(`token-registry emulator ready in 900 ms (auth: jwt, participants: participant::${NS}, participant::${NS}, profile: localnet)\n\nservice  url\nledger   http://127.0.0.1:2975\n`)!;
    expect(out).toEqual({ auth: 'jwt', participantId: `participant::${NS}`, readyInMs: 900, parties: [], instruments: [] });
  });

  it('a changed header is an error, not an empty world', () => {
    expect(() => parseStartOutput('token-registry emulator ready, somehow different\n')).toThrow(/unexpected first line/);
  });
});
