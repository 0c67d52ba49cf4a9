/**
 * A test oracle for native templates' LF type descriptions (lf-value/native-type.ts): reads real
 * DARs with the emulator's own DAR reader and turns a Daml-LF type into the same shape as a
 * `NativeValueType`, so that the two can be compared structurally and recursively.
 *
 * Canonical form of both sides: a record is its fields in LF order; `DA.Set.Types:Set a` is the
 * record it is (`map : GenMap a ()`), so a `{ set: a }` description is expanded the same way;
 * `Numeric 10` is `decimal` (any other scale is named, and differs from every description).
 * Recursive types (the token standard's `AnyValue`) are cyclic on both sides; comparison stops
 * on a pair it is already comparing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { decodeDar, type DecodedDataType, type DecodedPackage, type LfType } from '../../src/emulator/dar/index.js';
import type { NativeValueType } from '../../src/emulator/lf-value/native-type.js';

export class DarIndex {
  readonly packages = new Map<string, DecodedPackage>();

  static load(dir: string | URL): DarIndex {
    const idx = new DarIndex();
    const names = readdirSync(dir).filter((n) => n.endsWith('.dar'));
    for (const n of names) {
      const dar = decodeDar(readFileSync(new URL(n, dir)));
      for (const p of dar.packages) idx.packages.set(p.packageId, p);
    }
    return idx;
  }

  dataType(packageId: string, moduleName: string, name: string): DecodedDataType | undefined {
    return this.packages
      .get(packageId)
      ?.modules.find((m) => m.name === moduleName)
      ?.dataTypes.find((d) => d.name === name);
  }

  /** The LF type of template `entity`'s payload: its record type constructor. */
  templateType(packageId: string, moduleName: string, entity: string): LfType {
    return { kind: 'con', tycon: { packageId, moduleName, entityName: entity }, args: [] };
  }

  template(packageId: string, moduleName: string, entity: string) {
    return this.packages
      .get(packageId)
      ?.modules.find((m) => m.name === moduleName)
      ?.templates.find((t) => t.name === entity);
  }

  iface(packageId: string, moduleName: string, entity: string) {
    return this.packages
      .get(packageId)
      ?.modules.find((m) => m.name === moduleName)
      ?.interfaces.find((t) => t.name === entity);
  }

  /** The NativeValueType-shaped reading of `t` (type variables bound by `env`). */
  toNative(t: LfType, env: ReadonlyMap<string, LfType> = new Map(), memo = new Map<string, NativeValueType>()): NativeValueType {
    switch (t.kind) {
      case 'var': {
        const bound = env.get(t.name);
        if (!bound) throw new Error(`unbound type variable ${t.name}`);
        return this.toNative(bound, new Map(), memo);
      }
      case 'builtin': {
        const arg = (i: number) => {
          const a = t.args[i];
          if (!a) throw new Error(`${t.name} without its argument ${i}`);
          return this.toNative(a, env, memo);
        };
        switch (t.name) {
          case 'Unit':
            return 'unit';
          case 'Bool':
            return 'bool';
          case 'Int64':
            return 'int';
          case 'Date':
            return 'date';
          case 'Timestamp':
            return 'time';
          case 'Party':
            return 'party';
          case 'Text':
            return 'text';
          case 'ContractId':
            return 'cid';
          case 'Numeric': {
            const scale = t.args[0];
            if (scale?.kind === 'nat' && scale.value === 10) return 'decimal';
            return { custom: () => `Numeric ${scale?.kind === 'nat' ? scale.value : '?'}` };
          }
          case 'Optional':
            return { opt: arg(0) };
          case 'List':
            return { list: arg(0) };
          case 'TextMap':
            return { textMap: arg(0) };
          case 'GenMap':
            return { map: [arg(0), arg(1)] };
          default:
            throw new Error(`unsupported builtin type ${t.name}`);
        }
      }
      case 'con': {
        const args = t.args.map((a) => resolve(a, env));
        const key = `${t.tycon.packageId}:${t.tycon.moduleName}:${t.tycon.entityName}(${args.map(keyOf).join(',')})`;
        const hit = memo.get(key);
        if (hit) return hit;
        const dt = this.dataType(t.tycon.packageId, t.tycon.moduleName, t.tycon.entityName);
        if (!dt) throw new Error(`data type ${t.tycon.moduleName}:${t.tycon.entityName} not in the DARs (package ${t.tycon.packageId})`);
        const inner = new Map<string, LfType>();
        dt.params.forEach((p, i) => {
          const a = args[i];
          if (a) inner.set(p, a);
        });
        if (dt.kind === 'record') {
          const fields: Array<readonly [string, NativeValueType]> = [];
          const out: NativeValueType = { rec: fields };
          memo.set(key, out);
          for (const f of dt.fields) fields.push([f.name, this.toNative(f.type, inner, memo)]);
          return out;
        }
        if (dt.kind === 'variant') {
          const ctors: Record<string, NativeValueType> = {};
          const out: NativeValueType = { variant: ctors };
          memo.set(key, out);
          for (const c of dt.constructors) ctors[c.name] = this.toNative(c.type, inner, memo);
          return out;
        }
        if (dt.kind === 'enum') return { enum: dt.constructors };
        throw new Error(`${t.tycon.entityName} is an interface, not a serializable type`);
      }
      default:
        throw new Error(`unsupported LF type kind ${t.kind}`);
    }
  }
}

function resolve(t: LfType, env: ReadonlyMap<string, LfType>): LfType {
  if (t.kind === 'var') return env.get(t.name) ?? t;
  if (t.kind === 'builtin' || t.kind === 'con') return { ...t, args: t.args.map((a) => resolve(a, env)) };
  return t;
}

function keyOf(t: LfType): string {
  if (t.kind === 'builtin') return `${t.name}(${t.args.map(keyOf).join(',')})`;
  if (t.kind === 'con') return `${t.tycon.packageId}:${t.tycon.moduleName}:${t.tycon.entityName}(${t.args.map(keyOf).join(',')})`;
  if (t.kind === 'nat') return String(t.value);
  if (t.kind === 'var') return `'${t.name}`;
  return t.kind;
}

/** `{ set: a }` as the record `DA.Set.Types:Set a` is. */
function canonical(t: NativeValueType): NativeValueType {
  if (typeof t !== 'string' && 'set' in t) return { rec: [['map', { map: [t.set, 'unit'] }]] };
  return t;
}

/** Where an `any` or `custom` sits in a description, and why it is allowed (the test's allow-list). */
export type Allowance = (path: string) => boolean;

/**
 * The differences between `ours` (a description) and `theirs` (`toNative` of the DAR type), each
 * as `path: ours vs theirs`. An `any`/`custom` of ours is a difference unless `allowed(path)`.
 */
export function compareTypes(ours: NativeValueType, theirs: NativeValueType, path = '', allowed: Allowance = () => false, pairs = new WeakMap<object, WeakSet<object>>()): string[] {
  const a = canonical(ours);
  const b = canonical(theirs);
  if (typeof a === 'object' && typeof b === 'object') {
    const done = pairs.get(a);
    if (done?.has(b)) return [];
    if (done) done.add(b);
    else pairs.set(a, new WeakSet([b]));
  }
  if (a === 'any' || (typeof a === 'object' && 'custom' in a)) return allowed(path) ? [] : [`${path || '<root>'}: ${describe(a)} (not allowed here) vs ${describe(b)}`];
  const diff = (): string[] => [`${path || '<root>'}: ${describe(a)} vs ${describe(b)}`];
  if (typeof a === 'string' || typeof b === 'string') return a === b ? [] : diff();
  if ('custom' in b) return diff();
  if ('opt' in a) return 'opt' in b ? compareTypes(a.opt, b.opt, `${path}?`, allowed, pairs) : diff();
  if ('list' in a) return 'list' in b ? compareTypes(a.list, b.list, `${path}[]`, allowed, pairs) : diff();
  if ('textMap' in a) return 'textMap' in b ? compareTypes(a.textMap, b.textMap, `${path}{}`, allowed, pairs) : diff();
  if ('map' in a) {
    if (!('map' in b)) return diff();
    return [...compareTypes(a.map[0], b.map[0], `${path}<key>`, allowed, pairs), ...compareTypes(a.map[1], b.map[1], `${path}<value>`, allowed, pairs)];
  }
  if ('enum' in a) return 'enum' in b && a.enum.join(',') === b.enum.join(',') ? [] : diff();
  if ('rec' in a) {
    if (!('rec' in b)) return diff();
    const an = a.rec.map(([n]) => n).join(',');
    const bn = b.rec.map(([n]) => n).join(',');
    if (an !== bn) return [`${path || '<root>'}: record fields (${an}) vs (${bn})`];
    return a.rec.flatMap(([n, t], i) => compareTypes(t, b.rec[i]![1], `${path}.${n}`, allowed, pairs));
  }
  if ('variant' in a) {
    if (!('variant' in b)) return diff();
    const an = Object.keys(a.variant).join(',');
    const bn = Object.keys(b.variant).join(',');
    if (an !== bn) return [`${path || '<root>'}: variant constructors (${an}) vs (${bn})`];
    return Object.entries(a.variant).flatMap(([n, t]) => compareTypes(t, b.variant[n]!, `${path}|${n}`, allowed, pairs));
  }
  return diff();
}

function describe(t: NativeValueType): string {
  if (typeof t === 'string') return t;
  if ('custom' in t) return `custom(${String(t.custom(undefined, ''))})`;
  return Object.keys(t)[0] ?? '?';
}

/** A readable Daml-like rendering of a NativeValueType (for writing descriptions; cycles cut). */
export function render(t: NativeValueType, depth = 0, seen = new Set<object>()): string {
  if (typeof t === 'string') return t;
  if (seen.has(t)) return '<cycle>';
  const s = new Set(seen).add(t);
  const ind = '  '.repeat(depth + 1);
  if ('custom' in t) return describe(t);
  if ('opt' in t) return `opt(${render(t.opt, depth, s)})`;
  if ('list' in t) return `list(${render(t.list, depth, s)})`;
  if ('textMap' in t) return `textMap(${render(t.textMap, depth, s)})`;
  if ('map' in t) return `map(${render(t.map[0], depth, s)}, ${render(t.map[1], depth, s)})`;
  if ('set' in t) return `set(${render(t.set, depth, s)})`;
  if ('enum' in t) return `enum(${t.enum.join('|')})`;
  if ('rec' in t) return `rec(\n${t.rec.map(([n, f]) => `${ind}${n}: ${render(f, depth + 1, s)}`).join('\n')}\n${'  '.repeat(depth)})`;
  return `variant(\n${Object.entries(t.variant).map(([n, f]) => `${ind}${n}: ${render(f, depth + 1, s)}`).join('\n')}\n${'  '.repeat(depth)})`;
}
