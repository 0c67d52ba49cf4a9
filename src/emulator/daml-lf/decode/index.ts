export { decodeDamlPackage, decodeDamlPackageWithStats, parseNumericLiteral, type DecodeOptions, type DecodeStats } from './expressions.js';
