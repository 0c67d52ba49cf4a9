/**
 * The LF type of a native template's payload or choice argument, as the native templates
 * describe their records (templates/lf-types.ts, `LfT`): Decimal is `Numeric 10`, `int` Int64,
 * `time` Timestamp, `date` Date, `cid` ContractId, `any` a value whose type the template does not pin down,
 * `custom` a value read by a hand-written parser (its type is not described). The engine only
 * needs the shape, to encode values with their LF types (interactive submission's prepared
 * transactions); the template layer reads and normalises values with it.
 */
export type NativeValueType =
  | 'party'
  | 'text'
  | 'decimal'
  | 'int'
  | 'time'
  | 'date'
  | 'bool'
  | 'cid'
  | 'unit'
  | 'any'
  | { opt: NativeValueType }
  | { list: NativeValueType }
  | { rec: ReadonlyArray<readonly [string, NativeValueType]> }
  | { variant: Readonly<Record<string, NativeValueType>> }
  | { enum: readonly string[] }
  | { textMap: NativeValueType }
  | { map: readonly [NativeValueType, NativeValueType] }
  | { set: NativeValueType }
  /** A value read by a hand-written parser (for a type whose reading the cases above do not word alike). */
  | { custom: (value: unknown, path: string) => unknown };
