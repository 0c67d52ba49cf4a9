/**
 * Builds DAR fixtures for tests: a protobuf writer, a ZIP writer (stored or deflated entries with
 * real CRC-32s and a central directory) and a Daml-LF 2 package encoder that interns strings,
 * dotted names and (optionally) types by the field numbers of `daml_lf.proto`/`daml_lf2.proto`
 * (digital-asset/canton `community/daml-lf/archive/`). Expressions (signatories, choice bodies, ...) are written as
 * placeholder text literals, so the type-level decoder is exercised on skipping them and the full
 * decoder (`daml-lf/decode/`) still reads every package built here.
 *
 *   const { bytes, mainPackageId } = buildDar({
 *     name: 'my-pkg', version: '1.0.0',
 *     modules: [{ name: 'Main', templates: [{ name: 'Asset',
 *       fields: [['owner', 'Party'], ['amount', 'Numeric 10']],
 *       choices: [{ name: 'Transfer', consuming: true, arg: [['newOwner', 'Party']], returnType: 'ContractId Main:Asset' }] }] }],
 *   });
 *
 * Types are written in Daml syntax: builtins (`Party`, `Text`, `Int64`, `Numeric 10`, `Bool`,
 * `Date`, `Timestamp`, `Unit`, `Optional T`, `List T`, `ContractId T`, `TextMap T`, `GenMap K V`),
 * `Module:Entity` for a type of the same package, `<pkgId>:Module:Entity` for an imported one,
 * a lowercase identifier for a type variable, parentheses for nesting.
 */
import { createHash } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { crc32 } from '../../src/emulator/dar/crc32.js';
import { Lf2InterningTables } from './lf2-interning.js';

// ---- protobuf writer ------------------------------------------------------------------------

export class ProtoWriter {
  private readonly parts: Buffer[] = [];

  private key(field: number, wire: number): void {
    this.rawVarint(field * 8 + wire);
  }
  private rawVarint(n: number | bigint): void {
    let v = BigInt.asUintN(64, BigInt(n));
    const bytes: number[] = [];
    do {
      let b = Number(v & 0x7fn);
      v >>= 7n;
      if (v !== 0n) b |= 0x80;
      bytes.push(b);
    } while (v !== 0n);
    this.parts.push(Buffer.from(bytes));
  }
  /** int32/int64/enum/bool as a varint (negative numbers sign-extended to 64 bits, as protobuf does). */
  varint(field: number, n: number | bigint | boolean): this {
    this.key(field, 0);
    this.rawVarint(typeof n === 'boolean' ? (n ? 1 : 0) : n);
    return this;
  }
  sint64(field: number, n: number): this {
    const b = BigInt(n);
    return this.varint(field, b >= 0n ? b * 2n : -b * 2n - 1n);
  }
  bytes(field: number, data: Uint8Array): this {
    this.key(field, 2);
    this.rawVarint(data.length);
    this.parts.push(Buffer.from(data));
    return this;
  }
  string(field: number, s: string): this {
    return this.bytes(field, Buffer.from(s, 'utf8'));
  }
  message(field: number, m: ProtoWriter | ((w: ProtoWriter) => void)): this {
    const w = typeof m === 'function' ? new ProtoWriter() : m;
    if (typeof m === 'function') m(w);
    return this.bytes(field, w.finish());
  }
  packedInt32(field: number, values: number[]): this {
    const w = new ProtoWriter();
    for (const v of values) w.rawVarint(v);
    return this.bytes(field, w.finish());
  }
  finish(): Buffer {
    return Buffer.concat(this.parts);
  }
}

// ---- zip writer -----------------------------------------------------------------------------

export interface ZipInput {
  name: string;
  data: Uint8Array | string;
  method?: 'store' | 'deflate';
}

export function buildZip(entries: ZipInput[], defaultMethod: 'store' | 'deflate' = 'deflate'): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const data = Buffer.from(typeof e.data === 'string' ? Buffer.from(e.data, 'utf8') : e.data);
    const method = (e.method ?? defaultMethod) === 'deflate' ? 8 : 0;
    const body = method === 8 ? deflateRawSync(data) : data;
    const name = Buffer.from(e.name, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6); // UTF-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(entries.length, 8);
  eocd.writeUInt16LE(entries.length, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, eocd]);
}

/** A JAR-style manifest with damlc's 72-byte line folding (continuations start with one space). */
export function buildManifest(attrs: Array<[string, string]>, eol = '\n'): string {
  const lines: string[] = [];
  for (const [k, v] of attrs) {
    const full = Buffer.from(`${k}: ${v}`, 'utf8');
    lines.push(full.subarray(0, 72).toString('utf8'));
    for (let i = 72; i < full.length; i += 71) lines.push(` ${full.subarray(i, i + 71).toString('utf8')}`);
  }
  return lines.join(eol) + eol;
}

// ---- Daml-LF 2 package encoder ----------------------------------------------------------------

export type FieldSpec = [name: string, type: string];

export interface ChoiceSpec {
  name: string;
  consuming?: boolean;
  /** The choice argument as a record (a data type named after the choice is added). */
  arg?: FieldSpec[];
  /** Or an explicit argument type. Default: the record from `arg` (empty when absent). */
  argType?: string;
  /** Default `Unit`. */
  returnType?: string;
}

export interface TemplateSpec {
  name: string;
  fields: FieldSpec[];
  choices?: ChoiceSpec[];
  /** Key type, when the template has a key. */
  key?: string;
  /** Implemented interfaces, `Module:Entity` or `<pkgId>:Module:Entity`. */
  implements?: string[];
}

export interface InterfaceSpec {
  name: string;
  viewType?: string;
  choices?: ChoiceSpec[];
  methods?: string[];
  requires?: string[];
}

export interface DataTypeSpec {
  name: string;
  params?: string[];
  serializable?: boolean;
  record?: FieldSpec[];
  variant?: FieldSpec[];
  enum?: string[];
}

export interface ModuleSpec {
  name: string;
  templates?: TemplateSpec[];
  interfaces?: InterfaceSpec[];
  dataTypes?: DataTypeSpec[];
}

export interface PackageSpec {
  name: string;
  version: string;
  /** ArchivePayload minor version, default "1". */
  lfMinor?: string;
  modules: ModuleSpec[];
  upgradedPackageId?: string;
  /** Put every type in `interned_types` (default true) or write types inline. */
  internTypes?: boolean;
}

export interface BuiltDalf {
  /** The serialized `Archive`. */
  bytes: Buffer;
  /** The serialized `ArchivePayload`. */
  payload: Buffer;
  packageId: string;
}

const BUILTIN_CODES: Record<string, number> = {
  Unit: 0, Bool: 1, Int64: 2, Date: 3, Timestamp: 4, Numeric: 5, Party: 6, Text: 7, ContractId: 8,
  Optional: 9, List: 10, GenMap: 11, Any: 13, TextMap: 19,
};

type TypeAst = { head: string; args: TypeAst[] };

function parseType(src: string): TypeAst {
  const tokens = src.match(/\(|\)|[^\s()]+/g) ?? [];
  let i = 0;
  const atom = (): TypeAst => {
    const t = tokens[i++];
    if (t === undefined) throw new Error(`bad type: ${src}`);
    if (t === '(') {
      const inner = app();
      if (tokens[i++] !== ')') throw new Error(`bad type: ${src}`);
      return inner;
    }
    return { head: t, args: [] };
  };
  const app = (): TypeAst => {
    const head = atom();
    while (i < tokens.length && tokens[i] !== ')') head.args.push(atom());
    return head;
  };
  const t = app();
  if (i !== tokens.length) throw new Error(`bad type: ${src}`);
  return t;
}

class PackageEncoder extends Lf2InterningTables {
  private readonly types: Buffer[] = [];
  private readonly typeIdx = new Map<string, number>();

  constructor(private readonly internTypes: boolean) {
    super();
  }

  /** TypeConId for `Module:Entity` (self) or `<pkgId>:Module:Entity` (imported). */
  typeConId(ref: string): ProtoWriter {
    const parts = ref.split(':');
    const [pkg, mod, ent] = parts.length === 3 ? parts : [undefined, parts[0], parts[1]];
    if (mod === undefined || ent === undefined) throw new Error(`bad type constructor: ${ref}`);
    return new ProtoWriter()
      .message(1, (m) => {
        m.message(1, (p) => (pkg === undefined ? p.message(1, () => {}) : p.varint(3, this.str(pkg))));
        m.varint(2, this.dname(mod));
      })
      .varint(2, this.dname(ent));
  }

  type(src: string): ProtoWriter {
    return this.typeAst(parseType(src));
  }

  private typeAst(t: TypeAst): ProtoWriter {
    const key = JSON.stringify(t);
    if (this.internTypes) {
      const hit = this.typeIdx.get(key);
      if (hit !== undefined) return new ProtoWriter().varint(8, hit);
    }
    const w = new ProtoWriter();
    const args = (m: ProtoWriter) => t.args.forEach((a) => m.message(2, this.typeAst(a)));
    if (/^\d+$/.test(t.head)) w.sint64(6, Number(t.head));
    else if (t.head in BUILTIN_CODES) {
      w.message(3, (b) => {
        const code = BUILTIN_CODES[t.head]!;
        if (code !== 0) b.varint(1, code); // proto3 leaves the default out
        args(b);
      });
    } else if (t.head.includes(':')) w.message(2, (c) => (c.message(1, this.typeConId(t.head)), args(c)));
    else w.message(1, (v) => (v.varint(3, this.str(t.head)), args(v)));
    if (!this.internTypes) return w;
    const idx = this.types.push(w.finish()) - 1;
    this.typeIdx.set(key, idx);
    return new ProtoWriter().varint(8, idx);
  }

  /**
   * Stand-in for an LF expression: a located text literal naming its role (`"signatories"`, ...).
   * The type-level decoder skips it; the full decoder reads it as a well-formed (if ill-typed) `Expr`.
   */
  expr(tag: string): ProtoWriter {
    return new ProtoWriter()
      .message(1, (loc) => loc.message(2, (r) => r.varint(1, 3).varint(2, 7)))
      .message(6, (lit) => lit.varint(4, this.str(tag)));
  }

  fields(fs: FieldSpec[]): ProtoWriter {
    const w = new ProtoWriter();
    for (const [name, type] of fs) w.message(1, (f) => f.message(2, this.type(type)).varint(3, this.str(name)));
    return w;
  }

  dataType(d: DataTypeSpec): ProtoWriter {
    const w = new ProtoWriter().varint(2, this.dname(d.name));
    for (const p of d.params ?? []) w.message(3, (tv) => tv.varint(3, this.str(p)).message(2, (k) => k.message(1, () => {})));
    if (d.serializable ?? true) w.varint(4, true);
    if (d.variant) w.message(6, this.fields(d.variant));
    else if (d.enum) w.message(7, (e) => e.packedInt32(2, d.enum!.map((c) => this.str(c))));
    else w.message(5, this.fields(d.record ?? []));
    return w;
  }

  choice(c: ChoiceSpec, moduleName: string): ProtoWriter {
    const argType = c.argType ?? `${moduleName}:${c.name}`;
    const w = new ProtoWriter().varint(2, this.str(c.name));
    if (c.consuming ?? true) w.varint(3, true);
    w.message(4, this.expr('controllers')).message(5, this.expr('observers'));
    w.message(6, (vb) => vb.message(2, this.type(argType)).varint(3, this.str('arg')));
    w.message(8, this.type(c.returnType ?? 'Unit'));
    w.message(9, this.expr('update'));
    w.varint(10, this.str('self'));
    return w;
  }

  module(m: ModuleSpec): ProtoWriter {
    const dataTypes: DataTypeSpec[] = [...(m.dataTypes ?? [])];
    const choiceRecords = (choices: ChoiceSpec[] | undefined) => {
      for (const c of choices ?? []) if (!c.argType) dataTypes.push({ name: c.name, record: c.arg ?? [] });
    };
    for (const t of m.templates ?? []) {
      dataTypes.push({ name: t.name, record: t.fields });
      choiceRecords(t.choices);
    }
    for (const i of m.interfaces ?? []) choiceRecords(i.choices);
    const w = new ProtoWriter().varint(1, this.dname(m.name));
    w.message(2, (f) => f.varint(1, true).varint(2, true).varint(3, true));
    for (const d of dataTypes) w.message(4, this.dataType(d));
    // an interface also has a data type entry, of the `interface = 8` kind
    for (const i of m.interfaces ?? []) w.message(4, new ProtoWriter().varint(2, this.dname(i.name)).message(8, () => {}));
    for (const t of m.templates ?? []) {
      w.message(6, (tw) => {
        tw.varint(1, this.dname(t.name)).varint(2, this.str('this'));
        tw.message(3, this.expr('precond')).message(4, this.expr('signatories'));
        for (const c of t.choices ?? []) tw.message(6, this.choice(c, m.name));
        tw.message(7, this.expr('observers'));
        if (t.key) tw.message(9, (k) => k.message(1, this.type(t.key!)).message(3, this.expr('maintainers')).message(4, this.expr('key')));
        for (const i of t.implements ?? []) {
          tw.message(10, (iw) => iw.message(1, this.typeConId(i)).message(2, (b) => b.message(2, this.expr('view'))));
        }
      });
    }
    for (const i of m.interfaces ?? []) {
      w.message(8, (iw) => {
        iw.varint(2, this.dname(i.name));
        for (const meth of i.methods ?? []) iw.message(3, (mw) => mw.varint(2, this.str(meth)).message(3, this.type('Text')));
        iw.varint(4, this.str('this'));
        for (const c of i.choices ?? []) iw.message(5, this.choice(c, m.name));
        if (i.viewType) iw.message(6, this.type(i.viewType));
        for (const r of i.requires ?? []) iw.message(7, this.typeConId(r));
      });
    }
    return w;
  }

  encodePackage(spec: PackageSpec): Buffer {
    // Encode modules first: that fills the interning tables they refer to.
    const modules = spec.modules.map((m) => this.module(m).finish());
    const meta = new ProtoWriter().varint(1, this.str(spec.name)).varint(2, this.str(spec.version));
    if (spec.upgradedPackageId) meta.message(3, (u) => u.varint(1, this.str(spec.upgradedPackageId!)));
    const w = new ProtoWriter();
    for (const m of modules) w.bytes(1, m);
    for (const s of this.strings) w.string(2, s);
    for (const d of this.dnames) w.message(3, (dn) => dn.packedInt32(1, d));
    w.message(4, meta);
    for (const t of this.types) w.bytes(5, t);
    return w.finish();
  }
}

/** Encodes one package as a `.dalf` (`Archive { hash_function, payload, hash }`). */
export function buildDalf(spec: PackageSpec): BuiltDalf {
  const pkg = new PackageEncoder(spec.internTypes ?? true).encodePackage(spec);
  const payload = new ProtoWriter()
    .string(3, spec.lfMinor ?? '1')
    .bytes(4, pkg)
    .finish();
  const packageId = createHash('sha256').update(payload).digest('hex');
  return { bytes: archiveBytes(payload, packageId), payload, packageId };
}

/** An `Archive` around arbitrary payload bytes with the given (possibly wrong) hash. */
export function archiveBytes(payload: Buffer, hash: string): Buffer {
  // hash_function SHA256 = 0 is the proto3 default and therefore not written
  return new ProtoWriter().bytes(3, payload).string(4, hash).finish();
}

export interface DarSpec extends PackageSpec {
  dependencies?: Array<PackageSpec | BuiltDalf>;
  method?: 'store' | 'deflate';
  sdkVersion?: string;
  /** Extra zip entries (sources, .hi files, ...). */
  extraEntries?: ZipInput[];
}

export interface BuiltDar {
  bytes: Buffer;
  mainPackageId: string;
  /** Main package first, then the dependencies. */
  packageIds: string[];
  main: BuiltDalf;
  dependencies: BuiltDalf[];
}

export function buildDar(spec: DarSpec): BuiltDar {
  const main = buildDalf(spec);
  const deps = (spec.dependencies ?? []).map((d) => ('payload' in d ? d : buildDalf(d)));
  const dir = `${spec.name}-${spec.version}-${main.packageId}`;
  const mainPath = `${dir}/${spec.name}-${spec.version}-${main.packageId}.dalf`;
  const depPaths = deps.map((d) => `${dir}/dep-${d.packageId}.dalf`);
  const manifest = buildManifest([
    ['Manifest-Version', '1.0'],
    ['Created-By', 'damlc'],
    ['Name', `${spec.name}-${spec.version}`],
    ['Sdk-Version', spec.sdkVersion ?? '3.4.0'],
    ['Main-Dalf', mainPath],
    ['Dalfs', [mainPath, ...depPaths].join(', ')],
    ['Format', 'daml-lf'],
    ['Encryption', 'non-encrypted'],
  ]);
  const bytes = buildZip(
    [
      { name: 'META-INF/MANIFEST.MF', data: manifest },
      { name: mainPath, data: main.bytes },
      ...deps.map((d, i) => ({ name: depPaths[i]!, data: d.bytes })),
      ...(spec.extraEntries ?? []),
    ],
    spec.method ?? 'deflate',
  );
  return { bytes, mainPackageId: main.packageId, packageIds: [main.packageId, ...deps.map((d) => d.packageId)], main, dependencies: deps };
}

/** A DAR from explicit entries (manifest text and dalfs), for malformed-DAR tests. */
export function buildRawDar(manifest: string | undefined, dalfs: Array<{ path: string; bytes: Buffer }>, method: 'store' | 'deflate' = 'deflate'): Buffer {
  const entries: ZipInput[] = manifest === undefined ? [] : [{ name: 'META-INF/MANIFEST.MF', data: manifest }];
  for (const d of dalfs) entries.push({ name: d.path, data: d.bytes });
  return buildZip(entries, method);
}
