/**
 * Full Daml-LF 2 package decoding into the syntax tree of `ast.ts`: every module's values,
 * templates, interfaces, exceptions, synonyms and data types, expressions and updates included.
 * Field numbers follow `daml_lf2.proto` (digital-asset/daml,
 * `sdk/daml-lf/archive/src/main/protobuf/com/digitalasset/daml/lf/archive/daml_lf2.proto`), and
 * the modules here its messages: `Package` and its interned tables (this file, interned-exprs.ts;
 * strings, dotted names and types in the type-level decoder's `Lf2Context`), `Module` and its
 * definitions (definitions.ts), `Type` references (types.ts), `Expr` (expressions.ts), with
 * `Update` (updates.ts), the interface expressions (interface-exprs.ts) and the builtins
 * (builtins.ts) apart. The meaning of each construct is the one `daml-lf-2.rst` gives it.
 *
 * Interned strings, dotted names, types and package imports are resolved through the type-level
 * decoder's `Lf2Context` (shared, so each interned type is decoded once); interned expressions
 * (`Package.interned_exprs`, 2.dev) are decoded once each and shared too.
 *
 * Known limits:
 *  - Constructs this decoder does not know (a `BuiltinFunction` number outside the enum, an `Expr`
 *    or `Update` case added after this was written) do not fail decoding: they become an
 *    `{ tag: 'experimental' }` expression naming what was found, so that only evaluating it fails.
 *    Malformed input (a missing required field, an unset `CaseAlt` pattern, a bad numeric literal,
 *    a dangling interned index) is an `LfDecodeError`.
 *  - Expression locations (`Expr.location`) are dropped; definition locations are kept.
 *  - Kinds are dropped: type abstractions keep their variable names only. Module feature flags
 *    are not read (LF 2 fixes them).
 *  - Nesting deeper than `MAX_EXPR_DEPTH` (expressions.ts) is refused (an `LfDecodeError`, never a stack overflow).
 *  - Interned expressions may refer to any other entry, not only earlier ones as the reference
 *    decoder demands; a cycle is an `LfDecodeError`.
 *  - With `{ lazy: true }` value bodies are decoded when first read (see `DecodeOptions`).
 */
import { Lf2Context, LfDecodeError, readArchivePayload } from '../../dar/lf2.js';
import type { DamlPackage } from '../ast.js';
import { DefinitionDecoder } from './definitions.js';
import { ExprDecoder } from './expressions.js';
import { InternedExprTable } from './interned-exprs.js';
import { TypeReader } from './types.js';

export interface DecodeStats {
  /** The deepest nesting of `Expr` messages met (interned expressions counted where used). */
  maxExprDepth: number;
  /** How many `Expr` messages were decoded. */
  exprCount: number;
}

export interface DecodeOptions {
  /**
   * Decode the bodies of value definitions (`DefValue.expr`, where nearly all of a package's code
   * is: templates and choices call into them), and their types (`DefValue.type`, which running
   * code never reads: the evaluator trusts LF's type checking), on first access instead of up front. Uploading a
   * DAR then costs little more than its type-level decode, and only the code that runs is ever
   * decoded; the price is that a malformed body is reported when first used, not at upload.
   * Default false: everything is decoded, and checked, at once.
   */
  lazy?: boolean;
}

/** Decodes an ArchivePayload (as `lf2.ts`'s `decodePackage` takes it) with every expression. */
export function decodeDamlPackage(packageId: string, payload: Buffer, opts: DecodeOptions = {}): DamlPackage {
  return decodeDamlPackageWithStats(packageId, payload, opts).pkg;
}

/** `decodeDamlPackage`, also reporting the expression depth and count (for tests and benchmarks). */
export function decodeDamlPackageWithStats(
  packageId: string,
  payload: Buffer,
  opts: DecodeOptions = {},
): { pkg: DamlPackage; stats: DecodeStats } {
  const info = readArchivePayload(payload);
  const ctx = new Lf2Context(packageId, info.packageBytes);
  const types = new TypeReader(ctx);
  // Package { ..., interned_exprs 7 }
  const exprs = new ExprDecoder(ctx, types, new InternedExprTable(ctx.repeatedBytes(7)));
  const definitions = new DefinitionDecoder(ctx, types, exprs, opts.lazy ?? false);
  const pkg: DamlPackage = {
    packageId,
    ...ctx.metadata(),
    lfVersion: `2.${info.minor}`,
    modules: new Map(),
  };
  try {
    for (const m of ctx.moduleMsgs()) {
      const mod = definitions.module(m);
      pkg.modules.set(mod.name, mod);
    }
  } catch (e) {
    // The depth limit keeps real packages (nesting below 50 in the Splice DARs) far from the
    // stack's end; a caller already deep in its own stack may still hit it first.
    if (e instanceof RangeError) throw new LfDecodeError(`expression nested too deeply to decode (${e.message})`);
    throw e;
  }
  return { pkg, stats: { maxExprDepth: exprs.maxDepth, exprCount: exprs.exprCount } };
}
