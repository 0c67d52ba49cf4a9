/**
 * The emulated ledger's data model: the records its stores hold. Wire shapes (what the JSON API
 * prints) are built from these in `src/emulator/ledger-api`, never stored.
 */

export interface ObjectMeta {
  /** Decimal string, "0" on create, +1 per update (rights changes do not bump it). */
  resourceVersion: string;
  annotations: Record<string, string>;
}

export interface PartyRecord {
  party: string;
  isLocal: boolean;
  localMetadata: ObjectMeta;
  identityProviderId: string;
}

export type Right =
  | { kind: 'ParticipantAdmin' }
  | { kind: 'IdentityProviderAdmin' }
  | { kind: 'CanReadAsAnyParty' }
  | { kind: 'CanExecuteAsAnyParty' }
  | { kind: 'CanActAs'; party: string }
  | { kind: 'CanReadAs'; party: string }
  | { kind: 'CanExecuteAs'; party: string };

export interface UserRecord {
  id: string;
  /** "" when unset, as on the wire. */
  primaryParty: string;
  isDeactivated: boolean;
  metadata: ObjectMeta;
  identityProviderId: string;
}

/** A fully resolved template or interface identifier. */
export interface QualifiedId {
  packageId: string;
  packageName: string;
  moduleName: string;
  entityName: string;
}

/** `pkgId:Module:Entity`, the form the JSON API always emits. */
export function formatId(id: QualifiedId): string {
  return `${id.packageId}:${id.moduleName}:${id.entityName}`;
}

/** `packageName:Module:Entity`: identifies a template across package versions (filters match on this). */
export function nameKey(id: Pick<QualifiedId, 'packageName' | 'moduleName' | 'entityName'>): string {
  return `${id.packageName}:${id.moduleName}:${id.entityName}`;
}

/** Daml-LF values in the JSON API's transcode encoding (Canton transcode `JsonCodec.scala`). */
export type LfValue = unknown;

export interface ContractRecord {
  contractId: string;
  templateId: QualifiedId;
  payload: LfValue;
  signatories: string[];
  /** Never contains a signatory. */
  observers: string[];
  /** Contract key value (LF JSON) and maintainers, when the template has a key. */
  key?: { value: LfValue; maintainers: string[]; hash: string };
  createdAtMicros: bigint;
  createdOffset: number;
  createdNodeId: number;
  createdUpdateId: string;
  synchronizerId: string;
  /** Opaque createdEventBlob (base64) that round-trips through `disclosedContracts`. */
  blob: string;
  archivedOffset?: number;
}

export function stakeholdersOf(c: Pick<ContractRecord, 'signatories' | 'observers'>): string[] {
  return [...c.signatories, ...c.observers];
}

/** `ParticipantPermission` of a PartyToParticipant mapping (topology.proto). */
export type HostingPermission = 'Submission' | 'Confirmation' | 'Observation';
