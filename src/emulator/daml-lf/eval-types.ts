/**
 * The few places where the evaluator needs types at runtime (daml-lf-2.rst, "Expression
 * evaluation": `from_any`, `from_any_exception` compare the stored type with the requested one;
 * `type_rep` values compare by type). Types there are ground (no free type variables), so
 * comparing them is structural equality after expanding type synonyms and flattening type
 * applications (`(T a) b` is `T a b`).
 */
import type { LfType, PackageLookup, TypeConRef } from './ast.js';
import { DamlFailure } from './runtime.js';

/** Expands synonyms and flattens type applications, so that equal types are structurally equal. */
export function normalizeType(packages: PackageLookup, t: LfType, depth = 0): LfType {
  if (depth > 200) throw new DamlFailure({ kind: 'other', message: 'type synonym expansion does not terminate' });
  const norm = (x: LfType): LfType => normalizeType(packages, x, depth + 1);
  switch (t.kind) {
    case 'builtin':
      return t.args.length === 0 ? t : { kind: 'builtin', name: t.name, args: t.args.map(norm) };
    case 'con':
      return t.args.length === 0 ? t : { kind: 'con', tycon: t.tycon, args: t.args.map(norm) };
    case 'var':
      return t.args.length === 0 ? t : { kind: 'var', name: t.name, args: t.args.map(norm) };
    case 'nat':
      return t;
    case 'syn': {
      const syn = packages.get(t.tysyn.packageId)?.modules.get(t.tysyn.moduleName)?.synonyms.get(t.tysyn.entityName);
      if (syn === undefined) {
        throw new DamlFailure({ kind: 'other', message: `unknown type synonym ${refText(t.tysyn)}` });
      }
      const subst = new Map<string, LfType>();
      syn.params.forEach((p, i) => {
        const a = t.args[i];
        if (a !== undefined) subst.set(p, a);
      });
      return norm(substitute(syn.type, subst));
    }
    case 'struct':
      return { kind: 'struct', fields: t.fields.map((f) => ({ name: f.name, type: norm(f.type) })) };
    case 'forall':
      return { kind: 'forall', vars: t.vars, body: norm(t.body) };
    case 'app': {
      const fun = norm(t.fun);
      const arg = norm(t.arg);
      switch (fun.kind) {
        case 'builtin':
          return { kind: 'builtin', name: fun.name, args: [...fun.args, arg] };
        case 'con':
          return { kind: 'con', tycon: fun.tycon, args: [...fun.args, arg] };
        case 'var':
          return { kind: 'var', name: fun.name, args: [...fun.args, arg] };
        default:
          return { kind: 'app', fun, arg };
      }
    }
  }
}

function substitute(t: LfType, subst: ReadonlyMap<string, LfType>): LfType {
  const sub = (x: LfType): LfType => substitute(x, subst);
  switch (t.kind) {
    case 'var': {
      const r = subst.get(t.name);
      if (r === undefined) return { kind: 'var', name: t.name, args: t.args.map(sub) };
      return t.args.reduce<LfType>((fun, arg) => ({ kind: 'app', fun, arg: sub(arg) }), r);
    }
    case 'builtin':
      return { kind: 'builtin', name: t.name, args: t.args.map(sub) };
    case 'con':
      return { kind: 'con', tycon: t.tycon, args: t.args.map(sub) };
    case 'syn':
      return { kind: 'syn', tysyn: t.tysyn, args: t.args.map(sub) };
    case 'nat':
      return t;
    case 'struct':
      return { kind: 'struct', fields: t.fields.map((f) => ({ name: f.name, type: sub(f.type) })) };
    case 'forall': {
      const inner = new Map(subst);
      for (const v of t.vars) inner.delete(v);
      return { kind: 'forall', vars: t.vars, body: substitute(t.body, inner) };
    }
    case 'app':
      return { kind: 'app', fun: sub(t.fun), arg: sub(t.arg) };
  }
}

export function sameTycon(a: TypeConRef, b: TypeConRef): boolean {
  return a.entityName === b.entityName && a.moduleName === b.moduleName && a.packageId === b.packageId;
}

/** Structural equality of two normalized types. */
export function typesEqual(a: LfType, b: LfType): boolean {
  if (a === b) return true;
  switch (a.kind) {
    case 'builtin':
      return b.kind === 'builtin' && a.name === b.name && argsEqual(a.args, b.args);
    case 'con':
      return b.kind === 'con' && sameTycon(a.tycon, b.tycon) && argsEqual(a.args, b.args);
    case 'syn':
      return b.kind === 'syn' && sameTycon(a.tysyn, b.tysyn) && argsEqual(a.args, b.args);
    case 'var':
      return b.kind === 'var' && a.name === b.name && argsEqual(a.args, b.args);
    case 'nat':
      return b.kind === 'nat' && a.value === b.value;
    case 'struct':
      return (
        b.kind === 'struct' &&
        a.fields.length === b.fields.length &&
        a.fields.every((f, i) => {
          const g = b.fields[i];
          return g !== undefined && f.name === g.name && typesEqual(f.type, g.type);
        })
      );
    case 'forall':
      return (
        b.kind === 'forall' &&
        a.vars.length === b.vars.length &&
        a.vars.every((v, i) => v === b.vars[i]) &&
        typesEqual(a.body, b.body)
      );
    case 'app':
      return b.kind === 'app' && typesEqual(a.fun, b.fun) && typesEqual(a.arg, b.arg);
  }
}

function argsEqual(a: readonly LfType[], b: readonly LfType[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined || y === undefined || !typesEqual(x, y)) return false;
  }
  return true;
}

export function refText(r: TypeConRef): string {
  return `${r.moduleName}:${r.entityName}`;
}
