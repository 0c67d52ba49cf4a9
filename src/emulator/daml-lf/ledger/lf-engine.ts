/**
 * The emulator's Daml-LF engine: the LF 2 package decoder (../decode.ts) and the evaluator
 * (../evaluator.ts) with the builtin functions.
 */
import { decodeDamlPackage } from '../decode.js';
import { Evaluator } from '../evaluator.js';
import { builtinFunction } from '../builtins/index.js';
import type { DamlEngineParts } from './daml-runtime.js';

export const LF_ENGINE: DamlEngineParts = {
  decode: decodeDamlPackage,
  createEngine: (packages) =>
    new Evaluator(packages, {
      builtins: (name) => builtinFunction(name),
    }),
};
