/**
 * The server side of the interactive-submission benchmark, in its own process: the emulated
 * ledger with TestTokenV1, one admin, one receiver, and one external sender per load client
 * (its Ed25519 public key given on stdin, registered in `engine.externalParties`), each with
 * `HOLDINGS` minted holdings. Prints one JSON line (url, parties, holdings, the disclosed
 * TokenRules) on stdout, then serves until killed.
 */
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { buildEmulator } from '../src/emulator/index.js';
import { publicKeyFromBytes } from '../src/emulator/ledger/external-parties.js';
import { formatId } from '../src/emulator/ledger/types.js';
import { createTestTokenV1Rules, mintTestTokenV1, registerTestTokenV1 } from '../src/emulator/templates/test-token-v1/index.js';

interface Input {
  /** Per sender: base64 raw Ed25519 public key and its Canton fingerprint. */
  senders: Array<{ publicKey: string; fingerprint: string }>;
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
const senders = input.senders.map((s, i) => {
  // An external party's namespace is its key's fingerprint.
  const party = engine.parties.addRemote(`sender${i}::${s.fingerprint}`).party;
  engine.externalParties.register({
    party,
    keys: [{ fingerprint: s.fingerprint, spec: 'SIGNING_KEY_SPEC_EC_CURVE25519', key: publicKeyFromBytes(Buffer.from(s.publicKey, 'base64'), 'raw') }],
    threshold: 1,
  });
  const holdings = Array.from({ length: input.holdings }, () => mintTestTokenV1(engine, { admin, owner: party, instrumentId: 'BENCH', amount: '10' }));
  return { party, holdings };
});
const rules = engine.contracts.get(rulesCid)!;
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
await new Promise((r) => server.once('listening', r));
const { port } = server.address() as AddressInfo;
process.stdout.write(
  `${JSON.stringify({
    url: `http://127.0.0.1:${port}`,
    admin,
    receiver,
    senders,
    rules: { templateId: formatId(rules.templateId), contractId: rulesCid, createdEventBlob: rules.blob, synchronizerId: engine.synchronizerId },
    now: engine.clock.nowMicros().toString(),
  })}\n`,
);
// A normal exit on SIGTERM, so that node flags such as --cpu-prof write their output.
process.on('SIGTERM', () => process.exit(0));
