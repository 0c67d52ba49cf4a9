/**
 * The Daml-LF 2 abstract syntax the evaluator runs: a package's modules with their values,
 * templates, interfaces and exceptions, and the expression and update language, as the LF 2
 * specification (`daml-lf-2.rst`, "Core language") defines them and `daml_lf2.proto` encodes them.
 *
 * Interning is resolved by the decoder: names are plain strings, package references are package
 * ids (`self` resolved), types are the shared `LfType` of the type-level decoder. Locations are
 * kept on definitions (for error messages), not on every expression.
 */
import type { DecodedDataType, LfType, TypeConRef } from '../dar/lf2.js';
import type { FailureCategoryName, RoundingModeName } from '../lf-value/runtime-value.js';

export type { DecodedDataType, FailureCategoryName, LfType, RoundingModeName, TypeConRef };

/** `BuiltinFunction` of daml_lf2.proto, by its proto name. */
export type BuiltinFunctionName =
  | 'TRACE' | 'ERROR' | 'EQUAL' | 'LESS_EQ' | 'LESS' | 'GREATER_EQ' | 'GREATER'
  | 'ADD_INT64' | 'SUB_INT64' | 'MUL_INT64' | 'DIV_INT64' | 'MOD_INT64' | 'EXP_INT64'
  | 'ADD_NUMERIC' | 'SUB_NUMERIC' | 'MUL_NUMERIC' | 'DIV_NUMERIC' | 'ROUND_NUMERIC' | 'CAST_NUMERIC'
  | 'SHIFT_NUMERIC' | 'INT64_TO_NUMERIC' | 'NUMERIC_TO_INT64'
  | 'INT64_TO_TEXT' | 'NUMERIC_TO_TEXT' | 'TIMESTAMP_TO_TEXT' | 'DATE_TO_TEXT' | 'PARTY_TO_TEXT'
  | 'TEXT_TO_PARTY' | 'TEXT_TO_INT64' | 'TEXT_TO_NUMERIC' | 'CONTRACT_ID_TO_TEXT'
  | 'SHA256_TEXT' | 'EXPLODE_TEXT' | 'APPEND_TEXT' | 'IMPLODE_TEXT' | 'CODE_POINTS_TO_TEXT' | 'TEXT_TO_CODE_POINTS'
  | 'DATE_TO_UNIX_DAYS' | 'UNIX_DAYS_TO_DATE' | 'TIMESTAMP_TO_UNIX_MICROSECONDS' | 'UNIX_MICROSECONDS_TO_TIMESTAMP'
  | 'COERCE_CONTRACT_ID' | 'FOLDL' | 'FOLDR' | 'EQUAL_LIST'
  | 'GENMAP_EMPTY' | 'GENMAP_INSERT' | 'GENMAP_LOOKUP' | 'GENMAP_DELETE' | 'GENMAP_KEYS' | 'GENMAP_VALUES' | 'GENMAP_SIZE'
  | 'TEXTMAP_EMPTY' | 'TEXTMAP_INSERT' | 'TEXTMAP_LOOKUP' | 'TEXTMAP_DELETE' | 'TEXTMAP_TO_LIST' | 'TEXTMAP_SIZE'
  | 'ANY_EXCEPTION_MESSAGE' | 'FAIL_WITH_STATUS'
  | 'KECCAK256_TEXT' | 'SECP256K1_BOOL' | 'HEX_TO_TEXT' | 'TEXT_TO_HEX' | 'SHA256_HEX' | 'SECP256K1_WITH_ECDSA_BOOL'
  | 'SECP256K1_VALIDATE_KEY'
  | 'SCALE_BIGNUMERIC' | 'PRECISION_BIGNUMERIC' | 'ADD_BIGNUMERIC' | 'SUB_BIGNUMERIC' | 'MUL_BIGNUMERIC'
  | 'DIV_BIGNUMERIC' | 'SHIFT_RIGHT_BIGNUMERIC' | 'BIGNUMERIC_TO_NUMERIC' | 'NUMERIC_TO_BIGNUMERIC' | 'BIGNUMERIC_TO_TEXT'
  | 'TYPE_REP_TYCON_NAME' | 'EXTERNAL_CALL';


/** `BuiltinLit`: literals. A numeric literal's scale is its number of decimals (`1.50` is scale 2, unscaled 150n). */
export type Literal =
  | { lit: 'int64'; value: bigint }
  | { lit: 'numeric'; scale: number; unscaled: bigint }
  | { lit: 'text'; value: string }
  /** Microseconds since the Unix epoch. */
  | { lit: 'timestamp'; micros: bigint }
  /** Days since the Unix epoch. */
  | { lit: 'date'; days: number }
  | { lit: 'roundingMode'; value: RoundingModeName }
  | { lit: 'failureCategory'; value: FailureCategoryName };

export interface FieldExpr {
  field: string;
  expr: Expr;
}

export interface Binding {
  /** The bound variable's name. */
  name: string;
  type: LfType;
  bound: Expr;
}

/** `Expr` of daml_lf2.proto. Type arguments are kept so that `to_any`, `type_rep` and friends can be evaluated. */
export type Expr =
  | { tag: 'var'; name: string }
  | { tag: 'val'; ref: ValueRef }
  | { tag: 'builtin'; name: BuiltinFunctionName }
  | { tag: 'unit' }
  | { tag: 'bool'; value: boolean }
  | { tag: 'lit'; value: Literal }
  | { tag: 'recCon'; tycon: TypeConRef; typeArgs: LfType[]; fields: FieldExpr[] }
  | { tag: 'recProj'; tycon: TypeConRef; field: string; record: Expr }
  | { tag: 'recUpd'; tycon: TypeConRef; field: string; record: Expr; update: Expr }
  | { tag: 'variantCon'; tycon: TypeConRef; typeArgs: LfType[]; constructor: string; arg: Expr }
  | { tag: 'enumCon'; tycon: TypeConRef; constructor: string }
  | { tag: 'structCon'; fields: FieldExpr[] }
  | { tag: 'structProj'; field: string; struct: Expr }
  | { tag: 'structUpd'; field: string; struct: Expr; update: Expr }
  | { tag: 'app'; fun: Expr; args: Expr[] }
  | { tag: 'tyApp'; expr: Expr; types: LfType[] }
  | { tag: 'abs'; params: Array<{ name: string; type: LfType }>; body: Expr }
  | { tag: 'tyAbs'; params: string[]; body: Expr }
  | { tag: 'case'; scrut: Expr; alts: CaseAlt[] }
  | { tag: 'let'; bindings: Binding[]; body: Expr }
  | { tag: 'nil'; type: LfType }
  | { tag: 'cons'; type: LfType; front: Expr[]; tail: Expr }
  | { tag: 'none'; type: LfType }
  | { tag: 'some'; type: LfType; value: Expr }
  | { tag: 'toAny'; type: LfType; expr: Expr }
  | { tag: 'fromAny'; type: LfType; expr: Expr }
  | { tag: 'typeRep'; type: LfType }
  | { tag: 'toAnyException'; type: LfType; expr: Expr }
  | { tag: 'fromAnyException'; type: LfType; expr: Expr }
  | { tag: 'throw'; returnType: LfType; exceptionType: LfType; expr: Expr }
  | { tag: 'toInterface'; iface: TypeConRef; template: TypeConRef; expr: Expr }
  | { tag: 'fromInterface'; iface: TypeConRef; template: TypeConRef; expr: Expr }
  | { tag: 'unsafeFromInterface'; iface: TypeConRef; template: TypeConRef; cid: Expr; expr: Expr }
  | { tag: 'callInterface'; iface: TypeConRef; method: string; expr: Expr }
  | { tag: 'viewInterface'; iface: TypeConRef; expr: Expr }
  | { tag: 'signatoryInterface'; iface: TypeConRef; expr: Expr }
  | { tag: 'observerInterface'; iface: TypeConRef; expr: Expr }
  | { tag: 'toRequiredInterface'; required: TypeConRef; requiring: TypeConRef; expr: Expr }
  | { tag: 'fromRequiredInterface'; required: TypeConRef; requiring: TypeConRef; expr: Expr }
  | { tag: 'unsafeFromRequiredInterface'; required: TypeConRef; requiring: TypeConRef; cid: Expr; expr: Expr }
  | { tag: 'interfaceTemplateTypeRep'; iface: TypeConRef; expr: Expr }
  | { tag: 'choiceController'; template: TypeConRef; choice: string; contract: Expr; choiceArg: Expr }
  | { tag: 'choiceObserver'; template: TypeConRef; choice: string; contract: Expr; choiceArg: Expr }
  | { tag: 'update'; update: Update }
  /** `Experimental` (2.dev only): kept so that a package using it decodes; evaluating it is an unsupported-feature error. */
  | { tag: 'experimental'; name: string; type: LfType };

/** A reference to a top-level value definition. */
export interface ValueRef {
  packageId: string;
  moduleName: string;
  name: string;
}

export type CasePattern =
  | { pat: 'default' }
  | { pat: 'variant'; tycon: TypeConRef; constructor: string; binder: string }
  | { pat: 'enum'; tycon: TypeConRef; constructor: string }
  | { pat: 'unit' }
  | { pat: 'bool'; value: boolean }
  | { pat: 'nil' }
  | { pat: 'cons'; head: string; tail: string }
  | { pat: 'none' }
  | { pat: 'some'; binder: string };

export interface CaseAlt {
  pattern: CasePattern;
  body: Expr;
}

/** `Update` of daml_lf2.proto. */
export type Update =
  | { tag: 'pure'; type: LfType; expr: Expr }
  | { tag: 'block'; bindings: Binding[]; body: Expr }
  | { tag: 'create'; template: TypeConRef; expr: Expr }
  | { tag: 'createInterface'; iface: TypeConRef; expr: Expr }
  | { tag: 'exercise'; template: TypeConRef; choice: string; cid: Expr; arg: Expr }
  | { tag: 'exerciseInterface'; iface: TypeConRef; choice: string; cid: Expr; arg: Expr; guard?: Expr }
  | { tag: 'exerciseByKey'; template: TypeConRef; choice: string; key: Expr; arg: Expr }
  | { tag: 'fetch'; template: TypeConRef; cid: Expr }
  | { tag: 'fetchInterface'; iface: TypeConRef; cid: Expr }
  | { tag: 'getTime' }
  | { tag: 'ledgerTimeLt'; expr: Expr }
  | { tag: 'embedExpr'; type: LfType; expr: Expr }
  | { tag: 'tryCatch'; returnType: LfType; tryExpr: Expr; binder: string; catchExpr: Expr }
  | { tag: 'fetchByKey'; template: TypeConRef }
  | { tag: 'queryNByKey'; template: TypeConRef };

export interface SourceLocation {
  /** The module the location is in (the definition's own module when the proto leaves it out). */
  packageId: string;
  moduleName: string;
  startLine: number;
  startCol: number;
  endLine: number;
  endCol: number;
}

export interface TemplateChoice {
  name: string;
  consuming: boolean;
  /** `λ this arg. [Party]` in the surface language; in LF: an expression with `param` (the template
   * parameter) and `argBinder` free. */
  controllers: Expr;
  /** Choice observers, when declared. */
  observers?: Expr;
  /** Choice authorizers (2.dev), when declared. */
  authorizers?: Expr;
  /** The name bound to the contract id (`self`). */
  selfBinder: string;
  argBinder: { name: string; type: LfType };
  returnType: LfType;
  /** An `Update` expression with the template parameter, `selfBinder` and `argBinder` free. */
  update: Expr;
  location?: SourceLocation;
}

export interface InterfaceInstance {
  iface: TypeConRef;
  /** Method name → its implementation (an expression with the template parameter free). */
  methods: Map<string, Expr>;
  /** The view (an expression with the template parameter free). */
  view: Expr;
}

export interface TemplateKey {
  type: LfType;
  /** The key (template parameter free). */
  body: Expr;
  /** A function from the key type to `[Party]`. */
  maintainers: Expr;
}

export interface DefTemplate {
  tycon: TypeConRef;
  /** The variable bound to the contract argument in precond, signatories, observers, key and choices. */
  param: string;
  /** `Bool`, param free. */
  precond: Expr;
  /** `[Party]`, param free. */
  signatories: Expr;
  /** `[Party]`, param free. */
  observers: Expr;
  choices: Map<string, TemplateChoice>;
  key?: TemplateKey;
  /** Keyed by the interface's `pkgId:Module:Entity`. */
  implements: Map<string, InterfaceInstance>;
  location?: SourceLocation;
}

export interface InterfaceMethod {
  name: string;
  type: LfType;
}

export interface DefInterface {
  tycon: TypeConRef;
  /** The variable bound to the interface value in the choices. */
  param: string;
  methods: Map<string, InterfaceMethod>;
  choices: Map<string, TemplateChoice>;
  view: LfType;
  /** Required interfaces, `pkgId:Module:Entity`. */
  requires: string[];
  location?: SourceLocation;
}

export interface DefException {
  tycon: TypeConRef;
  /** `τ → Text`, the exception's message function. */
  message: Expr;
}

export interface DefValue {
  ref: ValueRef;
  type: LfType;
  expr: Expr;
  location?: SourceLocation;
}

export interface DefTypeSyn {
  name: string;
  params: string[];
  type: LfType;
}

export interface DamlModule {
  name: string;
  dataTypes: Map<string, DecodedDataType>;
  synonyms: Map<string, DefTypeSyn>;
  values: Map<string, DefValue>;
  templates: Map<string, DefTemplate>;
  interfaces: Map<string, DefInterface>;
  exceptions: Map<string, DefException>;
}

export interface DamlPackage {
  packageId: string;
  name: string;
  version: string;
  /** `2.1`, `2.dev`, ... */
  lfVersion: string;
  upgradedPackageId?: string;
  modules: Map<string, DamlModule>;
}

/** Every package the evaluator can reach, by package id. */
export interface PackageLookup {
  get(packageId: string): DamlPackage | undefined;
}

/** `pkgId:Module:Entity`. */
export function tyconKey(r: TypeConRef): string {
  return `${r.packageId}:${r.moduleName}:${r.entityName}`;
}
