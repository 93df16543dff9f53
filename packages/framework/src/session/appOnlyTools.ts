/**
 * MCP Apps (`io.modelcontextprotocol/ui`): a tool whose `_meta.ui.visibility` leaves out
 * `"model"` is called only by an app the host renders (a viewer paging its data), never by the
 * model. A client that did not declare the extension renders no app, so `tools/list` leaves
 * those tools out for it: its model never sees a tool it has no use for.
 *
 * @module
 */
import type { ClientCapabilities, Tool } from '@modelcontextprotocol/server';

export const UI_EXTENSION = 'io.modelcontextprotocol/ui';

/** True for a tool only an app may call (`visibility` without `"model"`). */
export function isAppOnly(tool: Tool): boolean {
  const visibility = (tool._meta?.ui as { visibility?: unknown } | undefined)?.visibility;
  return Array.isArray(visibility) && !visibility.includes('model');
}

export function declaresUi(capabilities: ClientCapabilities | undefined): boolean {
  const extensions = (capabilities as { extensions?: Record<string, unknown> } | undefined)
    ?.extensions;
  return extensions?.[UI_EXTENSION] !== undefined;
}

/** The listing without app-only tools, computed once per listing (the catalog caches it). */
const withoutAppOnly = new WeakMap<Tool[], Tool[]>();

/** What `tools/list` shows a client: app-only tools only if it renders apps. */
export function toolsFor(tools: Tool[], capabilities: ClientCapabilities | undefined): Tool[] {
  if (declaresUi(capabilities)) return tools;
  let listed = withoutAppOnly.get(tools);
  if (!listed) {
    listed = tools.some(isAppOnly) ? tools.filter((tool) => !isAppOnly(tool)) : tools;
    withoutAppOnly.set(tools, listed);
  }
  return listed;
}
