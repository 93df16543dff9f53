/**
 * `--watch`: a saved change to a loaded plugin's files reloads that plugin, debounced (editors
 * write a file in several steps). The reload is the manager's transactional one, so a broken
 * save leaves the previous version serving and is only logged.
 *
 * A folder plugin's whole folder is watched (its `skills/` too: the reload serves them again); a
 * single-file plugin, its entry file (see `folderWatch.ts` for how).
 *
 * @module
 */
import { createLogger, errorMessage, type LoadResult, type Logger } from '@mcpbox/framework';
import { type FolderWatch, watchFolder } from './folderWatch.ts';
import type { PluginManager } from './manager.ts';

export interface PluginWatcherOptions {
  manager: PluginManager;
  /** Quiet time after the last change before reloading. Default 300 ms. */
  debounceMs?: number;
  logger?: Logger;
  /** Told about every reload the watcher started, successful or not. */
  onReload?: (plugin: string, result: LoadResult) => void;
}

export class PluginWatcher {
  readonly #manager: PluginManager;
  readonly #debounceMs: number;
  readonly #logger: Logger;
  readonly #watched = new Map<string, FolderWatch>();
  readonly #stopEvents: () => void;
  readonly #onReload: PluginWatcherOptions['onReload'];

  constructor(options: PluginWatcherOptions) {
    this.#manager = options.manager;
    this.#debounceMs = options.debounceMs ?? 300;
    this.#logger = options.logger ?? createLogger('watch');
    this.#onReload = options.onReload;
    for (const plugin of this.#manager.registry.plugins()) this.#watch(plugin.name);
    this.#stopEvents = this.#manager.onEvent((event) => {
      if (event.type === 'unloaded') void this.#unwatch(event.plugin);
      else this.#watch(event.plugin);
    });
  }

  /** Names of the plugins being watched. */
  get plugins(): string[] {
    return [...this.#watched.keys()];
  }

  /** Settles once every plugin watched so far is being watched (for tests and start-up). */
  get ready(): Promise<void> {
    return Promise.all([...this.#watched.values()].map((w) => w.ready)).then(() => undefined);
  }

  #watch(name: string): void {
    const plugin = this.#manager.registry.getPlugin(name);
    const source = plugin?.source;
    // Reloads keep the same files: one watcher per plugin for its whole life.
    if (!plugin || plugin.internal || source?.kind !== 'file' || this.#watched.has(name)) return;
    const target = source.watch;
    const watched = watchFolder(target, {
      debounceMs: this.#debounceMs,
      onChange: () => void this.#reload(name),
      onError: (error) => {
        this.#logger.warn(`watching plugin ${name} failed: ${errorMessage(error)}`);
      },
    });
    this.#watched.set(name, watched);
    this.#logger.debug(`watching ${target} for plugin ${name}`);
  }

  async #reload(name: string): Promise<void> {
    if (!this.#manager.registry.isLoaded(name)) return;
    const result = await this.#manager.reload(name);
    if (result.ok) this.#logger.info(`reloaded ${name} after a change: ${result.tools.join(', ')}`);
    else this.#logger.error(`reload of ${name} after a change failed: ${result.error}`);
    this.#onReload?.(name, result);
  }

  #unwatch(name: string): Promise<void> {
    const watched = this.#watched.get(name);
    if (!watched) return Promise.resolve();
    this.#watched.delete(name);
    return watched.close().catch((error: unknown) => {
      this.#logger.warn(`closing the watcher of plugin ${name} failed: ${errorMessage(error)}`);
    });
  }

  /** Stops watching every plugin; settles when the file watches are closed. */
  async close(): Promise<void> {
    this.#stopEvents();
    await Promise.all([...this.#watched.keys()].map((name) => this.#unwatch(name)));
  }
}
