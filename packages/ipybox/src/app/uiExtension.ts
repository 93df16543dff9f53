/**
 * Whether a request's client renders MCP Apps (the `io.modelcontextprotocol/ui` extension): a
 * 2026-07-28 client declares it in each request's capabilities, a 2025 client at `initialize`;
 * the framework's `ctx.clientCapabilities` gives whichever applies.
 *
 * @module
 */
import type { ToolContext } from '@mcpbox/framework';
import { EXTENSION_ID, getUiCapability } from '@modelcontextprotocol/ext-apps/server';

export { EXTENSION_ID as UI_EXTENSION };

/** The `ui://` resource that shows a cell's rich outputs. */
export const VIEWER_URI = 'ui://ipybox/viewer';

/** The app-only tool the viewer pages DataFrames with. */
export const FRAME_PAGE_TOOL = 'view_frame_page';

/** True when the client that sent this request declared the MCP Apps extension. */
export function rendersApps(ctx: Pick<ToolContext, 'clientCapabilities'>): boolean {
  return getUiCapability(ctx.clientCapabilities) !== undefined;
}
