import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DecodedDataType, LfType, TypeConRef } from '../../../../src/emulator/daml-lf/ast.js';
import { formatNumeric } from '../../../../src/canton/numeric.js';
import { LfJsonCodec, LfJsonError } from '../../../../src/emulator/lf-value/runtime-json-codec.js';
import { normalizeValue } from '../../../../src/emulator/lf-value/json-codec.js';
import {
  contractId,
  date,
  int64,
  list,
  NONE,
  numeric,
  party,
  some,
  text,
  timestamp,
  UNIT,
  TRUE,
  FALSE,
  type Value,
} from '../../../../src/emulator/lf-value/runtime-value.js';
import { TypesOnlyLookup } from '../../../support/daml-lf-types.js';
import { SHARED_DARS_URL } from '../../../support/shared-dars.js';


const b = (name: string, ...args: LfType[]): LfType => ({ kind: 'builtin', name: name as 'Unit', args });
const nat = (value: number): LfType => ({ kind: 'nat', value });

describe('LfJsonCodec on builtin types', () => {
  const codec = new LfJsonCodec({ get: () => undefined });
  const both = (t: LfType, v: Value, json: unknown) => {
    expect(codec.toJson(t, v)).toEqual(json);
    expect(codec.toValue(t, json)).toEqual(v);
  };

  it('writes scalars in the transcode encoding', () => {
    both(b('Unit'), UNIT, {});
    both(b('Bool'), TRUE, true);
    both(b('Bool'), FALSE, false);
    both(b('Int64'), int64(-9223372036854775808n), '-9223372036854775808');
    both(b('Text'), text('héllo 🙂'), 'héllo 🙂');
    both(b('Party'), party('alice::1220ab'), 'alice::1220ab');
    both(b('ContractId', b('Unit')), contractId('00abcdef'), '00abcdef');
  });

  it('writes Numeric with exactly its scale (scale 0 ends in ".")', () => {
    both(b('Numeric', nat(10)), numeric(10, 12_500_000_000n), '1.2500000000');
    both(b('Numeric', nat(10)), numeric(10, -5n), '-0.0000000005');
    both(b('Numeric', nat(0)), numeric(0, 42n), '42.');
    both(b('Numeric', nat(2)), numeric(2, 0n), '0.00');
    expect(formatNumeric(-100n, 2)).toBe('-1.00');
    expect(codec.toValue(b('Numeric', nat(10)), '7')).toEqual(numeric(10, 70_000_000_000n));
  });

  it('writes Date and Timestamp as the JSON API does', () => {
    both(b('Date'), date(0), '1970-01-01');
    both(b('Date'), date(-1), '1969-12-31');
    both(b('Timestamp'), timestamp(1_700_000_000_123_400n), '2023-11-14T22:13:20.1234Z');
    both(b('Timestamp'), timestamp(0n), '1970-01-01T00:00:00Z');
  });

  it('uses the nested Optional form only where the type is written as a chain', () => {
    const oo = b('Optional', b('Optional', b('Int64')));
    both(oo, NONE, []);
    both(oo, some(NONE), [[]]);
    both(oo, some(some(int64(5n))), [['5']]);
    both(b('Optional', b('Int64')), some(int64(5n)), '5');
    both(b('Optional', b('Int64')), NONE, null);
  });

  it('sorts TextMap keys in code-point order', () => {
    const t = b('TextMap', b('Int64'));
    const v: Value = { tag: 'textMap', entries: new Map([['b', int64(2n)], ['a', int64(1n)], ['\u{1F600}', int64(3n)], ['\uFFFF', int64(4n)]]) };
    expect(Object.keys(codec.toJson(t, v) as object)).toEqual(['a', 'b', '\uFFFF', '\u{1F600}']);
  });

  it('reports a value of the wrong shape as an LfJsonError', () => {
    expect(() => codec.toJson(b('Int64'), text('x'))).toThrow(LfJsonError);
    expect(() => codec.toValue(b('Int64'), 'x')).toThrow(LfJsonError);
    expect(() => codec.toValue(b('Any'), {})).toThrow(LfJsonError);
  });
});

// ---- round trips over every serializable data type of the real DARs -------------------------------

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Bound {
  type: LfType;
  env: Env;
}
type Env = ReadonlyMap<string, Bound>;

/** Random values of an LF type (depth-bounded: deep levels pick None, [] and a variant's first constructor). */
class Gen {
  constructor(
    private readonly lookup: TypesOnlyLookup,
    private readonly r: () => number,
  ) {}

  value(t: LfType, env: Env, depth: number): Value {
    switch (t.kind) {
      case 'var': {
        const bound = env.get(t.name)!;
        return this.value(bound.type, bound.env, depth);
      }
      case 'builtin':
        return this.builtin(t, env, depth);
      case 'con':
        return this.data(t.tycon, t.args, env, depth);
      default:
        throw new Error(`unexpected type ${t.kind}`);
    }
  }

  private int(max: number): number {
    return Math.floor(this.r() * max);
  }

  private bigint(digits: number): bigint {
    let s = '';
    const n = 1 + this.int(digits);
    for (let i = 0; i < n; i++) s += String(this.int(10));
    const v = BigInt(s);
    return this.r() < 0.3 ? -v : v;
  }

  private builtin(t: Extract<LfType, { kind: 'builtin' }>, env: Env, depth: number): Value {
    const [a0, a1] = t.args;
    const deep = depth > 4;
    switch (t.name) {
      case 'Unit':
        return UNIT;
      case 'Bool':
        return this.r() < 0.5 ? TRUE : FALSE;
      case 'Int64':
        return int64(this.bigint(18));
      case 'Text':
        return text(['', 'a', 'héllo', 'x y z', '🙂', 'Zürich', '\u0000'][this.int(7)]!);
      case 'Party':
        return party(`p${this.int(100)}::1220${'ab'.repeat(4)}`);
      case 'ContractId':
        return contractId(`00${'c0ffee'.repeat(1 + this.int(3))}`);
      case 'Numeric': {
        let s = a0!;
        let e = env;
        while (s.kind === 'var') {
          const bound = e.get(s.name)!;
          s = bound.type;
          e = bound.env;
        }
        const scale = s.kind === 'nat' ? s.value : 10;
        return numeric(scale, this.bigint(Math.min(30, 38 - scale) + scale - 1));
      }
      case 'Date':
        return date(this.int(2_000_000) - 719_162);
      case 'Timestamp':
        return timestamp(BigInt(this.int(2 ** 31)) * 1_000_000n + BigInt(this.int(1_000_000)));
      case 'Optional':
        return deep || this.r() < 0.3 ? NONE : some(this.value(a0!, env, depth + 1));
      case 'List':
        return list(deep ? [] : Array.from({ length: this.int(3) }, () => this.value(a0!, env, depth + 1)));
      case 'TextMap': {
        const entries = new Map<string, Value>();
        if (!deep) for (let i = this.int(3); i > 0; i--) entries.set(`k${this.int(10)}`, this.value(a0!, env, depth + 1));
        return { tag: 'textMap', entries };
      }
      case 'GenMap':
        // one entry at most: order of several keys is LF's value order, the builtins' business
        return { tag: 'genMap', entries: deep || this.r() < 0.5 ? [] : [[this.value(a0!, env, depth + 1), this.value(a1!, env, depth + 1)]] };
      default:
        throw new Error(`unexpected builtin ${t.name}`);
    }
  }

  private data(tycon: TypeConRef, args: readonly LfType[], env: Env, depth: number): Value {
    const dt = this.lookup.get(tycon.packageId)!.modules.get(tycon.moduleName)!.dataTypes.get(tycon.entityName)!;
    const inner: Env = new Map(dt.params.map((p, i) => [p, { type: args[i]!, env }]));
    switch (dt.kind) {
      case 'record':
        return { tag: 'record', tycon, fields: dt.fields.map((f) => this.value(f.type, inner, depth + 1)), fieldNames: dt.fields.map((f) => f.name) };
      case 'variant': {
        const rank = depth > 4 ? 0 : this.int(dt.constructors.length);
        const c = dt.constructors[rank]!;
        return { tag: 'variant', tycon, constructor: c.name, rank, value: this.value(c.type, inner, depth + 1) };
      }
      case 'enum': {
        const rank = this.int(dt.constructors.length);
        return { tag: 'enum', tycon, constructor: dt.constructors[rank]!, rank };
      }
      case 'interface':
        throw new Error('interface');
    }
  }
}

describe('LfJsonCodec round trips over the serializable data types of the Splice DARs', () => {
  const files = readdirSync(SHARED_DARS_URL).filter((n) => n.endsWith('.dar')).map((n) => new URL(n, SHARED_DARS_URL));
  const lookup = TypesOnlyLookup.ofDars(files);
  const codec = new LfJsonCodec(lookup);
  const resolve = (r: TypeConRef): DecodedDataType | undefined => codec.dataType(r);
  const INT = b('Int64');

  const types: Array<{ name: string; type: LfType }> = [];
  for (const p of lookup.decoded.values()) {
    for (const m of p.modules) {
      for (const d of m.dataTypes) {
        if (!d.serializable || d.kind === 'interface') continue;
        // type parameters: Int64 for value parameters, 10 for a Numeric's scale parameter
        const args = d.params.map((): LfType => INT);
        types.push({ name: `${p.name}:${m.name}:${d.name}`, type: { kind: 'con', tycon: { packageId: p.packageId, moduleName: m.name, entityName: d.name }, args } });
      }
    }
  }

  it('finds the DARs data types', () => {
    expect(types.length).toBeGreaterThan(200);
  });

  it('Value → JSON is canonical (normalizeValue leaves it unchanged) and JSON → Value gives the value back', () => {
    const r = rng(20261124);
    const gen = new Gen(lookup, r);
    let checked = 0;
    for (const { name, type } of types) {
      for (let i = 0; i < 8; i++) {
        let v: Value;
        try {
          v = gen.value(type, new Map(), 0);
        } catch {
          continue; // a Numeric-kinded parameter instantiated with Int64: not a value type
        }
        const json = codec.toJson(type, v);
        expect(normalizeValue(type, json, resolve, ''), name).toEqual(json);
        expect(codec.toValue(type, json), name).toEqual(v);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });
});
