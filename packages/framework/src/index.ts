/**
 * @mcpbox/framework — build MCP servers from plugins.
 *
 * Any export added here becomes public API: named exports only, no `export *`.
 */
export {};
