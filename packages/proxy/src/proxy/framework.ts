/**
 * The framework piece mcp-proxy needs that `@mcpbox/framework` does not export (yet):
 * `interpolateTree`, for `${VAR}` in per-plugin config files. Reached by relative path, in this
 * one file, until the framework's `src/index.ts` lists it (requested from its owners).
 *
 * @module
 */
export { interpolateTree } from '../../../framework/src/config/interpolate.ts';
