/**
 * `CatalogView`: what a plugin sees of the whole catalog (`server.catalog` in `register()`) —
 * every tool with its owner, one ranked search, calls as a given caller through the normal path,
 * and change events. Code mode (ipybox's `search_tools`/`execute_code`) is built on it; the
 * catalog implements it (`catalog/catalogView.ts`).
 *
 * API stability: the shape below is what code mode codes against; change it only in backward
 * compatible ways and note each change here.
 *
 * @module
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import type { StoredResult } from '../results/store.ts';
import type { ToolContext } from './tool.ts';

/** One tool of the catalog and the plugin (or mirrored server) that owns it. */
export interface CatalogToolInfo {
  plugin: string;
  /** The tool as `tools/list` would show it without any listing filter. */
  tool: Tool;
}

/** A search hit: higher `score` is more relevant. */
export interface CatalogSearchHit extends CatalogToolInfo {
  score: number;
}

/** How a call reached the tool, recorded in the tool-call log (`via`). */
export type CallVia = 'code';

export interface CatalogView {
  /**
   * Every enabled tool of the catalog with its owning plugin, a fresh snapshot each call. With
   * `caller` (a handler's context), only the tools that caller may reach: its view and the
   * policy decide, as they decide its `tools/list` (added with views and policy; without
   * `caller` the answer is unchanged).
   */
  tools(options?: { caller?: ToolContext }): CatalogToolInfo[];
  /**
   * Ranked search (BM25+) over names, titles, descriptions and parameter names and
   * descriptions; best first; [] for no hits. `plugins` restricts to those owners; `limit`
   * defaults to 10; `caller` keeps only the tools that caller may reach (as `tools`).
   */
  search(
    query: string,
    options?: { limit?: number; plugins?: readonly string[]; caller?: ToolContext },
  ): CatalogSearchHit[];
  /**
   * Calls `name` as the caller of `ctx` through the normal path (argument validation and every
   * interceptor: pre-call validator, TOTP gate with the caller's own unlocks, tool-call log,
   * metrics, OAuth scopes); `via: 'code'` is recorded in the tool-call log entry.
   *
   * Failures: an unknown or disabled tool (never loaded, unloaded meanwhile) REJECTS with the
   * SDK's `ProtocolError` (code `InvalidParams`, -32602, message `Tool <name> not found` or
   * `Tool <name> disabled`) — the same JSON-RPC error a client's `tools/call` gets. Bad
   * arguments, a throwing handler, a rejection by the validator or the gate RESOLVE with an
   * `isError` result whose text says why.
   */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    ctx: ToolContext,
    options?: { via?: CallVia },
  ): Promise<CallToolResult>;
  /**
   * The whole of a result the caller of `ctx` saw as a preview (`result_preview`): `handle` is
   * its id (`_meta['io.mcpbox/result'].handle`) or its `results://<id>` link. The store decides
   * whose it is, as it does for the `results://` resource: code reading a result (ipybox's
   * `mcptools.results.load`, code mode's `results.load`) reads it as the caller of the cell.
   * Added with `mcptools.results`.
   *
   * Failures REJECT with `ResultUnavailableError` (`code: 'RESULT_UNAVAILABLE'`), whose message
   * says why: unknown or another caller's handle (the same words for both), expired (and when),
   * dropped to keep within the budget, or no store on this server (`result_preview` not set).
   */
  openResult(handle: string, ctx: ToolContext): Promise<{ meta: StoredResult; text: string }>;
  /**
   * Hears every change of the catalog's tools (a plugin loaded, unloaded, reloaded; a tool
   * added, removed, enabled, disabled or updated), after it is applied. Returns the
   * unsubscribe function. A listener that throws does not disturb the others.
   */
  onChange(listener: () => void): () => void;
}
