/**
 * The types and type-constructor references inside definitions and expressions: `Type`,
 * `Type.Con`, `TypeConId` and `ModuleId` of daml_lf2.proto. Types are decoded by the type-level
 * decoder's `Lf2Context`, which holds `Package.interned_types` (each interned type decoded once,
 * shared by the whole package); the common `{ interned_type = 8 }` reference is read in place,
 * without building a message reader.
 */
import { LfDecodeError, type Lf2Context, type LfType, type TypeConRef } from '../../dar/lf2.js';
import { ProtoMessage } from '../../shared/protobuf.js';
import type { Msg } from '../../shared/lf-reader.js';

export const UNIT_TYPE: LfType = { kind: 'builtin', name: 'Unit', args: [] };

export class TypeReader {
  constructor(private readonly ctx: Lf2Context) {}

  /**
   * A `Type`: most types in expressions are `interned_type = 8` references, taken from the shared
   * cache without building a reader; others go through the shared type decoder.
   */
  type(m: Msg | undefined): LfType {
    if (!m) throw new LfDecodeError('missing type');
    if (m.caseOf() === 8) return this.ctx.interned(m.int32(8));
    return this.ctx.type(m.asProto());
  }

  /** The required `Type` field `field` of `p`. */
  typeF(p: Msg, field: number): LfType {
    const i = p.last(field);
    if (i < 0) throw new LfDecodeError('missing type');
    if (p.f[i + 1] !== 2) throw new LfDecodeError(`type field ${field} is not a message`);
    return this.typeAt(p.buf, p.f[i + 2]!, p.f[i + 3]!);
  }

  typesF(p: Msg, field: number): LfType[] {
    const out: LfType[] = [];
    const f = p.f;
    for (let i = 0; i < f.length; i += 4) {
      if (f[i] !== field) continue;
      if (f[i + 1] !== 2) throw new LfDecodeError(`type field ${field} is not a message`);
      out.push(this.typeAt(p.buf, f[i + 2]!, f[i + 3]!));
    }
    return out;
  }

  /** The `Type` in `buf[start, end)`; the common `{ interned_type = 8 }` read in place. */
  private typeAt(buf: Buffer, start: number, end: number): LfType {
    // Key 0x40 is field 8, wire type 0.
    if (end > start && buf[start] === 0x40) {
      let pos = start + 1;
      let v = 0;
      let shift = 0;
      let b: number;
      do {
        if (pos >= end) break;
        b = buf[pos++]!;
        v |= (b & 0x7f) << shift;
        shift += 7;
      } while (b & 0x80 && shift < 35);
      if (pos === end) return this.ctx.interned(v | 0);
    }
    return this.ctx.type(ProtoMessage.decode(buf.subarray(start, end)));
  }

  /** `TypeConId { module 1, name_interned_dname 2 }`. */
  typeConId(m: Msg | undefined): TypeConRef {
    if (!m) throw new LfDecodeError('missing type constructor reference');
    const mod = m.msg(1);
    if (!mod) throw new LfDecodeError('type constructor reference without module');
    const { packageId, moduleName } = this.moduleId(mod);
    return { packageId, moduleName, entityName: this.ctx.dname(m.int32(2)) };
  }

  /**
   * `ModuleId { package_id 1 (SelfOrImportedPackageId { self 1 | interned_str 3 | import 4 }),
   * module_name_interned_dname 2 }`.
   */
  moduleId(m: Msg): { packageId: string; moduleName: string } {
    const p = m.msg(1);
    let packageId = this.ctx.selfId;
    if (p) {
      const c = p.caseOf();
      if (c === 3) packageId = this.ctx.str(p.int32(3));
      else if (c === 4) packageId = this.ctx.importedPackage(p.int32(4));
    }
    return { packageId, moduleName: this.ctx.dname(m.int32(2)) };
  }

  /** `Type.Con { tycon 1, args 2 }`. */
  tyconApp(m: Msg | undefined): { tycon: TypeConRef; args: LfType[] } {
    if (!m) throw new LfDecodeError('missing type constructor application');
    return { tycon: this.typeConId(m.msg(1)), args: this.typesF(m, 2) };
  }
}
