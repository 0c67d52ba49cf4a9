/** The contracts the index holds, as the registry discloses them, and how they are keyed. */
import type { CreatedEvent } from '../ledger-client/schemas/events.js';

/** A contract as the registry discloses it (everything the DisclosedContract needs). */
export interface IndexedContract {
  contractId: string;
  /** `pkgId:Module:Entity`, as the ledger emits it. */
  templateId: string;
  packageName: string;
  payload: Record<string, unknown>;
  createdAt: string;
  createdEventBlob: string;
  /** The synchronizer the contract is assigned to, as the ledger reports it. */
  synchronizerId: string;
  /** Set while the contract is being reassigned (unassigned, not yet assigned). */
  inReassignment?: boolean;
  /** Interfaces (`pkgId:Module:Entity`) whose view the ledger reported: set for indexed interfaces. */
  interfaceIds?: string[];
}

/** `packageName:Module:Entity`, the key that identifies a template across package versions. */
export function templateKey(packageName: string, templateId: string): string {
  const [, moduleName, entityName] = templateId.split(':');
  return `${packageName}:${moduleName}:${entityName}`;
}

/** A created event as the index holds it; `synchronizerId`: the synchronizer the ledger reports it on. */
export function toIndexed(ev: CreatedEvent, synchronizerId: string): IndexedContract {
  const c: IndexedContract = {
    contractId: ev.contractId,
    templateId: ev.templateId,
    packageName: ev.packageName,
    payload: (ev.createArgument ?? {}) as Record<string, unknown>,
    createdAt: ev.createdAt,
    createdEventBlob: ev.createdEventBlob ?? '',
    synchronizerId,
  };
  if (ev.interfaceViews && ev.interfaceViews.length > 0) c.interfaceIds = ev.interfaceViews.map((v) => v.interfaceId);
  return c;
}
