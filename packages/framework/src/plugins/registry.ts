/**
 * The plugin registry: loads plugins into the shared catalog and unloads them again.
 *
 * A load runs the plugin's `register()` against a staging server that only records, checks the
 * recorded tools, resources, resource templates and prompts against the catalog, and then commits
 * them in one step (one `list_changed` per kind). A plugin that is missing, has no `register()`,
 * throws in it, or collides with another plugin leaves the catalog exactly as it was.
 *
 * Loads and unloads run one at a time, in call order.
 *
 * @module
 */
import type { Catalog } from '../catalog/catalog.ts';
import { createCatalogView } from '../catalog/catalogView.ts';
import { ToolCallDispatcher } from '../catalog/toolCalls.ts';
import type { Collision } from '../catalog/types.ts';
import type { ClusterLink } from '../cluster/link.ts';
import type { AdminSurface, PublishedAdmin } from '../contract/admin.ts';
import type { CatalogView } from '../contract/catalogView.ts';
import type { Logger } from '../contract/logger.ts';
import type { PluginConfig, PluginModule, ProxyCommands } from '../contract/plugin.ts';
import { errorMessage, McpboxError } from '../errors.ts';
import { createLogger } from '../logging/index.ts';
import { importPluginSource, type PluginSource, pluginModuleOf, resolvePlugin } from './load.ts';
import { type SessionClosedSource, StagingServer } from './staging.ts';

export interface LoadOptions {
  /** An already-imported module (or any object with `register`); skips resolution. */
  module?: unknown;
  /** The plugin's settings, handed to `register(server, config)`. */
  config?: PluginConfig;
  /** Built in (e.g. management tools): listed apart, never unloaded by "unload all". */
  internal?: boolean;
  /** Tool and prompt names get `${prefix}_` unless they already have it; `false`/`''` for none. */
  prefix?: string | false;
  /** Bypass the module cache (for reloads): re-read the plugin's files. */
  fresh?: boolean;
  /** Where the module came from, when `module` is given and the caller knows. */
  source?: PluginSource;
}

/** A plugin in the registry. Its tools, resources and prompts are read live from the catalog. */
export interface LoadedPlugin {
  readonly name: string;
  readonly module: PluginModule;
  readonly config: PluginConfig;
  readonly internal: boolean;
  readonly prefix: string | undefined;
  readonly loadedAt: Date;
  readonly source: PluginSource;
  readonly description: string | undefined;
  readonly tools: string[];
  /** Resource URIs and resource-template URI templates. */
  readonly resources: string[];
  readonly prompts: string[];
}

/** The outcome of a load: on failure `error` says why and the lists are empty. */
export interface LoadResult {
  ok: boolean;
  plugin: string;
  error?: string;
  tools: string[];
  resources: string[];
  prompts: string[];
}

/** The outcome of an unload; `removed` repeats `tools`, the anchor's name for them. */
export interface UnloadResult extends LoadResult {
  removed: string[];
}

export interface PluginSummary {
  name: string;
  description: string | undefined;
  internal: boolean;
  loaded_at: string;
  tools: string[];
  resources: string[];
  prompts: string[];
}

export interface RegistrySummary {
  plugins: PluginSummary[];
  totals: { plugins: number; tools: number; resources: number; prompts: number };
}

export interface PluginRegistryOptions {
  catalog: Catalog;
  /**
   * Plugins' `server.catalog`: the server passes its own (calls through its interceptors); a
   * registry on its own gets a view whose calls run without interceptors.
   */
  view?: CatalogView;
  /** Directories searched, in order, for `name.ts`, `name.js`, `name/index.ts`, `name/index.js`. */
  pluginDirs?: string[];
  logger?: Logger;
  /** Handed to plugins as `server.proxy`; only `mcp-proxy` sets it. */
  proxy?: ProxyCommands;
  /** Handed to plugins as `server.cluster` in cluster mode. */
  cluster?: ClusterLink;
  /** What plugins' `server.onSessionClosed` subscribes to (the server's session hub). */
  onSessionClosed?: SessionClosedSource;
}

const COLLISION_LABEL: Record<Collision['kind'], string> = {
  tool: 'Tool',
  resource: 'Resource',
  'resource template': 'Resource template',
  prompt: 'Prompt',
};

function collisionMessage(plugin: string, c: Collision): string {
  const key = c.kind === 'tool' ? `'${c.key}'` : c.key;
  return `${COLLISION_LABEL[c.kind]} collision loading '${plugin}': ${key} (in '${c.owner}')`;
}

function failed(plugin: string, error: string): LoadResult {
  return { ok: false, plugin, error, tools: [], resources: [], prompts: [] };
}

function succeeded(plugin: LoadedPlugin): LoadResult {
  const { name, tools, resources, prompts } = plugin;
  return { ok: true, plugin: name, tools, resources, prompts };
}

export class PluginRegistry {
  readonly catalog: Catalog;
  /** What plugins see as `server.catalog`. */
  readonly view: CatalogView;
  /** Searched in order; callers may push more directories. */
  readonly pluginDirs: string[];
  readonly #plugins = new Map<string, LoadedPlugin>();
  readonly #logger: Logger;
  readonly #proxy: ProxyCommands | undefined;
  readonly #cluster: ClusterLink | undefined;
  readonly #onSessionClosed: SessionClosedSource | undefined;
  /** Each loaded plugin's `server.onUnload` cleanups, run when that registration ends. */
  readonly #cleanups = new Map<string, Array<() => unknown>>();
  /** Each loaded plugin's `server.publishAdmin` surfaces, replaced with its registration. */
  readonly #admin = new Map<string, PublishedAdmin[]>();
  readonly #adminListeners = new Set<() => void>();
  // Serialises loads and unloads so two of them never interleave their check-then-commit.
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: PluginRegistryOptions) {
    this.catalog = options.catalog;
    this.view =
      options.view ?? createCatalogView(options.catalog, new ToolCallDispatcher(options.catalog));
    this.pluginDirs = options.pluginDirs ?? [];
    this.#logger = options.logger ?? createLogger('plugins');
    this.#proxy = options.proxy;
    this.#cluster = options.cluster;
    this.#onSessionClosed = options.onSessionClosed;
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Loads a plugin by name (or from a given module). Never throws: failures are in the result. */
  loadPlugin(name: string, options: LoadOptions = {}): Promise<LoadResult> {
    return this.#serial(() => this.#load(name, options));
  }

  async #load(name: string, options: LoadOptions): Promise<LoadResult> {
    if (this.#plugins.has(name)) return failed(name, `Plugin '${name}' already loaded`);
    const found = await this.#import(name, options);
    if ('error' in found) return failed(name, found.error);
    const prefix = options.prefix || undefined;
    const config = options.config ?? {};
    const staged = await this.#stage(name, found.module, config, prefix, undefined);
    if ('error' in staged) return failed(name, staged.error);
    this.#cleanups.set(name, staged.cleanups);
    this.#setAdmin(name, staged.admin);

    const plugin = this.#record(
      name,
      found.module,
      config,
      options.internal ?? false,
      prefix,
      found.source,
    );
    this.#plugins.set(name, plugin);
    this.#logger.info(`loaded plugin ${name}`, {
      tools: plugin.tools.length,
      resources: plugin.resources.length,
      prompts: plugin.prompts.length,
    });
    return succeeded(plugin);
  }

  /**
   * Reloads a plugin in one step: re-imports its files (fresh), runs `register()` again and swaps
   * the old entries for the new ones atomically. If anything fails — import, `register()`, a
   * collision with another plugin — the old version stays loaded and serving.
   * Options default to the ones the plugin was loaded with; `module` replaces the code outright.
   */
  reloadPlugin(
    name: string,
    options: Pick<LoadOptions, 'module' | 'config' | 'prefix'> = {},
  ): Promise<LoadResult> {
    return this.#serial(async () => {
      const old = this.#plugins.get(name);
      if (!old) return failed(name, `Plugin '${name}' not loaded, use load()`);
      let module = old.module;
      let source = old.source;
      if (options.module !== undefined || old.source.kind !== 'module') {
        const found = await this.#import(name, {
          module: options.module,
          source: old.source,
          fresh: true,
          reuseSource: options.module === undefined,
        });
        if ('error' in found) return failed(name, found.error);
        module = found.module;
        source = found.source;
      }
      const config = options.config ?? old.config;
      const prefix = options.prefix === undefined ? old.prefix : options.prefix || undefined;
      const staged = await this.#stage(name, module, config, prefix, name);
      if ('error' in staged) return failed(name, staged.error);
      // The new registration serves now; what the old one holds (processes, connections) goes.
      await this.#runCleanups(name, this.#cleanups.get(name));
      this.#cleanups.set(name, staged.cleanups);
      this.#setAdmin(name, staged.admin);
      const plugin = this.#record(name, module, config, old.internal, prefix, source);
      this.#plugins.set(name, plugin);
      this.#logger.info(`reloaded plugin ${name}`, { tools: plugin.tools.length });
      return succeeded(plugin);
    });
  }

  /** The plugin's module: given, or resolved in the plugin directories and imported. */
  async #import(
    name: string,
    options: LoadOptions & { reuseSource?: boolean },
  ): Promise<{ module: PluginModule; source: PluginSource } | { error: string }> {
    let source: PluginSource = options.source ?? { kind: 'module' };
    let imported: unknown = options.module;
    if (imported === undefined) {
      try {
        if (!options.reuseSource || source.kind === 'module') {
          source = resolvePlugin(name, this.pluginDirs);
        }
        imported = await importPluginSource(source, { fresh: options.fresh });
      } catch (error) {
        if (error instanceof McpboxError) return { error: error.message };
        return { error: `Plugin '${name}' failed to import: ${errorMessage(error)}` };
      }
    }
    const module = pluginModuleOf(imported);
    if (!module) return { error: `Plugin '${name}' has no register() function` };
    return { module, source };
  }

  /**
   * Runs `register()` against a staging server, checks the batch, and commits it — replacing
   * the entries of `replacing` when reloading. Returns the error message, or the new
   * registration's cleanups; a registration that fails has its cleanups run here.
   */
  async #stage(
    name: string,
    module: PluginModule,
    config: PluginConfig,
    prefix: string | undefined,
    replacing: string | undefined,
  ): Promise<
    { error: string } | { cleanups: Array<() => unknown>; admin: Map<string, AdminSurface> }
  > {
    const staging = new StagingServer({
      plugin: name,
      catalog: this.catalog,
      view: this.view,
      config,
      logger: createLogger(`plugin.${name}`),
      prefix,
      proxy: this.#proxy,
      cluster: this.#cluster,
      onSessionClosed: this.#onSessionClosed,
    });
    let error: string | undefined;
    try {
      await module.register(staging, config);
      const collisions = this.catalog.collisions(staging.batch, replacing);
      if (collisions.length > 0) error = collisionMessage(name, collisions[0]);
    } catch (thrown) {
      error = `Plugin '${name}' register() failed: ${errorMessage(thrown)}`;
    }
    if (error !== undefined) {
      await this.#runCleanups(name, staging.cleanups);
      return { error };
    }
    staging.commit(replacing);
    return { cleanups: staging.cleanups, admin: staging.admin };
  }

  /** Runs cleanups one after another, latest first; failures are logged, never thrown. */
  async #runCleanups(name: string, cleanups: Array<() => unknown> | undefined): Promise<void> {
    for (const cleanup of [...(cleanups ?? [])].reverse()) {
      try {
        await cleanup();
      } catch (error) {
        this.#logger.warn(`plugin ${name}: an unload cleanup failed: ${errorMessage(error)}`);
      }
    }
  }

  #record(
    name: string,
    module: PluginModule,
    config: PluginConfig,
    internal: boolean,
    prefix: string | undefined,
    source: PluginSource,
  ): LoadedPlugin {
    const catalog = this.catalog;
    return {
      name,
      module,
      config,
      internal,
      prefix,
      loadedAt: new Date(),
      source,
      description: typeof module.description === 'string' ? module.description : undefined,
      get tools() {
        return catalog.ownedBy(name).tools;
      },
      get resources() {
        const owned = catalog.ownedBy(name);
        return [...owned.resources, ...owned.templates];
      },
      get prompts() {
        return catalog.ownedBy(name).prompts;
      },
    };
  }

  /** Unloads a plugin: its tools, resources, templates and prompts leave the catalog. */
  unloadPlugin(name: string): Promise<UnloadResult> {
    return this.#serial(async () => {
      if (!this.#plugins.has(name)) {
        return { ...failed(name, `Plugin '${name}' not loaded`), removed: [] };
      }
      this.#plugins.delete(name);
      this.#setAdmin(name, new Map());
      const owned = this.catalog.removePlugin(name);
      const cleanups = this.#cleanups.get(name);
      this.#cleanups.delete(name);
      await this.#runCleanups(name, cleanups);
      this.#logger.info(`unloaded plugin ${name}`, { tools: owned.tools.length });
      return {
        ok: true,
        plugin: name,
        tools: owned.tools,
        removed: owned.tools,
        resources: [...owned.resources, ...owned.templates],
        prompts: owned.prompts,
      };
    });
  }

  /**
   * Runs every loaded plugin's `onUnload` cleanups, for a server shutting down: processes and
   * connections end, the catalog is left as it is. Each cleanup runs once, however often this is
   * called.
   */
  closeAll(): Promise<void> {
    return this.#serial(async () => {
      const all = [...this.#cleanups];
      this.#cleanups.clear();
      await Promise.all(all.map(([name, cleanups]) => this.#runCleanups(name, cleanups)));
    });
  }

  /** The admin surfaces loaded plugins published (`server.publishAdmin`), in load order. */
  adminSurfaces(): PublishedAdmin[] {
    return [...this.#admin.values()].flat();
  }

  /** Hears every change of {@link adminSurfaces} (a load, reload or unload). Returns a remover. */
  onAdminChange(listener: () => void): () => void {
    this.#adminListeners.add(listener);
    return () => this.#adminListeners.delete(listener);
  }

  #setAdmin(plugin: string, surfaces: Map<string, AdminSurface>): void {
    const had = this.#admin.has(plugin);
    if (surfaces.size === 0) this.#admin.delete(plugin);
    else {
      const published = [...surfaces].map(([name, surface]) => ({ plugin, name, surface }));
      this.#admin.set(plugin, published);
    }
    if (!had && surfaces.size === 0) return;
    for (const listener of this.#adminListeners) {
      try {
        listener();
      } catch (error) {
        this.#logger.warn(`admin surface listener failed: ${errorMessage(error)}`);
      }
    }
  }

  getPlugin(name: string): LoadedPlugin | undefined {
    return this.#plugins.get(name);
  }

  isLoaded(name: string): boolean {
    return this.#plugins.has(name);
  }

  /** Loaded plugins, in load order. */
  plugins(): LoadedPlugin[] {
    return [...this.#plugins.values()];
  }

  /** Every tool name in the catalog (plugin tools and anything else registered there). */
  allTools(): string[] {
    return [...this.catalog.tools()].map((t) => t.name);
  }

  /** The plugin that owns a tool, or undefined. */
  findToolOwner(tool: string): string | undefined {
    return this.catalog.getTool(tool)?.plugin;
  }

  getSummary(): RegistrySummary {
    const plugins = this.plugins().map((p) => ({
      name: p.name,
      description: p.description,
      internal: p.internal,
      loaded_at: p.loadedAt.toISOString(),
      tools: p.tools,
      resources: p.resources,
      prompts: p.prompts,
    }));
    const size = this.catalog.size;
    return {
      plugins,
      totals: {
        plugins: plugins.length,
        tools: size.tools,
        resources: size.resources + size.templates,
        prompts: size.prompts,
      },
    };
  }
}
