/**
 * How the `proxy__*` tools answer: plain results, `Error:` results, and the texts of a plugin
 * operation (which plugin, which tools) with the hint that tools loaded after start-up are
 * reached through `proxy__run`. Texts follow the Python proxy.
 *
 * @module
 */
import type { LoadResult } from '@mcpbox/framework';
import type { CallToolResult } from '@modelcontextprotocol/server';

export const text = (value: string): CallToolResult => ({
  content: [{ type: 'text', text: value }],
});

export const error = (value: string): CallToolResult => ({
  content: [{ type: 'text', text: `Error: ${value}` }],
  isError: true,
});

export const names = (list: readonly string[]) => (list.length > 0 ? list.join(', ') : '(none)');

/** `Loaded 'echo': echo, echo_upper`, plus resources/prompts when the plugin has any. */
export function describeOperation(verb: string, result: LoadResult, removed = false): string {
  const lines = [`${verb} '${result.plugin}': ${removed ? 'removed ' : ''}${names(result.tools)}`];
  if (result.resources.length > 0) lines.push(`Resources: ${result.resources.join(', ')}`);
  if (result.prompts.length > 0) lines.push(`Prompts: ${result.prompts.join(', ')}`);
  return lines.join('\n');
}

/** For tools a client has to reach through `proxy__run`: how to call them. */
export function dispatchHint(tools: readonly string[]): string {
  if (tools.length === 0) return '';
  return (
    "\n\nThese tools are dynamically loaded. Call them via proxy__run(tool='<name>', " +
    `arguments={...}). Example: proxy__run(tool='${tools[0]}')`
  );
}
