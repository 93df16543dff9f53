/**
 * The framework pieces mcp-proxy needs that `@mcpbox/framework` does not export (yet).
 *
 * Everything else is imported from the package entry. These are reached by relative path, in
 * this one file, until the framework's `src/index.ts` lists them (requested from its owners):
 * `interpolateTree` (per-plugin config files) and `importPluginSource` (fresh imports of
 * `path:` plugins on reload).
 *
 * @module
 */
export { interpolateTree } from '../../../framework/src/config/interpolate.ts';
export { importPluginSource } from '../../../framework/src/plugins/load.ts';
