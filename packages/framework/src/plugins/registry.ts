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
import type { PublishedAdmin } from '../contract/admin.ts';
import type { AuditRecorder } from '../contract/audit.ts';
import type { CatalogView } from '../contract/catalogView.ts';
import type { Logger } from '../contract/logger.ts';
import type { PluginConfig, PluginModule, ProxyCommands } from '../contract/plugin.ts';
import type { SessionClosedSource } from '../contract/session.ts';
import { errorMessage, McpboxError } from '../errors.ts';
import { createLogger } from '../logging/index.ts';
import { dropPluginSkills, servePluginSkills } from '../skills/pluginSkills.ts';
import type { SkillRegistry } from '../skills/registry.ts';
import { importPluginSource, type PluginSource, pluginModuleOf, resolvePlugin } from './load.ts';
import { PublishedAdminSurfaces } from './registryAdmin.ts';
import type {
  LoadedPlugin,
  LoadOptions,
  LoadResult,
  PinModes,
  PluginRegistryOptions,
  RegistrySummary,
  UnloadResult,
} from './registryTypes.ts';
import { StagingServer } from './staging.ts';

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
  readonly #audit: AuditRecorder | undefined;
  readonly #onSessionClosed: SessionClosedSource | undefined;
  readonly #pins: PinModes | undefined;
  readonly #skills: SkillRegistry | undefined;
  /** Each loaded plugin's `server.onUnload` cleanups, run when that registration ends. */
  readonly #cleanups = new Map<string, Array<() => unknown>>();
  /** Each loaded plugin's `server.publishAdmin` surfaces, replaced with its registration. */
  readonly #admin: PublishedAdminSurfaces;
  // Serialises loads and unloads so two of them never interleave their check-then-commit.
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: PluginRegistryOptions) {
    this.catalog = options.catalog;
    this.view =
      options.view ?? createCatalogView(options.catalog, new ToolCallDispatcher(options.catalog));
    this.pluginDirs = options.pluginDirs ?? [];
    this.#logger = options.logger ?? createLogger('plugins');
    this.#admin = new PublishedAdminSurfaces(this.#logger);
    this.#proxy = options.proxy;
    this.#cluster = options.cluster;
    this.#audit = options.audit;
    this.#onSessionClosed = options.onSessionClosed;
    this.#pins = options.pins;
    this.#skills = options.skills;
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
    const internal = options.internal ?? false;
    const staged = await this.#stage(name, found.module, config, prefix, undefined, internal);
    if ('error' in staged) return failed(name, staged.error);
    this.#cleanups.set(name, staged.cleanups);
    this.#admin.set(name, staged.admin);
    await servePluginSkills(this.#skills, name, found.source, staged.skills, this.#logger);

    const plugin = this.#record(name, found.module, config, internal, prefix, found.source);
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
      const staged = await this.#stage(name, module, config, prefix, name, old.internal);
      if ('error' in staged) return failed(name, staged.error);
      // The new registration serves now; what the old one holds (processes, connections) goes.
      await this.#runCleanups(name, this.#cleanups.get(name));
      this.#cleanups.set(name, staged.cleanups);
      this.#admin.set(name, staged.admin);
      await servePluginSkills(this.#skills, name, source, staged.skills, this.#logger);
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
    internal: boolean,
  ): Promise<{ error: string } | Pick<StagingServer, 'cleanups' | 'admin' | 'skills'>> {
    const staging = new StagingServer({
      plugin: name,
      catalog: this.catalog,
      view: this.view,
      config,
      logger: createLogger(`plugin.${name}`),
      prefix,
      proxy: this.#proxy,
      cluster: this.#cluster,
      audit: this.#audit,
      skillOrigins: this.#skills,
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
    error ??= await this.#pinMode(name, config, internal);
    if (error !== undefined) {
      await this.#runCleanups(name, staging.cleanups);
      return { error };
    }
    staging.commit(replacing);
    return { cleanups: staging.cleanups, admin: staging.admin, skills: staging.skills };
  }

  /**
   * Tells the pin book how the plugin's definitions are pinned, after the book is read: the
   * error when it cannot be (nothing enters the catalog unscreened), else undefined.
   */
  async #pinMode(
    name: string,
    config: PluginConfig,
    internal: boolean,
  ): Promise<string | undefined> {
    if (!this.#pins) return undefined;
    const mode = config.pin;
    if (mode !== undefined && mode !== 'strict' && mode !== 'warn' && mode !== 'off') {
      return `Plugin '${name}': pin must be strict, warn or off (got ${JSON.stringify(mode)})`;
    }
    try {
      await this.#pins.ready();
    } catch (thrown) {
      return `Plugin '${name}' not loaded: the pin book cannot be read (${errorMessage(thrown)})`;
    }
    this.#pins.setMode(name, internal ? 'off' : mode);
    return undefined;
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
      this.#admin.set(name, new Map());
      const owned = this.catalog.removePlugin(name);
      await dropPluginSkills(this.#skills, name);
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
    return this.#admin.all();
  }

  /** Hears every change of {@link adminSurfaces} (a load, reload or unload). Returns a remover. */
  onAdminChange(listener: () => void): () => void {
    return this.#admin.onChange(listener);
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
