/**
 * Checked fetches of Amulet contracts, as Splice.Util's `fetchChecked` with `ForDso` / `ForOwner`
 * (hyperledger-labs/splice, daml/splice-util/daml/Splice/Util.daml): the fetched contract must belong to the
 * expected DSO (and owner), or the update fails with Splice's group-mismatch message. Shared by
 * transfer.ts, external-party-config-state.ts, traffic.ts and preapproval.ts.
 */
import type { UpdateContext } from '../../participant/templates.js';
import { AmuletIds, failGeneral, showParty, type OpenMiningRoundPayload } from './values.js';

export const showForDso = (dso: string) => `ForDso {dso = ${showParty(dso)}}`;
export const showForOwner = (dso: string, owner: string) => `ForOwner {dso = ${showParty(dso)}, owner = ${showParty(owner)}}`;

export function groupMismatch(ctx: UpdateContext, expected: string, got: string, cid: string): never {
  return failGeneral(ctx, `Contract group identifier mismatch: expected ${expected}, got ${got} for ${cid}`);
}

export function fetchForDso<P extends { dso: string }>(ctx: UpdateContext, dso: string, cid: string, template: (typeof AmuletIds)[keyof typeof AmuletIds]): P {
  const p = ctx.fetch(cid, template).payload as P;
  if (p.dso !== dso) groupMismatch(ctx, showForDso(dso), showForDso(p.dso), cid);
  return p;
}

export function fetchOpenRound(ctx: UpdateContext, dso: string, cid: string): OpenMiningRoundPayload {
  return fetchForDso<OpenMiningRoundPayload>(ctx, dso, cid, AmuletIds.OpenMiningRound);
}
