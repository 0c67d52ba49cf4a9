/**
 * Test helper: real DARs decoded with the full decoder, and evaluator values built from plain JS
 * by LF type (records by field name, in declaration order; variants as `{ tag, value }`; enums as
 * their constructor name; Optional as `null` or the value; Numeric as a decimal string).
 */
import { readFileSync } from 'node:fs';
import type { DamlPackage, LfType, PackageLookup, TypeConRef } from '../../../../src/emulator/daml-lf/ast.js';
import { decodeDamlPackage } from '../../../../src/emulator/daml-lf/decode/index.js';
import { decodeDar } from '../../../../src/emulator/dar/index.js';
import type { Value } from '../../../../src/emulator/lf-value/runtime-value.js';

export function loadDars(files: string[], opts: { lazy?: boolean } = {}): { pkgs: Map<string, DamlPackage>; lookup: PackageLookup; byName: (name: string) => DamlPackage } {
  const pkgs = new Map<string, DamlPackage>();
  for (const f of files) {
    const dar = decodeDar(readFileSync(`../shared/dars/${f}`));
    for (const p of dar.packages) if (!pkgs.has(p.packageId)) pkgs.set(p.packageId, decodeDamlPackage(p.packageId, p.payload, opts));
  }
  const byName = (name: string): DamlPackage => {
    const found = [...pkgs.values()].filter((p) => p.name === name);
    if (found.length !== 1) throw new Error(`${found.length} packages named ${name}`);
    return found[0]!;
  };
  return { pkgs, lookup: { get: (id) => pkgs.get(id) }, byName };
}

function decimal(s: string, scale: number): bigint {
  const neg = s.startsWith('-');
  const [i = '0', f = ''] = (neg ? s.slice(1) : s).split('.');
  const u = BigInt(i + f.padEnd(scale, '0').slice(0, scale));
  return neg ? -u : u;
}

function subst(t: LfType, env: ReadonlyMap<string, LfType>): LfType {
  switch (t.kind) {
    case 'var':
      return env.get(t.name) ?? t;
    case 'builtin':
      return { ...t, args: t.args.map((a) => subst(a, env)) };
    case 'con':
      return { ...t, args: t.args.map((a) => subst(a, env)) };
    default:
      return t;
  }
}

/** Builds the evaluator value of `js` at type `type`. */
export function toValue(pkgs: PackageLookup, type: LfType, js: unknown): Value {
  switch (type.kind) {
    case 'builtin': {
      const [a0, a1] = type.args;
      switch (type.name) {
        case 'Unit':
          return { tag: 'unit' };
        case 'Bool':
          return { tag: 'bool', value: Boolean(js) };
        case 'Int64':
          return { tag: 'int64', value: BigInt(js as number) };
        case 'Text':
          return { tag: 'text', value: String(js) };
        case 'Party':
          return { tag: 'party', value: String(js) };
        case 'ContractId':
          return { tag: 'contractId', value: String(js) };
        case 'Timestamp':
          return { tag: 'timestamp', micros: BigInt(js as number) };
        case 'Date':
          return { tag: 'date', days: Number(js) };
        case 'Numeric': {
          const scale = a0?.kind === 'nat' ? a0.value : 10;
          return { tag: 'numeric', scale, unscaled: decimal(String(js), scale) };
        }
        case 'Optional':
          return { tag: 'optional', value: js === null || js === undefined ? undefined : toValue(pkgs, a0!, js) };
        case 'List':
          return { tag: 'list', items: (js as unknown[]).map((x) => toValue(pkgs, a0!, x)) };
        case 'TextMap':
          return { tag: 'textMap', entries: new Map(Object.entries(js as Record<string, unknown>).map(([k, x]) => [k, toValue(pkgs, a0!, x)])) };
        case 'GenMap':
          if ((js as unknown[]).length > 0) throw new Error('non-empty GenMap not supported by this helper');
          void a1;
          return { tag: 'genMap', entries: [] };
        default:
          throw new Error(`toValue: type ${type.name}`);
      }
    }
    case 'con': {
      const dt = pkgs.get(type.tycon.packageId)?.modules.get(type.tycon.moduleName)?.dataTypes.get(type.tycon.entityName);
      if (dt === undefined) throw new Error(`no data type ${type.tycon.entityName}`);
      const env = new Map(dt.params.map((p, i) => [p, type.args[i]!]));
      const tycon: TypeConRef = type.tycon;
      switch (dt.kind) {
        case 'record': {
          const o = js as Record<string, unknown>;
          return {
            tag: 'record',
            tycon,
            fieldNames: dt.fields.map((f) => f.name),
            fields: dt.fields.map((f) => {
              if (!(f.name in o)) throw new Error(`missing field ${f.name} of ${tycon.entityName}`);
              return toValue(pkgs, subst(f.type, env), o[f.name]);
            }),
          };
        }
        case 'variant': {
          const { tag, value } = js as { tag: string; value: unknown };
          const rank = dt.constructors.findIndex((c) => c.name === tag);
          if (rank < 0) throw new Error(`no constructor ${tag}`);
          return { tag: 'variant', tycon, constructor: tag, rank, value: toValue(pkgs, subst(dt.constructors[rank]!.type, env), value) };
        }
        case 'enum':
          return { tag: 'enum', tycon, constructor: String(js), rank: dt.constructors.indexOf(String(js)) };
        case 'interface':
          throw new Error('interface values are template records');
      }
    }
    // falls through: other type forms are not serializable
    default:
      throw new Error(`toValue: type kind ${type.kind}`);
  }
}

/** Plain JS view of a value, for assertions. */
export function toJs(v: Value): unknown {
  switch (v.tag) {
    case 'unit':
      return {};
    case 'bool':
      return v.value;
    case 'int64':
      return v.value;
    case 'numeric': {
      const neg = v.unscaled < 0n;
      const s = (neg ? -v.unscaled : v.unscaled).toString().padStart(v.scale + 1, '0');
      return `${neg ? '-' : ''}${s.slice(0, s.length - v.scale)}${v.scale > 0 ? '.' + s.slice(s.length - v.scale) : ''}`;
    }
    case 'text':
    case 'party':
    case 'contractId':
      return v.value;
    case 'timestamp':
      return v.micros;
    case 'date':
      return v.days;
    case 'list':
      return v.items.map(toJs);
    case 'optional':
      return v.value === undefined ? null : toJs(v.value);
    case 'textMap':
      return Object.fromEntries([...v.entries].map(([k, x]) => [k, toJs(x)]));
    case 'genMap':
      return v.entries.map(([k, x]) => [toJs(k), toJs(x)]);
    case 'record':
      return Object.fromEntries(v.fieldNames.map((n, i) => [n, toJs(v.fields[i]!)]));
    case 'variant':
      return { tag: v.constructor, value: toJs(v.value) };
    case 'enum':
      return v.constructor;
    case 'struct':
      return Object.fromEntries([...v.fields].map(([k, x]) => [k, toJs(x)]));
    default:
      return `<${v.tag}>`;
  }
}
