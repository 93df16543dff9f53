/**
 * The framework pieces mcp-proxy needs that `@mcpbox/framework` does not export (yet).
 *
 * Everything else is imported from the package entry. These few are reached by relative path,
 * in this one file, until the framework's `src/index.ts` lists them (requested from its owners):
 * `interpolateTree` (per-plugin config files), `importPluginSource` (fresh imports of `path:`
 * plugins on reload).
 *
 * @module
 */

export type { ToolCall, ToolCallInterceptor } from '../../../framework/src/catalog/toolCalls.ts';
export { interpolateTree } from '../../../framework/src/config/interpolate.ts';
export { importPluginSource } from '../../../framework/src/plugins/load.ts';
export {
  createServer,
  type McpboxServer,
  type ServerOptions,
} from '../../../framework/src/server.ts';
export { JsonlToolLogger } from '../../../framework/src/toollog/index.ts';
