/**
 * What `search_tools` searches: the catalog's tools code may call AND the tools of the servers
 * registered with `register_mcp_server`, in one index — the framework's `ToolSearchIndex` (its
 * BM25+, stemming and synonyms) — so both kinds are ranked together, not one list after the
 * other. The catalog's own index knows only the catalog, so this one reads a small `Catalog` of
 * its own holding both, rebuilt when the layout or the registered tools change.
 *
 * A registered server's tools (the schemas its `mcptools.<name>` was generated from) are listed
 * over a one-off connection once per registration (its params), then kept. One that cannot be
 * listed is left out of the results and logged; the search goes on without it.
 *
 * @module
 */
import {
  Catalog,
  errorMessage,
  type Logger,
  type ToolEntry,
  ToolSearchIndex,
  type UpstreamParams,
} from '@mcpbox/framework';
import type { Tool } from '@modelcontextprotocol/server';
import { renderPackage } from '../mcptools/renderPackage.ts';
import type { CatalogLayout, ToolLocation } from './layout.ts';

/** Listing a registered server's tools gives up after this long (a server that hangs). */
const LIST_TIMEOUT_MS = 60_000;

/** The servers registered with `register_mcp_server` (ipybox's `Ipybox`). */
export interface RegisteredServers {
  readonly registrations: ReadonlyMap<string, UpstreamParams>;
  registeredServerTools(name: string): Promise<Tool[]>;
}

interface Listing {
  params: string;
  tools: Promise<Tool[] | undefined>;
}

interface Built {
  layout: CatalogLayout;
  /** The registered tool lists it was built from (identity). */
  registered: readonly (readonly Tool[])[];
  index: ToolSearchIndex;
  locations: Map<string, ToolLocation>;
  /** Tools callable from code, by plugin or registered server (for "no hits"). */
  counts: Map<string, number>;
}

export class CodeModeSearch {
  readonly #servers: () => RegisteredServers | undefined;
  readonly #logger: Logger;
  readonly #listings = new Map<string, Listing>();
  #built: Built | undefined;

  constructor(servers: () => RegisteredServers | undefined, logger: Logger) {
    this.#servers = servers;
    this.#logger = logger;
  }

  /**
   * The best `limit` tools for `query`, catalog and registered alike, each with its location;
   * with `keep`, only the tools it keeps (those the caller may reach), still `limit` of them.
   */
  async search(
    layout: CatalogLayout,
    query: string,
    limit: number,
    keep?: (location: ToolLocation) => boolean,
  ): Promise<ToolLocation[]> {
    const built = await this.#current(layout);
    const hits = built.index
      .search(query, { limit: keep ? Number.MAX_SAFE_INTEGER : limit })
      .flatMap((hit) => built.locations.get(hit.tool.name) ?? []);
    return keep ? hits.filter(keep).slice(0, limit) : hits;
  }

  /** How many tools each plugin or registered server offers to code (of those `keep` keeps). */
  async counts(
    layout: CatalogLayout,
    keep?: (location: ToolLocation) => boolean,
  ): Promise<ReadonlyMap<string, number>> {
    const built = await this.#current(layout);
    if (keep === undefined) return built.counts;
    const counts = new Map<string, number>();
    for (const location of built.locations.values()) {
      if (keep(location)) counts.set(location.plugin, (counts.get(location.plugin) ?? 0) + 1);
    }
    return counts;
  }

  async #current(layout: CatalogLayout): Promise<Built> {
    const registered = await this.#registeredTools();
    const lists = registered.map(([, tools]) => tools);
    const built = this.#built;
    if (
      built?.layout === layout &&
      built.registered.length === lists.length &&
      built.registered.every((tools, i) => tools === lists[i])
    ) {
      return built;
    }
    this.#built = build(layout, registered);
    return this.#built;
  }

  /**
   * Each registered server and its tools, listed once per params. (Its package is its own: the
   * layout leaves out a catalog plugin whose package name a registration took.)
   */
  async #registeredTools(): Promise<[string, readonly Tool[]][]> {
    const servers = this.#servers();
    if (servers === undefined) return [];
    const out: [string, readonly Tool[]][] = [];
    for (const [name, params] of servers.registrations) {
      const key = JSON.stringify(params);
      let listing = this.#listings.get(name);
      if (listing?.params !== key) {
        listing = { params: key, tools: this.#list(servers, name) };
        this.#listings.set(name, listing);
      }
      const tools = await listing.tools;
      // A failed listing is tried again at the next search.
      if (tools === undefined) this.#listings.delete(name);
      else out.push([name, tools]);
    }
    for (const name of this.#listings.keys()) {
      if (!servers.registrations.has(name)) this.#listings.delete(name);
    }
    return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  async #list(servers: RegisteredServers, name: string): Promise<Tool[] | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer in ${LIST_TIMEOUT_MS / 1000} s`)),
        LIST_TIMEOUT_MS,
      );
    });
    try {
      return await Promise.race([servers.registeredServerTools(name), timeout]);
    } catch (error) {
      this.#logger.warn(
        `code mode: search_tools leaves out registered server ${name}: listing its tools failed: ${errorMessage(error)}`,
      );
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }
}

function build(layout: CatalogLayout, registered: [string, readonly Tool[]][]): Built {
  const catalog = new Catalog();
  const locations = new Map<string, ToolLocation>();
  const counts = new Map<string, number>();
  const add = (plugin: string, entries: { key: string; location: ToolLocation }[]) => {
    catalog.addBatch({
      tools: entries.map(({ key, location }) => searchEntry(key, plugin, location.tool)),
      resources: [],
      templates: [],
      prompts: [],
    });
    for (const { key, location } of entries) locations.set(key, location);
    counts.set(plugin, entries.length);
  };
  for (const pkg of layout.packages.values()) {
    add(
      pkg.plugin,
      pkg.tools.flatMap((tool) => {
        const location = layout.locate(tool.name);
        return location ? [{ key: tool.name, location }] : [];
      }),
    );
  }
  for (const [server, tools] of registered) {
    const rendered = renderPackage(server, tools);
    add(
      server,
      rendered.tools.map((generated, i) => ({
        // Its own name unless a catalog tool has it already (the index's keys are unique).
        key: locations.has(generated.name) ? `${server}.${generated.name}` : generated.name,
        location: {
          plugin: server,
          package: rendered.package,
          module: generated.module,
          tool: tools[i] as Tool,
          importLine: `from mcptools.${rendered.package} import ${generated.module}`,
        },
      })),
    );
  }
  return {
    layout,
    registered: registered.map(([, tools]) => tools),
    index: new ToolSearchIndex(catalog),
    locations,
    counts,
  };
}

/** An entry only the index reads (name, owner, definition): never called. */
function searchEntry(key: string, plugin: string, tool: Tool): ToolEntry {
  return {
    name: key,
    plugin,
    definition: { ...tool, name: key },
    input: undefined,
    output: undefined,
    handler: () => {
      throw new Error('a search entry is not callable');
    },
    enabled: true,
  };
}
