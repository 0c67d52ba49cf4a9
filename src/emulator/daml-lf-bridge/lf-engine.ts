/**
 * The emulator's Daml-LF engine: the LF 2 package decoder (../decode.ts) and the evaluator
 * (../evaluator.ts) with the builtin functions.
 */
import { decodeDamlPackage } from '../daml-lf/decode/index.js';
import { Evaluator } from '../daml-lf/evaluator.js';
import { builtinFunction } from '../daml-lf/builtins/index.js';
import type { DamlEngineParts } from './daml-runtime.js';

export const LF_ENGINE: DamlEngineParts = {
  // Packages are decoded when first used; value bodies within them when first run (most of a
  // package's code never runs for a given model), so a big DAR costs little until it is used.
  decode: (packageId, payload) => decodeDamlPackage(packageId, payload, { lazy: true }),
  createEngine: (packages) =>
    new Evaluator(packages, {
      builtins: (name) => builtinFunction(name),
    }),
};
