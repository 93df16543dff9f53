/**
 * The catalog's {@link CatalogView} (the interface is in the plugin contract,
 * `contract/catalogView.ts`): a snapshot of the enabled tools, the ranked search, calls through
 * the server's dispatcher, and tool change events.
 *
 * @module
 */
import type { CatalogToolInfo, CatalogView } from '../contract/catalogView.ts';
import type { Catalog } from './catalog.ts';
import { ToolSearchIndex } from './search.ts';
import type { ToolCallDispatcher } from './toolCalls.ts';

/** The view over one server's catalog; calls go through that server's dispatcher. */
export function createCatalogView(catalog: Catalog, dispatcher: ToolCallDispatcher): CatalogView {
  const index = new ToolSearchIndex(catalog);
  return {
    tools() {
      const out: CatalogToolInfo[] = [];
      for (const entry of catalog.tools()) {
        if (entry.enabled) out.push({ plugin: entry.plugin, tool: entry.definition });
      }
      return out.sort((a, b) =>
        a.tool.name < b.tool.name ? -1 : a.tool.name > b.tool.name ? 1 : 0,
      );
    },
    search: (query, options) => index.search(query, options),
    callTool: (name, args, ctx, options) => dispatcher.call(name, args, ctx, options),
    onChange(listener) {
      return catalog.onChange((kinds) => {
        if (kinds.has('tools')) listener();
      });
    },
  };
}
