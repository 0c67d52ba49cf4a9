/**
 * The server side of the interactive-submission benchmark, in its own process: the emulated
 * ledger with TestTokenV1, one admin, one receiver, and one external sender per load client,
 * each with `HOLDINGS` minted holdings. The senders are onboarded through the participant's
 * external party allocation (generate-topology, an Ed25519 signature over the multi-hash with the
 * key pair given on stdin, allocate), exactly as `/v2/parties/external/*` does it. Prints one JSON line (url, parties, holdings, the disclosed
 * TokenRules) on stdout, then serves until killed.
 */
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { buildEmulator } from '../src/emulator/index.js';
import { createPrivateKey, sign } from 'node:crypto';
import { allocateExternalParty } from '../src/emulator/ledger/topology/allocate-external.js';
import { generateExternalPartyTopology } from '../src/emulator/ledger/topology/generate-topology.js';
import { formatId } from '../src/emulator/ledger/types.js';
import { createTestTokenV1Rules, mintTestTokenV1, registerTestTokenV1 } from '../src/emulator/templates/test-token-v1/index.js';

interface Input {
  /** Per sender: base64 raw Ed25519 public key, and its private key (base64 PKCS#8 DER). */
  senders: Array<{ publicKey: string; privateKey: string }>;
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
  const topology = generateExternalPartyTopology(engine, {
    synchronizer: engine.synchronizerId,
    partyHint: `sender${i}`,
    publicKey: { format: 'CRYPTO_KEY_FORMAT_RAW', keyData: s.publicKey, keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519' },
    localParticipantObservationOnly: false,
    otherConfirmingParticipantUids: [],
    confirmationThreshold: 1,
    observingParticipantUids: [],
  });
  const key = createPrivateKey({ key: Buffer.from(s.privateKey, 'base64'), format: 'der', type: 'pkcs8' });
  const signature = sign(null, Buffer.from(topology.multiHash, 'base64'), key).toString('base64');
  const { party } = allocateExternalParty(
    engine,
    {
      synchronizer: engine.synchronizerId,
      onboardingTransactions: topology.topologyTransactions.map((transaction) => ({ transaction, signatures: [] })),
      multiHashSignatures: [
        { signature, signedBy: topology.publicKeyFingerprint, format: 'SIGNATURE_FORMAT_CONCAT', signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519' },
      ],
    },
    { identityProviderId: '' },
  );
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
