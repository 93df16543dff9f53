/**
 * `PluginManager`: mcp-proxy's run-time plugin operations on top of the framework's
 * `PluginRegistry` — load, unload and transactional reload; per-plugin settings and prefixes;
 * other MCP servers as plugins; which plugins were there at start-up (static) and which came
 * later (dynamic, reachable through `proxy__run`); command extensions owned by plugins.
 *
 * Every change goes through the registry, whose catalog notifies every open MCP session, so REST
 * operations and management tools alike send `list_changed` to all clients. Operations run one
 * at a time, in call order.
 *
 * @module
 */
import {
  type ApprovalDesk,
  type AuditTrail,
  type Config,
  createLogger,
  errorMessage,
  importPluginSource,
  type LoadResult,
  type Logger,
  listAvailablePlugins,
  type PinBoard,
  type PluginConfig,
  type PluginModule,
  type PluginRegistry,
  type PluginSource,
  resolvePlugin,
  type SkillOffers,
  type UnloadResult,
} from '@mcpbox/framework';
import type { AccessAdmin } from './accessAdmin.ts';
import type { ClusterView } from './clusterView.ts';
import type { CommandRegistry } from './commands.ts';
import { type EntryKind, entryKind, entryModule } from './entryModule.ts';
import { resolvePluginConfig } from './pluginConfig.ts';
import { pluginNameError } from './pluginName.ts';
import { pluginPrefix } from './prefix.ts';

export interface PluginManagerOptions {
  registry: PluginRegistry;
  config: Config;
  commands: CommandRegistry;
  /** For `${VAR}` in per-plugin config files and upstream params. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  logger?: Logger;
}

/** What a module owns outside the catalog is freed by `dispose()` (a mirror's) or `close()`. */
interface Disposable {
  dispose?: () => unknown;
  close?: () => unknown;
}

export interface AvailableEntry {
  name: string;
  description: string;
  loaded: boolean;
  /** `plugin` (code), `upstream` (another MCP server) or `openapi` (an HTTP API). */
  kind: EntryKind;
}

export type ManagerEvent = {
  type: 'loaded' | 'unloaded' | 'reloaded';
  plugin: string;
  /** Applied because another replica made the change (cluster mode): not to be shared again. */
  fromCluster?: boolean;
};

/** Who asks for an operation: a caller here, or cluster mode applying another replica's change. */
export interface OperationOrigin {
  fromCluster?: boolean;
}

/** What to hand the registry for one load. */
interface Prepared {
  settings: PluginConfig;
  prefix: string | false;
  module?: unknown;
  source?: PluginSource;
}

/** How many plugin names' last errors are kept. */
const LAST_ERRORS_KEPT = 200;

function failed(plugin: string, error: string): LoadResult {
  return { ok: false, plugin, error, tools: [], resources: [], prompts: [] };
}

export class PluginManager {
  readonly registry: PluginRegistry;
  readonly commands: CommandRegistry;
  readonly #config: Config;
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #logger: Logger;
  /** Plugins loaded before start-up finished; they stay static across reloads. */
  readonly #startupPlugins = new Set<string>();
  #startupDone = false;
  readonly #listeners = new Set<(event: ManagerEvent) => void>();
  #queue: Promise<unknown> = Promise.resolve();
  readonly #lastErrors = new Map<string, string>();

  constructor(options: PluginManagerOptions) {
    this.registry = options.registry;
    this.commands = options.commands;
    this.#config = options.config;
    this.#env = options.env ?? process.env;
    this.#logger = options.logger ?? createLogger('proxy');
  }

  /** Set by mcp-proxy serve: how replicas compare with the shared plugin set (cluster mode). */
  clusterView: (() => Promise<ClusterView>) | undefined;
  /** Set by mcp-proxy serve: views and policy (reload, explain, principals seen). */
  access: AccessAdmin | undefined;
  /** Set by mcp-proxy serve: approvals desk, pin book, audit trail, where mirrors' skills go. */
  approvals: ApprovalDesk | undefined;
  pins: PinBoard | undefined;
  audit: AuditTrail | undefined;
  skillOffers: SkillOffers | undefined;

  get config(): Config {
    return this.#config;
  }

  get startupDone(): boolean {
    return this.#startupDone;
  }

  /** Freezes the set of start-up plugins: everything loaded from now on is dynamic. */
  markStartupDone(): void {
    this.#startupDone = true;
  }

  onEvent(listener: (event: ManagerEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(event: ManagerEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#logger.warn(`plugin event listener failed: ${errorMessage(error)}`);
      }
    }
  }

  /**
   * Each plugin's last failed load, unload or reload, whichever path asked (REST, CLI, MCP tool,
   * console, cluster), cleared by its next success: what the console's plugins page shows.
   */
  get lastErrors(): ReadonlyMap<string, string> {
    return this.#lastErrors;
  }

  /** Runs one operation on a plugin in turn, and remembers how it ended. */
  async #serialFor<T extends { ok: boolean; error?: string }>(
    name: string,
    task: () => Promise<T>,
  ): Promise<T> {
    const result = await this.#serial(task);
    this.#lastErrors.delete(name);
    if (!result.ok) {
      this.#lastErrors.set(name, result.error ?? 'failed');
      // Names come from callers: keep the most recent ones only.
      const oldest = this.#lastErrors.keys().next().value;
      if (this.#lastErrors.size > LAST_ERRORS_KEPT && oldest !== undefined) {
        this.#lastErrors.delete(oldest);
      }
    }
    return result;
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Loads a plugin by name: a plugin-directory plugin, a package, or a `plugins:` entry. The name
   * is checked here, so every entry point (REST, CLI, MCP tools, autoload) refuses paths alike.
   */
  load(name: string, { fromCluster }: OperationOrigin = {}): Promise<LoadResult> {
    const invalid = pluginNameError(name);
    if (invalid) return Promise.resolve(failed(name, invalid));
    return this.#serialFor(name, async () => {
      if (this.registry.isLoaded(name)) return failed(name, `Plugin '${name}' already loaded`);
      const result = await this.#loadNew(name);
      if (result.ok) {
        if (!this.#startupDone) this.#startupPlugins.add(name);
        this.#emit({ type: 'loaded', plugin: name, fromCluster });
      }
      return result;
    });
  }

  /** Loads a built-in plugin (the management tools): internal, never prefixed. */
  loadInternal(name: string, module: PluginModule): Promise<LoadResult> {
    return this.#serial(async () => {
      const result = await this.registry.loadPlugin(name, { module, internal: true });
      if (result.ok) this.#startupPlugins.add(name);
      return result;
    });
  }

  unload(name: string, { fromCluster }: OperationOrigin = {}): Promise<UnloadResult> {
    const invalid = pluginNameError(name);
    if (invalid) return Promise.resolve({ ...failed(name, invalid), removed: [] });
    return this.#serialFor(name, async () => {
      const plugin = this.registry.getPlugin(name);
      if (plugin?.internal) {
        return {
          ...failed(name, `Plugin '${name}' is built in and cannot be unloaded`),
          removed: [],
        };
      }
      const result = await this.registry.unloadPlugin(name);
      if (!result.ok) return result;
      this.commands.removePlugin(name);
      this.#startupPlugins.delete(name);
      await this.#close(plugin?.module);
      this.#emit({ type: 'unloaded', plugin: name, fromCluster });
      return result;
    });
  }

  /**
   * Reloads a plugin transactionally, through the registry's `reloadPlugin`: the plugin's files
   * are imported fresh (an upstream entry gets a new connection) and registered against a
   * staging server; only a clean result — no import error, no exception in `register()`, no
   * collision with another plugin — replaces the old entries, in one catalog change. Otherwise
   * the old version keeps serving, with its commands, and the error is returned.
   * Settings and per-plugin config files are read again.
   *
   * `howToLoad` completes the answer for a plugin that is not loaded, in the caller's terms
   * (`mcp-proxy load echo`, `proxy__load(plugin='echo')`).
   */
  reload(
    name: string,
    { howToLoad, fromCluster }: { howToLoad?: string } & OperationOrigin = {},
  ): Promise<LoadResult> {
    const invalid = pluginNameError(name);
    if (invalid) return Promise.resolve(failed(name, invalid));
    return this.#serialFor(name, async () => {
      const old = this.registry.getPlugin(name);
      if (!old) {
        const hint = howToLoad ? `load it with ${howToLoad}` : 'load it first';
        return failed(name, `Plugin '${name}' not loaded — ${hint}`);
      }
      if (old.internal) return failed(name, `Plugin '${name}' is built in and cannot be reloaded`);
      const still = (error: string | undefined) =>
        failed(name, `${error ?? 'reload failed'} (the previous version is still loaded)`);

      const prepared = await this.#prepare(name, { importPath: false });
      if (!prepared.ok) return still(prepared.error);
      const { settings, prefix, module } = prepared.prepared;
      const commands = this.commands.snapshot(name);
      this.commands.removePlugin(name);
      const result = await this.commands.ownedBy(name, () =>
        this.registry.reloadPlugin(name, { module, config: settings, prefix }),
      );
      if (!result.ok) {
        this.commands.restore(name, commands);
        if (module !== undefined) await this.#close(module);
        return still(result.error);
      }
      if (this.registry.getPlugin(name)?.module !== old.module) await this.#close(old.module);
      this.#emit({ type: 'reloaded', plugin: name, fromCluster });
      return result;
    });
  }

  /** Settings, prefix and (for `path:` and upstream entries) the module of one plugin. */
  async #prepare(
    name: string,
    { importPath }: { importPath: boolean },
  ): Promise<{ ok: true; prepared: Prepared } | { ok: false; error: string }> {
    const entry = this.#config.plugins[name];
    if (entry?.enabled === false)
      return { ok: false, error: `Plugin '${name}' disabled in config` };
    const read = resolvePluginConfig(name, {
      entry,
      pluginDirs: this.registry.pluginDirs,
      pluginConfigDir: this.#config.plugin_config_dir,
      env: this.#env,
    });
    if (!read.ok) return { ok: false, error: `Plugin '${name}' config: ${read.error}` };
    const settings = read.config;
    const prefix = pluginPrefix(name, settings, this.#config.auto_prefix);

    if (entryKind(settings) !== 'plugin') {
      try {
        // A change of an upstream's lists re-registers the loaded mirror (same connection).
        const reload = (plugin: string) => this.registry.reloadPlugin(plugin);
        const mirror = { secrets: this.#config.secrets, prefix, skillOffers: this.skillOffers };
        const module = entryModule(name, settings, this.#env, reload, mirror);
        return { ok: true, prepared: { settings, prefix, module } };
      } catch (error) {
        return { ok: false, error: `Plugin '${name}': ${errorMessage(error)}` };
      }
    }
    // On reload the registry re-imports a `path:` plugin from the source it was loaded from.
    if (typeof settings.path === 'string' && importPath) {
      let source: PluginSource;
      try {
        source = resolvePlugin(settings.path, this.registry.pluginDirs);
      } catch (error) {
        return {
          ok: false,
          error: errorMessage(error).replace(
            `'${settings.path}'`,
            `'${name}' (path ${settings.path})`,
          ),
        };
      }
      try {
        const module = await importPluginSource(source);
        return { ok: true, prepared: { settings, prefix, module, source } };
      } catch (error) {
        return { ok: false, error: `Plugin '${name}' failed to import: ${errorMessage(error)}` };
      }
    }
    return { ok: true, prepared: { settings, prefix } };
  }

  async #loadNew(name: string): Promise<LoadResult> {
    const prepared = await this.#prepare(name, { importPath: true });
    if (!prepared.ok) return failed(name, prepared.error);
    const { settings, prefix, module, source } = prepared.prepared;
    const result = await this.commands.ownedBy(name, () =>
      this.registry.loadPlugin(name, { module, source, config: settings, prefix }),
    );
    if (!result.ok) {
      this.commands.removePlugin(name);
      // A module made for this load (an upstream mirror) owns a connection: free it.
      if (module !== undefined) await this.#close(module);
    }
    return result;
  }

  async #close(module: unknown): Promise<void> {
    const target = module as Disposable | undefined;
    const release = typeof target?.dispose === 'function' ? target.dispose : target?.close;
    if (typeof release !== 'function') return;
    try {
      await release.call(module);
    } catch (error) {
      this.#logger.warn(`closing a plugin failed: ${errorMessage(error)}`);
    }
  }

  /** Closes what loaded plugins hold outside the catalog (upstream connections, `onUnload`). */
  async closeAll(): Promise<void> {
    await Promise.allSettled([
      this.registry.closeAll(),
      ...this.registry.plugins().map((p) => this.#close(p.module)),
    ]);
  }

  // ---- views ----

  /** A tool is dynamic when its plugin was loaded after start-up (a reload keeps it static). */
  isDynamicTool(tool: string): boolean {
    const owner = this.registry.findToolOwner(tool);
    return owner !== undefined && !this.#startupPlugins.has(owner);
  }

  dynamicTools(): string[] {
    return this.registry
      .allTools()
      .filter((tool) => this.isDynamicTool(tool))
      .sort();
  }

  /** Plugins in the plugin directories plus upstream `plugins:` entries, loaded or not. */
  async available(): Promise<AvailableEntry[]> {
    const found = new Map<string, AvailableEntry>();
    for (const p of await listAvailablePlugins(this.registry.pluginDirs)) {
      found.set(p.name, {
        name: p.name,
        description: p.description,
        loaded: false,
        kind: 'plugin',
      });
    }
    for (const [name, entry] of Object.entries(this.#config.plugins)) {
      if (entry.enabled === false) continue;
      const kind = entryKind(entry);
      const description = entry.description ?? found.get(name)?.description ?? '';
      if (kind !== 'plugin' || entry.path || found.has(name)) {
        found.set(name, { name, description, loaded: false, kind });
      }
    }
    for (const entry of found.values()) entry.loaded = this.registry.isLoaded(entry.name);
    return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
  }
}
