/**
 * The protobuf `Value` of the Ledger API (`com.daml.ledger.api.v2.Value`, value.proto) as plain
 * data, with its protobuf encoding and decoding: how interactive submission's prepared
 * transactions carry Daml values (Canton 3.5 field numbers). proto-codec.ts builds these values
 * from the ledger's JSON.
 *
 * 64-bit integers are bigints; contract ids are hex strings (as on the wire).
 */
import { ProtoError, ProtoMessage } from '../shared/protobuf.js';
import { ProtoWriter } from '../shared/protobuf-writer.js';

export interface PIdentifier {
  packageId: string;
  moduleName: string;
  entityName: string;
}

/** `com.daml.ledger.api.v2.Value`. */
export type PValue =
  | { kind: 'unit' }
  | { kind: 'bool'; value: boolean }
  | { kind: 'int64'; value: bigint }
  /** days since the epoch */
  | { kind: 'date'; value: number }
  /** micros since the epoch */
  | { kind: 'timestamp'; value: bigint }
  | { kind: 'numeric'; value: string }
  | { kind: 'party'; value: string }
  | { kind: 'text'; value: string }
  | { kind: 'contractId'; value: string }
  | { kind: 'optional'; value: PValue | undefined }
  | { kind: 'list'; elements: PValue[] }
  | { kind: 'textMap'; entries: Array<{ key: string; value: PValue }> }
  | { kind: 'genMap'; entries: Array<{ key: PValue; value: PValue }> }
  | { kind: 'record'; recordId?: PIdentifier; fields: Array<{ label: string; value: PValue }> }
  | { kind: 'variant'; variantId?: PIdentifier; constructor: string; value: PValue }
  | { kind: 'enum'; enumId?: PIdentifier; constructor: string };

export function writeIdentifier(id: PIdentifier): ProtoWriter {
  return new ProtoWriter().stringIfSet(1, id.packageId).stringIfSet(2, id.moduleName).stringIfSet(3, id.entityName);
}

export function writeValue(v: PValue): ProtoWriter {
  const w = new ProtoWriter();
  switch (v.kind) {
    case 'unit':
      return w.message(1, new ProtoWriter());
    case 'bool':
      return w.bool(2, v.value);
    case 'int64':
      return w.sint64(3, v.value);
    case 'date':
      return w.uint(4, v.value);
    case 'timestamp':
      return w.sfixed64(5, v.value);
    case 'numeric':
      return w.string(6, v.value);
    case 'party':
      return w.string(7, v.value);
    case 'text':
      return w.string(8, v.value);
    case 'contractId':
      return w.string(9, v.value);
    case 'optional': {
      const o = new ProtoWriter();
      if (v.value) o.message(1, writeValue(v.value));
      return w.message(10, o);
    }
    case 'list': {
      const l = new ProtoWriter();
      for (const e of v.elements) l.message(1, writeValue(e));
      return w.message(11, l);
    }
    case 'textMap': {
      const m = new ProtoWriter();
      for (const e of v.entries) m.message(1, new ProtoWriter().stringIfSet(1, e.key).message(2, writeValue(e.value)));
      return w.message(12, m);
    }
    case 'genMap': {
      const m = new ProtoWriter();
      for (const e of v.entries) m.message(1, new ProtoWriter().message(1, writeValue(e.key)).message(2, writeValue(e.value)));
      return w.message(13, m);
    }
    case 'record': {
      const r = new ProtoWriter();
      if (v.recordId) r.message(1, writeIdentifier(v.recordId));
      for (const f of v.fields) r.message(2, new ProtoWriter().stringIfSet(1, f.label).message(2, writeValue(f.value)));
      return w.message(14, r);
    }
    case 'variant': {
      const r = new ProtoWriter();
      if (v.variantId) r.message(1, writeIdentifier(v.variantId));
      r.stringIfSet(2, v.constructor).message(3, writeValue(v.value));
      return w.message(15, r);
    }
    case 'enum': {
      const r = new ProtoWriter();
      if (v.enumId) r.message(1, writeIdentifier(v.enumId));
      r.stringIfSet(2, v.constructor);
      return w.message(16, r);
    }
  }
}

export function readIdentifier(m: ProtoMessage | undefined): PIdentifier {
  return { packageId: m?.string(1) ?? '', moduleName: m?.string(2) ?? '', entityName: m?.string(3) ?? '' };
}

export function readOptionalIdentifier(m: ProtoMessage, field: number): PIdentifier | undefined {
  const id = m.message(field);
  return id ? readIdentifier(id) : undefined;
}

export function readValue(m: ProtoMessage | undefined): PValue {
  if (!m) throw new ProtoError('a Value is missing');
  if (m.has(1)) return { kind: 'unit' };
  if (m.has(2)) return { kind: 'bool', value: m.bool(2) };
  if (m.has(3)) return { kind: 'int64', value: m.sint64Big(3) };
  if (m.has(4)) return { kind: 'date', value: m.int32(4) };
  if (m.has(5)) return { kind: 'timestamp', value: m.sfixed64(5) };
  if (m.has(6)) return { kind: 'numeric', value: m.string(6) };
  if (m.has(7)) return { kind: 'party', value: m.string(7) };
  if (m.has(8)) return { kind: 'text', value: m.string(8) };
  if (m.has(9)) return { kind: 'contractId', value: m.string(9) };
  if (m.has(10)) {
    const o = m.message(10)!;
    return { kind: 'optional', value: o.has(1) ? readValue(o.message(1)) : undefined };
  }
  if (m.has(11)) return { kind: 'list', elements: m.message(11)!.repeatedMessages(1).map((e) => readValue(e)) };
  if (m.has(12)) {
    return { kind: 'textMap', entries: m.message(12)!.repeatedMessages(1).map((e) => ({ key: e.string(1), value: readValue(e.message(2)) })) };
  }
  if (m.has(13)) {
    return { kind: 'genMap', entries: m.message(13)!.repeatedMessages(1).map((e) => ({ key: readValue(e.message(1)), value: readValue(e.message(2)) })) };
  }
  if (m.has(14)) {
    const r = m.message(14)!;
    const recordId = readOptionalIdentifier(r, 1);
    const fields = r.repeatedMessages(2).map((f) => ({ label: f.string(1), value: readValue(f.message(2)) }));
    return recordId ? { kind: 'record', recordId, fields } : { kind: 'record', fields };
  }
  if (m.has(15)) {
    const r = m.message(15)!;
    const variantId = readOptionalIdentifier(r, 1);
    const base = { kind: 'variant' as const, constructor: r.string(2), value: readValue(r.message(3)) };
    return variantId ? { ...base, variantId } : base;
  }
  if (m.has(16)) {
    const r = m.message(16)!;
    const enumId = readOptionalIdentifier(r, 1);
    return enumId ? { kind: 'enum', enumId, constructor: r.string(2) } : { kind: 'enum', constructor: r.string(2) };
  }
  throw new ProtoError('a Value has no content');
}
