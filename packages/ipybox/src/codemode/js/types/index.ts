/**
 * Typed tool APIs for code mode's JavaScript/TypeScript runtime: the declarations of the
 * caller's tools, TypeScript transpiled for the isolate, and an optional type check.
 *
 * @module
 */
export {
  type BridgedToolResult,
  bridgedResult,
  toolCallPath,
  toolDeclarations,
  toolSignature,
  type UnstructuredToolResult,
} from './declarations.ts';
export { type Position, type TranspileResult, transpile } from './transpile.ts';
export { type Diagnostic, typeCheck } from './typeCheck.ts';
