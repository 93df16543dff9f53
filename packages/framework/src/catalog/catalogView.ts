/**
 * The catalog's {@link CatalogView} (the interface is in the plugin contract,
 * `contract/catalogView.ts`): a snapshot of the enabled tools, the ranked search, calls through
 * the server's dispatcher, and tool change events.
 *
 * @module
 */
import type { AccessControl } from '../access/access.ts';
import { ANONYMOUS_PRINCIPAL } from '../auth/principal.ts';
import type { CatalogToolInfo, CatalogView } from '../contract/catalogView.ts';
import type { ToolContext } from '../contract/tool.ts';
import { resultIdOf, resultOwner } from '../results/keeper.ts';
import { ResultUnavailableError } from '../results/store.ts';
import type { Catalog } from './catalog.ts';
import { ToolSearchIndex } from './search.ts';
import type { ToolCallDispatcher } from './toolCalls.ts';

/** The view over one server's catalog; calls go through that server's dispatcher. */
export function createCatalogView(
  catalog: Catalog,
  dispatcher: ToolCallDispatcher,
  access?: AccessControl,
): CatalogView {
  const index = new ToolSearchIndex(catalog);
  /** Whether the caller of `ctx` may reach the tool (always, without a caller). */
  const reachable = (ctx: ToolContext | undefined): ((name: string) => boolean) | undefined => {
    if (ctx === undefined || !access?.decides(ctx.view)) return undefined;
    const principal = ctx.principal ?? ANONYMOUS_PRINCIPAL;
    return (name: string) => {
      const entry = catalog.getTool(name);
      return entry !== undefined && access.mayList(principal, ctx.view, entry);
    };
  };
  return {
    tools(options) {
      const mayReach = reachable(options?.caller);
      const out: CatalogToolInfo[] = [];
      for (const entry of catalog.tools()) {
        if (entry.enabled && (mayReach?.(entry.name) ?? true)) {
          out.push({ plugin: entry.plugin, tool: entry.definition });
        }
      }
      return out.sort((a, b) =>
        a.tool.name < b.tool.name ? -1 : a.tool.name > b.tool.name ? 1 : 0,
      );
    },
    search(query, options) {
      const mayReach = reachable(options?.caller);
      if (mayReach === undefined) return index.search(query, options);
      const hits = index.search(query, { ...options, limit: Number.MAX_SAFE_INTEGER });
      return hits.filter((hit) => mayReach(hit.tool.name)).slice(0, options?.limit ?? 10);
    },
    callTool: (name, args, ctx, options) => dispatcher.call(name, args, ctx, options),
    async openResult(handle, ctx) {
      const keeper = dispatcher.results;
      if (keeper === undefined) {
        throw new ResultUnavailableError(
          `No stored result "${handle}": this server keeps no results by reference (result_preview is not configured), so every tool result was passed whole.`,
        );
      }
      // The store's own owner check decides, as for the results:// resource and results_query.
      return keeper.store.open(resultOwner(ctx), resultIdOf(handle));
    },
    onChange(listener) {
      return catalog.onChange((kinds) => {
        if (kinds.has('tools')) listener();
      });
    },
  };
}
