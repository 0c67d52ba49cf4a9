/**
 * Request validation without zod's copy, for the registry's POST bodies. zod's parse returns a
 * new value: it rebuilds every object and array of the input field by field (a result object per
 * field on the way), which on a warm factory request allocated more than the rest of the answer
 * and took a fifth of its time (bench/registry.ts). A wallet's request body is almost always
 * already what the schema describes, and then that copy only drops unknown keys.
 *
 * `inPlace(schema)` derives from the schema's own definition a check that answers, without
 * allocating, whether zod would accept a value as it is: every field valid, no default to fill
 * in. Then the value itself is the result. Anything else (an invalid value, a missing field with
 * a default, a schema kind the check does not know) goes to zod's safeParse, which also writes
 * the error message: the zod schema stays the one definition of the wire type.
 *
 * The one difference from zod's result: keys the schema does not name are kept, not dropped. The
 * registry reads the fields its types name and never enumerates a parsed request.
 * test/unit/registry/in-place.test.ts checks agreement with zod on valid and mutated requests.
 */
import { z } from 'zod';
import { isObject, isPlainObject } from '../canton/json-shape.js';

/** Whether zod would accept the value unchanged (false also when the check cannot tell). */
type Check = (value: unknown) => boolean;

export interface InPlaceSchema<S extends z.ZodType> {
  readonly schema: S;
  safeParse(value: unknown): z.ZodSafeParseResult<z.output<S>>;
}

export function inPlace<S extends z.ZodType>(schema: S): InPlaceSchema<S> {
  const check = compile(schema) ?? never;
  const accepted = (value: unknown): value is z.output<S> => check(value);
  return {
    schema,
    safeParse: (value) => (accepted(value) ? { success: true, data: value } : schema.safeParse(value)),
  };
}

const never: Check = () => false;

/** The check of one schema; undefined for a kind (or refinement) it does not know. */
function compile(s: z.core.$ZodType): Check | undefined {
  if (s instanceof z.ZodString) return compileString(s);
  if (s instanceof z.ZodNumber) return hasChecks(s) ? undefined : (v) => typeof v === 'number' && Number.isFinite(v);
  if (s instanceof z.ZodBoolean) return (v) => typeof v === 'boolean';
  if (s instanceof z.ZodUnknown || s instanceof z.ZodAny) return (v) => v !== undefined;
  if (s instanceof z.ZodEnum) {
    const values: ReadonlySet<unknown> = new Set(s.options);
    return (v) => values.has(v);
  }
  if (s instanceof z.ZodLiteral) {
    const values: ReadonlySet<unknown> = s.values;
    return (v) => values.has(v);
  }
  if (s instanceof z.ZodOptional) return orWhen(s.unwrap(), (v) => v === undefined);
  if (s instanceof z.ZodNullable) return orWhen(s.unwrap(), (v) => v === null);
  if (s instanceof z.ZodDefault) {
    // undefined is replaced by the default: zod's result differs from the value
    const inner = compile(s.unwrap());
    return inner && ((v) => v !== undefined && inner(v));
  }
  if (s instanceof z.ZodArray) {
    if (hasChecks(s)) return undefined;
    const element = compile(s.element);
    return (
      element &&
      ((v) => {
        if (!Array.isArray(v)) return false;
        for (let i = 0; i < v.length; i++) if (!element(v[i])) return false;
        return true;
      })
    );
  }
  if (s instanceof z.ZodRecord) {
    if (!(s.keyType instanceof z.ZodString) || hasChecks(s.keyType) || hasChecks(s)) return undefined;
    const value = compile(s.valueType);
    return (
      value &&
      ((v) => {
        if (!isPlainObject(v)) return false;
        for (const k in v) if (!value(v[k])) return false;
        return true;
      })
    );
  }
  if (s instanceof z.ZodObject) return compileObject(s);
  if (s instanceof z.ZodUnion) {
    // zod takes the first option that accepts; only options whose acceptance the check decides
    // exactly (no defaults inside) make "some option conforms" mean the same.
    const options: Check[] = [];
    for (const o of s.options) {
      if (!(o instanceof z.ZodString || o instanceof z.ZodNumber || o instanceof z.ZodBoolean || o instanceof z.ZodEnum || o instanceof z.ZodLiteral)) return undefined;
      const c = compile(o);
      if (!c) return undefined;
      options.push(c);
    }
    return (v) => options.some((c) => c(v));
  }
  return undefined;
}

function compileString(s: z.ZodString): Check | undefined {
  const checks = s._zod.def.checks ?? [];
  if (checks.some((c) => c._zod.def.check !== 'min_length' && c._zod.def.check !== 'max_length')) return undefined;
  // zod counts UTF-16 code units (string length), as `length` does
  const min = s.minLength ?? 0;
  const max = s.maxLength ?? Infinity;
  return (v) => typeof v === 'string' && v.length >= min && v.length <= max;
}

function compileObject(s: z.ZodObject): Check | undefined {
  if (s._zod.def.catchall !== undefined || hasChecks(s)) return undefined;
  const fields: Array<{ key: string; check: Check }> = [];
  for (const [key, field] of Object.entries(s.shape)) {
    const check = compile(field);
    if (!check) return undefined;
    fields.push({ key, check });
  }
  return (v) => {
    if (!isObject(v)) return false;
    for (const f of fields) if (!f.check(v[f.key])) return false;
    return true;
  };
}

function orWhen(inner: z.core.$ZodType, when: Check): Check | undefined {
  const check = compile(inner);
  return check && ((v) => when(v) || check(v));
}

function hasChecks(s: z.core.$ZodType): boolean {
  return (s._zod.def.checks?.length ?? 0) > 0;
}
