/**
 * What `tools/list` shows of the catalog, when it is not simply every enabled tool: code mode
 * (`code_mode: on` lists only the code-mode tools and the ones named to stay listed; every other
 * tool stays callable by name and from code) and deferred-loading hints (`defer_loading:`).
 *
 * Applied where the listing is built and cached (`Catalog.listTools`), so it costs one pass per
 * catalog change, nothing per request.
 *
 * The deferred-loading hint is `_meta: { "defer_loading": true }` on the tool's listing. There
 * is no MCP standard for it (checked 2026-12): `defer_loading` is the per-tool field of
 * Anthropic's Messages API tool search (a client-side setting); modelcontextprotocol/go-sdk
 * issue #762 asks for a `defer_loading` field on `Tool` (open, not adopted) and mark3labs/mcp-go
 * PR #644 added one outside `_meta`; Claude Code reads only the opposite hint,
 * `_meta["anthropic/alwaysLoad"]`. So the hint goes under `_meta` (where the spec allows
 * extra keys) with the name those all share, for a client or gateway to translate into its
 * own setting. Any other `_meta` a tool carries (mirrored upstream tools) is kept as it is.
 *
 * @module
 */
import type { Tool } from '@modelcontextprotocol/server';
import type { ToolEntry } from './types.ts';

/**
 * Code mode: `on` lists only the code-mode tools (`search_tools`, `execute_code`) and the
 * proxy's `proxy__*` tools, every other tool staying callable by name and from code; `both`
 * lists everything; `off` (default) loads no code mode.
 */
export const CODE_MODES = ['off', 'on', 'both'] as const;
export type CodeMode = (typeof CODE_MODES)[number];

/** The plugin that offers code mode's tools (`search_tools`, `execute_code`). */
export const CODE_MODE_PLUGIN = 'code_mode';

/** The `_meta` key of the deferred-loading hint (see the module comment for why this one). */
export const DEFER_LOADING_META_KEY = 'defer_loading';

/** Decides one tool's listing: its definition (maybe with hints), or undefined to leave it out. */
export type ToolListing = (entry: ToolEntry) => Tool | undefined;

export interface ToolListingOptions {
  /** `on`: list only code mode's tools (and `listedInCodeMode`); `both`, `off`: list all. */
  codeMode?: CodeMode;
  /** Plugins whose tools stay listed with `codeMode: 'on'` besides code mode's (`proxy`). */
  listedInCodeMode?: readonly string[];
  /**
   * Which tools carry the deferred-loading hint: plugin names, tool names, `plugin.tool`, or
   * globs (`*`, `?`) matched against the tool name and against `plugin.tool` (`everything.*`).
   */
  deferLoading?: readonly string[];
}

/** The listing for these options, or undefined when it would list every tool unchanged. */
export function toolListing(options: ToolListingOptions): ToolListing | undefined {
  const hideOthers = options.codeMode === 'on';
  const listed = new Set([CODE_MODE_PLUGIN, ...(options.listedInCodeMode ?? [])]);
  const deferred = deferLoadingMatcher(options.deferLoading ?? []);
  if (!hideOthers && deferred === undefined) return undefined;
  return (entry) => {
    if (hideOthers && !listed.has(entry.plugin)) return undefined;
    if (deferred === undefined || !deferred(entry.plugin, entry.name)) return entry.definition;
    return {
      ...entry.definition,
      _meta: { ...entry.definition._meta, [DEFER_LOADING_META_KEY]: true },
    };
  };
}

/** Whether a tool matches one of the patterns; undefined for no patterns. */
export function deferLoadingMatcher(
  patterns: readonly string[],
): ((plugin: string, tool: string) => boolean) | undefined {
  if (patterns.length === 0) return undefined;
  const names = new Set(patterns.filter((p) => !/[*?]/.test(p)));
  const globs = patterns.filter((p) => /[*?]/.test(p)).map(globToRegExp);
  return (plugin, tool) =>
    names.has(plugin) ||
    names.has(tool) ||
    names.has(`${plugin}.${tool}`) ||
    globs.some((glob) => glob.test(tool) || glob.test(`${plugin}.${tool}`));
}

/** `*` any run of characters, `?` one; everything else literal. */
export function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`);
}
