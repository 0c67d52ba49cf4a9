/**
 * The server side of the Daml-LF engine benchmark, in its own process: the emulated ledger with
 * TestTokenV1 run natively (`native`) or by the Daml-LF evaluator from its DAR (`daml`, DARS_DIR
 * ../shared/dars), one admin with its TokenRules, and per load client a pair of parties of which
 * the first holds one minted holding. Prints one JSON line (url, admin, pairs, the disclosed
 * TokenRules) on stdout, then serves until killed.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { buildEmulator } from '../src/emulator/index.js';
import { createTestTokenV1Rules, mintTestTokenV1 } from '../src/emulator/templates/test-token-v1/index.js';
import { announce, disclosedContract, serveOnLoopback } from './bench-server.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const engineKind = process.argv[2] === 'daml' ? 'daml' : 'native';
const pairs = Number(process.argv[3] ?? 16);

const { engine, app } = buildEmulator({
  config: { demoWorld: false, logLevel: 'silent', templateEngine: engineKind, darsDir: join(root, '../shared/dars') },
  logger: pino({ level: 'silent' }),
});
const admin = engine.parties.allocate('bench-admin').party;
const rulesCid = createTestTokenV1Rules(engine, admin);
const out = Array.from({ length: pairs }, (_, i) => {
  const a = engine.parties.allocate(`a${i}`).party;
  const b = engine.parties.allocate(`b${i}`).party;
  return { a, b, holding: mintTestTokenV1(engine, { admin, owner: a, instrumentId: 'BENCH', amount: '10' }) };
});
announce({
  url: await serveOnLoopback(app),
  engine: engineKind,
  kind: engine.templates.templateByNameKey('splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:Token')?.kind ?? null,
  admin,
  pairs: out,
  rules: disclosedContract(engine, rulesCid),
});
