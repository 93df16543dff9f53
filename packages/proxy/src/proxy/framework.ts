/**
 * The framework pieces mcp-proxy's plugin-config loading uses: `interpolateTree`, for `${VAR}`
 * in per-plugin config files — from `@mcpbox/framework`'s public entry, never from its src.
 *
 * @module
 */
export { interpolateTree } from '@mcpbox/framework';
