/**
 * Daml-LF 2 decoding, to the depth an emulator can use without evaluating Daml
 * (field numbers from Canton's `community/daml-lf/archive/.../daml_lf.proto` / `daml_lf2.proto`):
 * package name, version and LF version; every module's templates (choices with their consuming
 * flag, argument and return types, key presence, implemented interfaces), interfaces (choices,
 * view type) and data types (record fields, variant constructors, enum constructors).
 * Expressions (signatories, observers, choice bodies, ...) are never decoded here: their bytes are
 * skipped (the full decoder, `daml-lf/decode/`, reuses `Lf2Context` for them). Unknown fields
 * are skipped too.
 */
import { ProtoError, ProtoMessage, readVarint } from '../shared/protobuf.js';
// The lean reader of the expression decoder: plain protobuf, no Daml-LF in it.
import { Msg } from '../shared/lf-reader.js';

// ---- the decoded model ------------------------------------------------------------------------

/** A reference to a type constructor, with `self` resolved to the package's own id. */
export interface TypeConRef {
  packageId: string;
  moduleName: string;
  entityName: string;
}

export type LfType =
  | { kind: 'builtin'; name: BuiltinName; args: LfType[] }
  | { kind: 'con'; tycon: TypeConRef; args: LfType[] }
  | { kind: 'syn'; tysyn: TypeConRef; args: LfType[] }
  | { kind: 'var'; name: string; args: LfType[] }
  | { kind: 'nat'; value: number }
  | { kind: 'struct'; fields: DecodedField[] }
  | { kind: 'forall'; vars: string[]; body: LfType }
  | { kind: 'app'; fun: LfType; arg: LfType };

export type BuiltinName =
  | 'Unit' | 'Bool' | 'Int64' | 'Date' | 'Timestamp' | 'Numeric' | 'Party' | 'Text' | 'ContractId'
  | 'Optional' | 'List' | 'GenMap' | 'TextMap' | 'Any' | 'AnyException' | 'TypeRep' | 'Arrow' | 'Update'
  | 'FailureCategory' | 'BigNumeric' | 'RoundingMode' | `Builtin${number}`;

const BUILTINS: Record<number, BuiltinName> = {
  0: 'Unit', 1: 'Bool', 2: 'Int64', 3: 'Date', 4: 'Timestamp', 5: 'Numeric', 6: 'Party', 7: 'Text',
  8: 'ContractId', 9: 'Optional', 10: 'List', 11: 'GenMap', 13: 'Any', 14: 'AnyException', 15: 'TypeRep',
  16: 'Arrow', 17: 'Update', 18: 'FailureCategory',
  // TEXTMAP is 19 in stable LF 2 and was 1001 while it was a 2.dev feature.
  19: 'TextMap', 1001: 'TextMap', 1002: 'BigNumeric', 1003: 'RoundingMode',
};

export interface DecodedField {
  name: string;
  type: LfType;
}

export interface DecodedChoice {
  name: string;
  consuming: boolean;
  argType?: LfType;
  returnType?: LfType;
}

export interface DecodedTemplate {
  name: string;
  choices: DecodedChoice[];
  hasKey: boolean;
  keyType?: LfType;
  /** Implemented interfaces as `pkgId:Module:Entity`. */
  implements: string[];
}

export interface DecodedInterface {
  name: string;
  choices: DecodedChoice[];
  viewType?: LfType;
  /** Required interfaces as `pkgId:Module:Entity`. */
  requires: string[];
  methods: string[];
}

interface DataTypeBase {
  name: string;
  /** Type parameter names. */
  params: string[];
  serializable: boolean;
}
export type DecodedDataType =
  | (DataTypeBase & { kind: 'record'; fields: DecodedField[] })
  | (DataTypeBase & { kind: 'variant'; constructors: DecodedField[] })
  | (DataTypeBase & { kind: 'enum'; constructors: string[] })
  | (DataTypeBase & { kind: 'interface' });

export interface DecodedModule {
  name: string;
  templates: DecodedTemplate[];
  interfaces: DecodedInterface[];
  dataTypes: DecodedDataType[];
}

export interface DecodedPackage {
  /** Lowercase hex SHA-256 of `payload`. */
  packageId: string;
  name: string;
  version: string;
  /** `2.<minor>`, e.g. `2.1` or `2.dev`. */
  lfVersion: string;
  upgradedPackageId?: string;
  modules: DecodedModule[];
  /** The serialized ArchivePayload: what `GET /v2/packages/{id}` returns. */
  payload: Buffer;
}

/** `pkgId:Module:Entity`, the JSON API's identifier form. */
export function formatTypeCon(r: TypeConRef): string {
  return `${r.packageId}:${r.moduleName}:${r.entityName}`;
}

/** A readable rendering, close to Daml syntax: `Numeric 10`, `Optional Party`, `ContractId pkg:M:T`. */
export function showType(t: LfType): string {
  const withArgs = (head: string, args: LfType[]) =>
    args.length === 0 ? head : `${head} ${args.map((a) => (needsParens(a) ? `(${showType(a)})` : showType(a))).join(' ')}`;
  switch (t.kind) {
    case 'builtin':
      return withArgs(t.name, t.args);
    case 'con':
      return withArgs(formatTypeCon(t.tycon), t.args);
    case 'syn':
      return withArgs(formatTypeCon(t.tysyn), t.args);
    case 'var':
      return withArgs(t.name, t.args);
    case 'nat':
      return String(t.value);
    case 'struct':
      return `<${t.fields.map((f) => `${f.name}: ${showType(f.type)}`).join(', ')}>`;
    case 'forall':
      return `forall ${t.vars.join(' ')}. ${showType(t.body)}`;
    case 'app':
      return `${showType(t.fun)} ${needsParens(t.arg) ? `(${showType(t.arg)})` : showType(t.arg)}`;
  }
}

function needsParens(t: LfType): boolean {
  return (
    ((t.kind === 'builtin' || t.kind === 'con' || t.kind === 'syn' || t.kind === 'var') && t.args.length > 0) ||
    t.kind === 'forall' ||
    t.kind === 'app'
  );
}

// ---- decoding ---------------------------------------------------------------------------------

/** The payload is well-formed protobuf but not a package we can read; becomes DAR_PARSE_ERROR. */
export class LfDecodeError extends Error {}

/** Field numbers of `daml_lf.ArchivePayload`. */
const PAYLOAD = { minor: 3, patch: 5, damlLf1: 2, damlLf2: 4 } as const;

export interface ArchivePayloadInfo {
  minor: string;
  patch: number;
  /** The LF2 `Package` bytes. */
  packageBytes: Buffer;
}

export function readArchivePayload(payload: Buffer): ArchivePayloadInfo {
  const m = ProtoMessage.decode(payload);
  const minor = m.string(PAYLOAD.minor);
  if (m.has(PAYLOAD.damlLf2)) {
    return { minor, patch: m.int32(PAYLOAD.patch), packageBytes: m.bytes(PAYLOAD.damlLf2)! };
  }
  // Canton 3 runs LF 2 only; LF 1 packages are refused when decoded.
  if (m.has(PAYLOAD.damlLf1)) throw new LfDecodeError(`LF version 1.${minor} unsupported`);
  throw new LfDecodeError('Unrecognized or Unsupported LF version');
}

/** Decodes an ArchivePayload whose package id has already been computed and verified. */
export function decodePackage(packageId: string, payload: Buffer): DecodedPackage {
  const info = readArchivePayload(payload);
  const ctx = new Lf2Context(packageId, info.packageBytes);
  const out: DecodedPackage = {
    packageId,
    ...ctx.metadata(),
    lfVersion: `2.${info.minor}`,
    modules: ctx.repeatedBytes(1).map((m) => ctx.module(ProtoMessage.decode(m))),
    payload,
  };
  return out;
}

/**
 * The package-wide decoding context of one LF 2 `Package`: its interned strings, dotted names and
 * types (each interned type decoded once and shared), its package imports and `self` resolution.
 * The type-level decoder here and the full decoder (`daml-lf/decode/`) both build on it.
 */
export class Lf2Context {
  private readonly strings: string[] = [];
  private readonly dottedNames: number[][] = [];
  /** `[start, end)` of each interned type in `bytes`: decoded on first use. */
  private readonly internedTypes: number[] = [];
  private readonly typeCache = new Map<number, LfType>();
  private readonly typesInProgress = new Set<number>();
  private readonly imports: string[];
  /** Joined dotted names, by interned index: module and entity names are looked up very often. */
  private readonly dnameCache: Array<string | undefined> = [];
  /** The top-level fields of `Package` other than strings, names and types (`[field, wire, start, end]`). */
  private readonly top: TopFields;

  /**
   * `bytes` is the LF 2 `Package` message. Its top level is read with the lean reader (a package
   * holds tens of thousands of interned strings, names and types: one object per field was most
   * of the cost of decoding); a malformed message is reported with the standard reader's error.
   */
  constructor(
    readonly selfId: string,
    readonly bytes: Buffer,
  ) {
    this.top = canonical(bytes, 0, bytes.length, () => scanPackage(bytes, this.strings, this.dottedNames, this.internedTypes));
    // 2.dev: explicit import table (`package_imports = 9 { imported_packages = 1 }`).
    this.imports = this.message(9)?.repeatedStrings(1) ?? [];
  }

  /** The last occurrence of the top-level message field `field`, through the standard reader. */
  private message(field: number): ProtoMessage | undefined {
    const f = this.top.f;
    let i = f.length - 4;
    while (i >= 0 && f[i] !== field) i -= 4;
    if (i < 0) return undefined;
    if (f[i + 1] !== 2) throw new ProtoError(`Field ${field} has wire type ${f[i + 1]}, expected 2.`);
    return ProtoMessage.decode(this.bytes.subarray(f[i + 2]!, f[i + 3]!));
  }

  /** The modules (`Package.modules = 1`) through the lean reader. */
  moduleMsgs(): Msg[] {
    const out: Msg[] = [];
    const f = this.top.f;
    for (let i = 0; i < f.length; i += 4) {
      if (f[i] !== 1) continue;
      if (f[i + 1] !== 2) throw new ProtoError(`Field 1 has wire type ${f[i + 1]}, expected 2.`);
      out.push(Msg.range(this.bytes, f[i + 2]!, f[i + 3]!));
    }
    return out;
  }

  /** The byte ranges of the repeated top-level message field `field` (1 = modules, 7 = interned expressions). */
  repeatedBytes(field: number): Buffer[] {
    const out: Buffer[] = [];
    const f = this.top.f;
    for (let i = 0; i < f.length; i += 4) {
      if (f[i] !== field) continue;
      if (f[i + 1] !== 2) throw new ProtoError(`Field ${field} has wire type ${f[i + 1]}, expected 2.`);
      out.push(this.bytes.subarray(f[i + 2]!, f[i + 3]!));
    }
    return out;
  }

  /** `PackageMetadata` (`Package.metadata = 4`): name, version and the upgraded package, if any. */
  metadata(): { name: string; version: string; upgradedPackageId?: string } {
    const meta = this.message(4);
    if (!meta) throw new LfDecodeError(`Package ${this.selfId} has no metadata (package name and version)`);
    const out: { name: string; version: string; upgradedPackageId?: string } = {
      name: this.str(meta.int32(1)),
      version: this.str(meta.int32(2)),
    };
    const upgraded = meta.message(3);
    if (upgraded) out.upgradedPackageId = this.str(upgraded.int32(1));
    return out;
  }

  str(i: number): string {
    const s = this.strings[i];
    if (s === undefined) throw new LfDecodeError(`invalid interned string index ${i}`);
    return s;
  }

  dname(i: number): string {
    const hit = this.dnameCache[i];
    if (hit !== undefined) return hit;
    const segs = this.dottedNames[i];
    if (segs === undefined) throw new LfDecodeError(`invalid interned dotted name index ${i}`);
    const name = segs.map((s) => this.str(s)).join('.');
    this.dnameCache[i] = name;
    return name;
  }

  module(m: ProtoMessage): DecodedModule {
    return {
      name: this.dname(m.int32(1)),
      dataTypes: m.repeatedMessages(4).map((d) => this.dataType(d)),
      templates: m.repeatedMessages(6).map((t) => this.template(t)),
      interfaces: m.repeatedMessages(8).map((i) => this.iface(i)),
    };
  }

  template(t: ProtoMessage): DecodedTemplate {
    const out: DecodedTemplate = {
      name: this.dname(t.int32(1)),
      choices: t.repeatedMessages(6).map((c) => this.choice(c)),
      hasKey: t.has(9),
      implements: t.repeatedMessages(10).map((impl) => formatTypeCon(this.typeConId(impl.message(1)))),
    };
    const key = t.message(9);
    const keyType = key?.message(1);
    if (keyType) out.keyType = this.type(keyType);
    return out;
  }

  choice(c: ProtoMessage): DecodedChoice {
    const out: DecodedChoice = { name: this.str(c.int32(2)), consuming: c.bool(3) };
    const argType = c.message(6)?.message(2);
    if (argType) out.argType = this.type(argType);
    const ret = c.message(8);
    if (ret) out.returnType = this.type(ret);
    return out;
  }

  iface(i: ProtoMessage): DecodedInterface {
    const out: DecodedInterface = {
      name: this.dname(i.int32(2)),
      choices: i.repeatedMessages(5).map((c) => this.choice(c)),
      requires: i.repeatedMessages(7).map((r) => formatTypeCon(this.typeConId(r))),
      methods: i.repeatedMessages(3).map((m) => this.str(m.int32(2))),
    };
    const view = i.message(6);
    if (view) out.viewType = this.type(view);
    return out;
  }

  dataType(d: ProtoMessage): DecodedDataType {
    const base: DataTypeBase = {
      name: this.dname(d.int32(2)),
      params: d.repeatedMessages(3).map((p) => this.str(p.int32(3))),
      serializable: d.bool(4),
    };
    if (d.has(5)) return { ...base, kind: 'record', fields: this.fields(d.message(5)!) };
    if (d.has(6)) return { ...base, kind: 'variant', constructors: this.fields(d.message(6)!) };
    if (d.has(7)) return { ...base, kind: 'enum', constructors: d.message(7)!.repeatedInt32(2).map((s) => this.str(s)) };
    if (d.has(8)) return { ...base, kind: 'interface' };
    // An empty oneof decodes as a record without fields (proto3 cannot tell them apart).
    return { ...base, kind: 'record', fields: [] };
  }

  fields(f: ProtoMessage): DecodedField[] {
    return f.repeatedMessages(1).map((fw) => ({ name: this.str(fw.int32(3)), type: this.type(fw.message(2)) }));
  }

  typeConId(m: ProtoMessage | undefined): TypeConRef {
    if (!m) throw new LfDecodeError('missing type constructor reference');
    const mod = m.message(1);
    if (!mod) throw new LfDecodeError('type constructor reference without module');
    return { ...this.moduleId(mod), entityName: this.dname(m.int32(2)) };
  }

  /** `ModuleId { package_id = 1, module_name_interned_dname = 2 }`. */
  moduleId(mod: ProtoMessage): { packageId: string; moduleName: string } {
    return { packageId: this.packageRef(mod.message(1)), moduleName: this.dname(mod.int32(2)) };
  }

  packageRef(p: ProtoMessage | undefined): string {
    if (!p || p.has(1)) return this.selfId;
    if (p.has(3)) return this.str(p.int32(3));
    if (p.has(4)) return this.importedPackage(p.int32(4));
    return this.selfId;
  }

  /** `package_imports` (2.dev): the package id at import index `i`. */
  importedPackage(i: number): string {
    const id = this.imports[i];
    if (id === undefined) throw new LfDecodeError(`invalid package import index ${i}`);
    return id;
  }

  type(m: ProtoMessage | undefined): LfType {
    if (!m) throw new LfDecodeError('missing type');
    const args = (msg: ProtoMessage) => msg.repeatedMessages(2).map((a) => this.type(a));
    if (m.has(8)) return this.interned(m.int32(8));
    if (m.has(3)) {
      const b = m.message(3)!;
      const code = b.int32(1);
      return { kind: 'builtin', name: BUILTINS[code] ?? `Builtin${code}`, args: args(b) };
    }
    if (m.has(2)) {
      const c = m.message(2)!;
      return { kind: 'con', tycon: this.typeConId(c.message(1)), args: args(c) };
    }
    if (m.has(6)) return { kind: 'nat', value: m.sint64(6) };
    if (m.has(1)) {
      const v = m.message(1)!;
      return { kind: 'var', name: this.str(v.int32(3)), args: args(v) };
    }
    if (m.has(7)) {
      const s = m.message(7)!;
      return { kind: 'syn', tysyn: this.typeConId(s.message(1)), args: args(s) };
    }
    if (m.has(5)) return { kind: 'struct', fields: this.fields(m.message(5)!) };
    if (m.has(4)) {
      const f = m.message(4)!;
      return { kind: 'forall', vars: f.repeatedMessages(1).map((v) => this.str(v.int32(3))), body: this.type(f.message(2)) };
    }
    if (m.has(9)) {
      const a = m.message(9)!;
      return { kind: 'app', fun: this.type(a.message(1)), arg: this.type(a.message(2)) };
    }
    // The oneof is unset: the proto3 default is `var = 1` absent too, so this is malformed.
    throw new LfDecodeError('type without a case');
  }

  interned(i: number): LfType {
    const hit = this.typeCache.get(i);
    if (hit) return hit;
    const start = this.internedTypes[2 * i];
    if (start === undefined || !Number.isInteger(i) || i < 0) throw new LfDecodeError(`invalid interned type index ${i}`);
    if (this.typesInProgress.has(i)) throw new LfDecodeError(`cyclic interned type ${i}`);
    this.typesInProgress.add(i);
    const t = this.type(ProtoMessage.decode(this.bytes.subarray(start, this.internedTypes[2 * i + 1]!)));
    this.typesInProgress.delete(i);
    this.typeCache.set(i, t);
    return t;
  }
}

/**
 * `read()` with the lean reader; when it finds the bytes malformed, the standard reader decodes
 * `buf[start, end)` again so that the error is the one it reports (protobuf-java's wording).
 */
function canonical<T>(buf: Buffer, start: number, end: number, read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof ProtoError) ProtoMessage.decode(buf.subarray(start, end));
    throw e;
  }
}

interface TopFields {
  f: number[];
}

const TRUNCATED_TOP = 'truncated Package message';

/**
 * One pass over the `Package` message: interned strings (2), dotted names (3) and the ranges of
 * interned types (5) go straight to their tables; every other field is listed in `f`. Throws a
 * `ProtoError` on malformed input (whose wording `canonical` replaces with the standard reader's).
 */
function scanPackage(buf: Buffer, strings: string[], dottedNames: number[][], types: number[]): TopFields {
  const f: number[] = [];
  const end = buf.length;
  let pos = 0;
  while (pos < end) {
    let key = 0;
    let shift = 0;
    let b: number;
    do {
      if (pos >= end || shift >= 35) throw new ProtoError(TRUNCATED_TOP);
      b = buf[pos++]!;
      key += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    const field = Math.floor(key / 8);
    const wire = key % 8;
    if (field === 0) throw new ProtoError(TRUNCATED_TOP);
    let start = pos;
    switch (wire) {
      case 0:
        shift = 0;
        do {
          if (pos >= end || shift >= 70) throw new ProtoError(TRUNCATED_TOP);
          b = buf[pos++]!;
          shift += 7;
        } while (b & 0x80);
        break;
      case 1:
      case 5:
        pos += wire === 1 ? 8 : 4;
        if (pos > end) throw new ProtoError(TRUNCATED_TOP);
        break;
      case 2: {
        let len = 0;
        shift = 0;
        do {
          if (pos >= end || shift >= 35) throw new ProtoError(TRUNCATED_TOP);
          b = buf[pos++]!;
          len += (b & 0x7f) * 2 ** shift;
          shift += 7;
        } while (b & 0x80);
        if (len > end - pos) throw new ProtoError(TRUNCATED_TOP);
        start = pos;
        pos += len;
        break;
      }
      default:
        throw new ProtoError(TRUNCATED_TOP);
    }
    if (field === 2 || field === 3 || field === 5) {
      if (wire !== 2) throw new ProtoError(`Field ${field} has wire type ${wire}, expected 2.`);
      if (field === 2) strings.push(buf.toString('utf8', start, pos));
      else if (field === 3) dottedNames.push(packedInt32s(buf, start, pos));
      else types.push(start, pos);
    } else f.push(field, wire, start, pos);
  }
  return { f };
}

/** `DottedName { repeated int32 segments_interned_str = 1 }`, packed or not, other fields skipped. */
function packedInt32s(buf: Buffer, start: number, end: number): number[] {
  const m = canonical(buf, start, end, () => Msg.range(buf, start, end));
  const out: number[] = [];
  const f = m.f;
  for (let i = 0; i < f.length; i += 4) {
    if (f[i] !== 1) continue;
    if (f[i + 1] === 0) out.push(f[i + 2]!);
    else if (f[i + 1] === 2) {
      let pos = f[i + 2]!;
      const stop = f[i + 3]!;
      while (pos < stop) {
        const r = readVarint(buf.subarray(0, stop), pos);
        out.push(r.v.lo | 0);
        pos = r.next;
      }
    } else throw new ProtoError(`Field 1 has wire type ${f[i + 1]}, expected 0 or 2.`);
  }
  return out;
}

export { ProtoError };
