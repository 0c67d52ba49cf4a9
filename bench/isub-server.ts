/**
 * The server side of the interactive-submission benchmark, in its own process: the emulated
 * ledger with TestTokenV1, one admin, one receiver, and one external sender per load client,
 * each with `HOLDINGS` minted holdings and the Ed25519 public key given on stdin as its signing
 * key. Prints one JSON line (url, parties, holdings, the disclosed TokenRules) on stdout, then
 * serves until killed.
 */
import { pino } from 'pino';
import { buildEmulator } from '../src/emulator/index.js';
import { normalizeSigningKey } from '../src/emulator/participant/topology/signing-keys.js';
import { createTestTokenV1Rules, mintTestTokenV1, registerTestTokenV1 } from '../src/emulator/templates/test-token-v1/index.js';
import { announce, disclosedContract, serveOnLoopback } from './bench-server.js';

interface Input {
  /** Per sender: base64 raw Ed25519 public key (the load client holds the private key and signs). */
  senders: Array<{ publicKey: string }>;
  holdings: number;
}

const chunks: Buffer[] = [];
for await (const c of process.stdin) chunks.push(c as Buffer);
const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Input;

const { engine, app } = buildEmulator({ config: { demoWorld: false, logLevel: 'silent' }, logger: pino({ level: 'silent' }) });
registerTestTokenV1(engine.templates);
const admin = engine.parties.allocate('bench-admin').party;
const receiver = engine.parties.allocate('bench-receiver').party;
const rulesCid = createTestTokenV1Rules(engine, admin);
// Each sender is allocated here and given its Ed25519 key as an external party's signing key
// (threshold 1), as the interactive-submission tests do: its holdings can then be minted with a
// plain submission (a party onboarded through the external-party topology is hosted with
// confirmation rights only, and this node refuses to submit for it, as Canton does), while the
// measured transfers are prepared, signed and executed as an external party's.
const senders = input.senders.map((s, i) => {
  const party = engine.parties.allocate(`sender${i}`).party;
  engine.externalParties.register({
    party,
    keys: [normalizeSigningKey('raw', Buffer.from(s.publicKey, 'base64'), 'SIGNING_KEY_SPEC_EC_CURVE25519')],
    threshold: 1,
  });
  const holdings = Array.from({ length: input.holdings }, () => mintTestTokenV1(engine, { admin, owner: party, instrumentId: 'BENCH', amount: '10' }));
  return { party, holdings };
});
announce({
  url: await serveOnLoopback(app),
  admin,
  receiver,
  senders,
  rules: disclosedContract(engine, rulesCid),
  now: engine.clock.nowMicros().toString(),
});
