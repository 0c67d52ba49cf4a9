/**
 * Scan's `GET /v0/domains/{domain_id}/members/{member_id}/traffic-status`
 * (`HttpScanHandler.getMemberTrafficStatus`): the member's `actual` state as the synchronizer's
 * sequencer reports it (extra traffic consumed and the extra traffic limit), and under `target`
 * the traffic bought for it, summed from the MemberTraffic contracts of that member and
 * synchronizer (`ScanStore.getTotalPurchasedMemberTraffic`).
 *
 * Errors, as Scan gives them: a member id that does not parse (`Member.fromProtoPrimitive_`) is
 * 400 "Could not decode member ID: …", a synchronizer id that does not parse
 * (`UniqueIdentifier.fromProtoPrimitive_`) 400 "Could not decode domain ID: …", a member the
 * sequencer does not know 404 "No traffic state found for member …"
 * (`SequencerAdminConnection.getSequencerTrafficControlState`).
 *
 * The emulated synchronizer's only members are the engine's participant (`PAR::…`). Its extra
 * traffic limit is the traffic bought for it on that synchronizer: the SVs' reconciliation
 * (Splice's `ReconcileSequencerLimitWithMemberTrafficTrigger`) is immediate here. As in Scan, the
 * `actual` state comes from the one sequencer whatever synchronizer id is asked for, and `target`
 * counts the purchases for the synchronizer asked for (0 for another one).
 */
import type { LedgerEngine } from '../participant/engine.js';
import type { ContractRecord } from '../participant/types.js';
import { badRequest, notFound } from './errors.js';

export const MEMBER_TRAFFIC_TEMPLATE = 'splice-amulet:Splice.DecentralizedSynchronizer:MemberTraffic';

const DELIMITER = '::';
const MEMBER_CODES = new Set(['MED', 'PAR', 'SEQ', 'UNM']);

/** `UniqueIdentifier.fromProtoPrimitive_`'s checks: `identifier::namespace`, neither empty. Returns the error or undefined. */
function uidError(s: string): string | undefined {
  if (s === '') return 'Empty string is not a valid unique identifier.';
  const pos = s.indexOf(DELIMITER);
  if (pos === 0) return `Invalid unique identifier \`${s}\` with empty identifier.`;
  if (pos < 0) return `Invalid unique identifier \`${s}\` with missing namespace.`;
  if (s.length === pos + DELIMITER.length) return `Invalid unique identifier \`${s}\` with empty namespace.`;
  return undefined;
}

/** `Member.fromProtoPrimitive_`: `<three-letter code>::<uid>`. Returns the error or undefined. */
export function memberIdError(member: string): string | undefined {
  if (member.length <= 3 + 2 * DELIMITER.length) return `Invalid member \`${member}\`, expecting <three-letter-code>::id::fingerprint.`;
  if (member.substring(3, 3 + DELIMITER.length) !== DELIMITER) return `Expected delimiter ${DELIMITER} after three letter code of \`${member}\``;
  const code = member.slice(0, 3);
  if (!MEMBER_CODES.has(code)) return `Unknown three letter type ${code}`;
  return uidError(member.slice(3 + DELIMITER.length));
}

/** A member as Canton prints it (`Member.pretty`: the namespace fingerprint abbreviated). */
function showMember(member: string): string {
  const sep = member.lastIndexOf(DELIMITER);
  const ns = member.slice(sep + DELIMITER.length);
  return ns.length > 12 ? `${member.slice(0, sep + DELIMITER.length)}${ns.slice(0, 12)}...` : member;
}

/** Bytes bought for `member` on `synchronizerId` (all migration ids). */
export function totalPurchased(contracts: readonly ContractRecord[], member: string, synchronizerId: string): bigint {
  let total = 0n;
  for (const c of contracts) {
    const p = c.payload as { memberId?: unknown; synchronizerId?: unknown; totalPurchased?: unknown };
    if (p.memberId === member && p.synchronizerId === synchronizerId && typeof p.totalPurchased === 'string') total += BigInt(p.totalPurchased);
  }
  return total;
}

export function memberTrafficStatus(engine: LedgerEngine, memberTraffic: readonly ContractRecord[], domainId: string, memberId: string) {
  const memberError = memberIdError(memberId);
  if (memberError) throw badRequest(`Could not decode member ID: ${memberError}`);
  const domainError = uidError(domainId);
  if (domainError) throw badRequest(`Could not decode domain ID: ${domainError}`);
  if (memberId !== engine.participantMember) throw notFound(`No traffic state found for member ${showMember(memberId)}`);
  const state = engine.traffic.state(memberId, engine.clock.nowMicros());
  return {
    traffic_status: {
      actual: {
        total_consumed: Number(state.extraTrafficConsumed),
        total_limit: Number(totalPurchased(memberTraffic, memberId, engine.synchronizerId)),
      },
      target: { total_purchased: Number(totalPurchased(memberTraffic, memberId, domainId)) },
    },
  };
}
