/**
 * Event query service and contract lookup: `events-by-contract-id` and 3.4's `contract-by-id`
 * (Canton `JsEventService.scala`, `JsContractService.scala`). Missing and not-visible answer the same 404, so a caller cannot
 * probe for contracts it may not see.
 */
import type { RouteModule } from './route-module.js';
import { decodeBody } from './decode.js';
import { compileEventFormat, createdEventJson, matchEvent, wildcardFilterFor } from './events.js';
import { requireReadAs, requireReadAsAnyParty } from '../participant/claims.js';
import { LedgerApiError } from '../../canton/errors.js';
import { formatId, nameKey, stakeholdersOf } from '../participant/types.js';
import { GetContractRequestSchema, GetEventsByContractIdRequestSchema } from '../../ledger-client/schemas/state.js';

export const contractRoutes: RouteModule = (app) => {
  app.post('/v2/events/events-by-contract-id', async (c) => {
    const engine = c.get('engine');
    const req = await decodeBody(c, GetEventsByContractIdRequestSchema);
    const filter = compileEventFormat(engine, req.eventFormat, 'eventFormat');
    requireReadAs(c.get('claims'), filter.parties);
    if (filter.anyParty) requireReadAsAnyParty(c.get('claims'));
    const ct = engine.contracts.get(req.contractId);
    const m = ct && matchEvent(engine, filter, ct.templateId, stakeholdersOf(ct));
    if (!ct || !m) {
      throw new LedgerApiError('CONTRACT_EVENTS_NOT_FOUND', 'Contract events not found, or not visible.', {
        resources: [['CONTRACT_ID', req.contractId]],
      });
    }
    const created = { createdEvent: createdEventJson(engine, ct, m.witnesses, m.match, true), synchronizerId: ct.synchronizerId };
    let archived: unknown = null;
    if (ct.archivedOffset !== undefined) {
      const tx = engine.updates.atOffset(ct.archivedOffset)!;
      const node = tx.nodes.find((n) => n.kind === 'exercise' && n.consuming && n.contractId === ct.contractId);
      const def = engine.templates.templateById(ct.templateId);
      archived = {
        archivedEvent: {
          offset: ct.archivedOffset,
          nodeId: node?.nodeId ?? 0,
          contractId: ct.contractId,
          templateId: formatId(ct.templateId),
          witnessParties: m.witnesses,
          packageName: ct.templateId.packageName,
          implementedInterfaces: (def?.implements ?? []).filter((i) => m.match.views.has(nameKey(i.interface.id))).map((i) => formatId(i.interface.id)),
        },
        synchronizerId: ct.synchronizerId,
      };
    }
    return c.json({ created, archived });
  });

  app.post('/v2/contracts/contract-by-id', async (c) => {
    const engine = c.get('engine');
    const claims = c.get('claims');
    const req = await decodeBody(c, GetContractRequestSchema);
    if (req.queryingParties.length > 0) requireReadAs(claims, req.queryingParties);
    else requireReadAsAnyParty(claims);
    const ct = engine.contracts.get(req.contractId);
    const visibleTo = ct ? stakeholdersOf(ct).filter((p) => req.queryingParties.length === 0 || req.queryingParties.includes(p)) : [];
    if (!ct || visibleTo.length === 0) {
      throw new LedgerApiError('CONTRACT_PAYLOAD_NOT_FOUND', 'Contract payload not found, or not authorized.', {
        resources: [['CONTRACT_ID', req.contractId]],
      });
    }
    const filter = wildcardFilterFor(visibleTo);
    const m = matchEvent(engine, filter, ct.templateId, visibleTo)!;
    return c.json({ createdEvent: createdEventJson(engine, ct, m.witnesses, m.match, ct.archivedOffset === undefined) });
  });
};
