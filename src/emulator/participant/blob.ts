/**
 * `createdEventBlob`: an opaque, self-describing serialisation of a contract that clients pass
 * back in `disclosedContracts`. Real Canton encodes a FatContractInstance protobuf; ours is a
 * versioned JSON document. What matters to clients holds: it is opaque base64, it round-trips,
 * and the participant checks it against the contract it names (a tampered blob is rejected).
 */
import type { ContractRecord } from './types.js';
import { formatId } from './types.js';

const MAGIC = 'tre-contract-v1';

export function encodeBlob(c: Omit<ContractRecord, 'blob' | 'archivedOffset'>): string {
  const doc = {
    m: MAGIC,
    cid: c.contractId,
    tid: formatId(c.templateId),
    pkg: c.templateId.packageName,
    arg: c.payload,
    sig: c.signatories,
    obs: c.observers,
    key: c.key?.value ?? null,
    at: c.createdAtMicros.toString(),
    sync: c.synchronizerId,
  };
  return Buffer.from(JSON.stringify(doc), 'utf8').toString('base64');
}

export interface DecodedBlob {
  contractId: string;
  templateId: string;
}

/** Reads the contract id and template id out of a blob; undefined when it is not one of ours. */
export function decodeBlob(blob: string): DecodedBlob | undefined {
  try {
    const doc = JSON.parse(Buffer.from(blob, 'base64').toString('utf8')) as Record<string, unknown>;
    if (doc.m !== MAGIC || typeof doc.cid !== 'string' || typeof doc.tid !== 'string') return undefined;
    return { contractId: doc.cid, templateId: doc.tid };
  } catch {
    return undefined;
  }
}
