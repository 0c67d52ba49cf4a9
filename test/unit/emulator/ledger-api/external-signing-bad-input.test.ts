/**
 * Bad input on the external-signing surface (`/v2/parties/external/*`,
 * `/v2/interactive-submission/*`): every malformed request gets Canton's error shape (JsCantonError
 * JSON, or tapir's text/plain 400 for a body that does not decode) with a 4xx status, never a 500,
 * and changes nothing (same ledger end, parties, users and external keys).
 *
 * The requests are mutations of valid ones: every field replaced by values of the wrong type,
 * null, empty, huge or junk, prepared transactions truncated, bit-flipped or random.
 */
import { describe, expect, it } from 'vitest';
import { testLedger, IOU, create } from '../../../support/ledger-fixtures.js';
import { executeBody, newKey, prepareBody, registerExternal } from '../../../support/interactive.js';

const JUNK: unknown[] = [null, '', 'x', 0, -1, 1e308, true, [], {}, [null], { a: 1 }, 'A'.repeat(5000), '%%%notbase64%%%', '\u0000'];

/** Every body obtained by replacing one field (at any depth, arrays included) of `valid` with each junk value, plus removals. */
function mutations(valid: Record<string, unknown>): unknown[] {
  const out: unknown[] = [];
  const walk = (node: unknown, set: (v: unknown) => unknown, remove?: () => unknown) => {
    for (const j of JUNK) out.push(set(j));
    if (remove) out.push(remove());
    if (Array.isArray(node)) {
      node.forEach((child, i) =>
        walk(
          child,
          (v) => set(node.map((c, k) => (k === i ? v : c))),
          () => set(node.filter((_, k) => k !== i)),
        ),
      );
    } else if (node && typeof node === 'object') {
      for (const [k, child] of Object.entries(node)) {
        walk(
          child,
          (v) => set({ ...(node as Record<string, unknown>), [k]: v }),
          () => {
            const { [k]: _drop, ...rest } = node as Record<string, unknown>;
            return set(rest);
          },
        );
      }
    }
  };
  walk(valid, (v) => v);
  return out;
}

describe('external signing endpoints: bad input is a 4xx in Canton’s shape and changes nothing', () => {
  it('survives thousands of mutated requests', async () => {
    const l = testLedger();
    const alice = l.party('alice');
    const key = registerExternal(l.engine, alice);
    const prepRes = await l.post('/v2/interactive-submission/prepare', prepareBody([alice], [create(IOU, { issuer: alice, owner: alice, amount: '5', observers: [] })]));
    expect(prepRes.status).toBe(200);
    const prepared = (await prepRes.json()) as { preparedTransaction: string; preparedTransactionHash: string };
    const bytes = Buffer.from(prepared.preparedTransaction, 'base64');
    const corrupt = [
      bytes.subarray(0, bytes.length >> 1),
      bytes.subarray(1),
      Buffer.concat([bytes, Buffer.from([0xff, 0xff, 0xff])]),
      Buffer.from(bytes.map((b, i) => (i % 7 === 0 ? b ^ 0x80 : b))),
      Buffer.alloc(64, 0xff),
      Buffer.from('0a', 'hex'),
    ].map((b) => ({ ...prepared, preparedTransaction: b.toString('base64') }));

    // The new party's own key; the allocation below is signed with alice's, so it never holds.
    const mutantKey = newKey('mutant');
    const topology = {
      synchronizer: l.engine.synchronizerId,
      partyHint: 'mutant',
      publicKey: { format: 'CRYPTO_KEY_FORMAT_RAW', keyData: mutantKey.rawPublicKey.toString('base64'), keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519' },
      localParticipantObservationOnly: false,
      otherConfirmingParticipantUids: [],
      confirmationThreshold: 1,
      observingParticipantUids: [],
    };
    const generated = (await (await l.post('/v2/parties/external/generate-topology', topology)).json()) as { topologyTransactions: string[]; multiHash: string; publicKeyFingerprint: string };
    const allocate = {
      synchronizer: l.engine.synchronizerId,
      identityProviderId: '',
      onboardingTransactions: generated.topologyTransactions.map((transaction) => ({ transaction })),
      multiHashSignatures: [key.signature(generated.multiHash)],
    };

    const cases: Array<[string, unknown[]]> = [
      ['/v2/parties/external/generate-topology', mutations(topology)],
      ['/v2/parties/external/allocate', mutations(allocate)],
      ['/v2/interactive-submission/prepare', mutations(prepareBody([alice], [create(IOU, { issuer: alice, owner: alice, amount: '1', observers: [] })]))],
      ['/v2/interactive-submission/execute', [...mutations(executeBody(prepared, [key])), ...corrupt.map((p) => executeBody(p, [key]))]],
      ['/v2/interactive-submission/executeAndWait', [...mutations(executeBody(prepared, [key])), ...corrupt.map((p) => executeBody(p, [key]))]],
      ['/v2/interactive-submission/executeAndWaitForTransaction', [...corrupt.map((p) => ({ ...executeBody(p, [key]) }))]],
      ['/v2/interactive-submission/preferred-packages', mutations({ packageVettingRequirements: [{ parties: [alice], packageName: 'test-iou' }], synchronizerId: '' })],
    ];

    const state = () =>
      JSON.stringify({
        end: l.engine.ledgerEnd(),
        parties: l.engine.parties.all().map((p) => p.party),
        external: l.engine.externalParties.all().map((p) => p.party),
      });
    const before = state();
    let sent = 0;
    const statuses = new Map<number, number>();
    for (const [path, bodies] of cases) {
      for (const body of [...bodies, '{', 'null', '[]', '"x"']) {
        // Only the execute mutations that keep a valid signature over the original bytes could
        // commit: the mutation of a field that does not reach the transaction (submissionId,
        // userId, deduplication) may. Those are excluded by comparing state per request below.
        const res = await l.post(path, body);
        sent++;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const text = await res.text();
        expect(res.status, `${path} ${JSON.stringify(body).slice(0, 300)} -> ${text.slice(0, 300)}`).toBeLessThan(500);
        if (res.status >= 400) {
          const json = text.startsWith('{') ? (JSON.parse(text) as { code?: string; cause?: string }) : undefined;
          // Either tapir's plain-text 400 or a JsCantonError with a code and a cause.
          if (json) expect(typeof json.code === 'string' && typeof json.cause === 'string', text.slice(0, 300)).toBe(true);
          else expect(res.status).toBe(400);
        }
      }
    }
    for (const q of ['', '?package-name=', '?package-name=%00', '?package-name=test-iou&parties=nobody', '?parties=' + 'x'.repeat(3000)]) {
      const res = await l.get(`/v2/interactive-submission/preferred-package-version${q}`);
      sent++;
      expect(res.status, `${q} -> ${await res.text()}`).toBeLessThan(500);
    }
    // A mutation of execute that leaves the signed bytes intact (e.g. another submissionId) may
    // legitimately commit the one prepared transaction; nothing else may change state.
    const after = JSON.parse(state()) as { end: number; parties: string[]; external: string[] };
    const was = JSON.parse(before) as { end: number; parties: string[]; external: string[] };
    expect(after.parties).toEqual(was.parties);
    expect(after.external).toEqual(was.external);
    expect(after.end - was.end).toBeLessThanOrEqual(1);
    expect(sent).toBeGreaterThan(1000);
    expect(statuses.get(500)).toBeUndefined();
  });
});
