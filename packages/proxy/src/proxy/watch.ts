/**
 * `--watch`: a saved change to a loaded plugin's files reloads that plugin, debounced (editors
 * write a file in several steps). The reload is the manager's transactional one, so a broken
 * save leaves the previous version serving and is only logged.
 *
 * A folder plugin's whole folder is watched (recursively); a single-file plugin is watched
 * through its directory, filtered by file name, because editors that save by writing a new file
 * and renaming it over the old one would end a watch on the file itself.
 *
 * @module
 */
import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { createLogger, errorMessage, type LoadResult, type Logger } from '@mcpbox/framework';
import type { PluginManager } from './manager.ts';

export interface PluginWatcherOptions {
  manager: PluginManager;
  /** Quiet time after the last change before reloading. Default 300 ms. */
  debounceMs?: number;
  logger?: Logger;
  /** Told about every reload the watcher started, successful or not. */
  onReload?: (plugin: string, result: LoadResult) => void;
}

interface Watched {
  watcher: FSWatcher;
  timer: NodeJS.Timeout | undefined;
}

export class PluginWatcher {
  readonly #manager: PluginManager;
  readonly #debounceMs: number;
  readonly #logger: Logger;
  readonly #watched = new Map<string, Watched>();
  readonly #stopEvents: () => void;
  readonly #onReload: PluginWatcherOptions['onReload'];

  constructor(options: PluginWatcherOptions) {
    this.#manager = options.manager;
    this.#debounceMs = options.debounceMs ?? 300;
    this.#logger = options.logger ?? createLogger('watch');
    this.#onReload = options.onReload;
    for (const plugin of this.#manager.registry.plugins()) this.#watch(plugin.name);
    this.#stopEvents = this.#manager.onEvent((event) => {
      if (event.type === 'unloaded') this.#unwatch(event.plugin);
      else this.#watch(event.plugin);
    });
  }

  /** Names of the plugins being watched. */
  get plugins(): string[] {
    return [...this.#watched.keys()];
  }

  #watch(name: string): void {
    const plugin = this.#manager.registry.getPlugin(name);
    const source = plugin?.source;
    // Reloads keep the same files: one watcher per plugin for its whole life.
    if (!plugin || plugin.internal || source?.kind !== 'file' || this.#watched.has(name)) return;
    const isFolder = source.watch !== source.path;
    const target = isFolder ? source.watch : dirname(source.path);
    const file = basename(source.path);
    let watcher: FSWatcher;
    try {
      watcher = watch(target, { recursive: isFolder, persistent: false }, (_event, changed) => {
        if (!isFolder && changed !== null && changed !== file) return;
        if (changed !== null && /(^|\/)(\.|.*~$|.*\.sw[px]$)/.test(changed)) return;
        this.#schedule(name);
      });
    } catch (error) {
      this.#logger.warn(`cannot watch ${target} for plugin ${name}: ${errorMessage(error)}`);
      return;
    }
    watcher.on('error', (error) => {
      this.#logger.warn(`watching plugin ${name} failed: ${errorMessage(error)}`);
      this.#unwatch(name);
    });
    this.#watched.set(name, { watcher, timer: undefined });
    this.#logger.debug(`watching ${target} for plugin ${name}`);
  }

  #schedule(name: string): void {
    const watched = this.#watched.get(name);
    if (!watched) return;
    clearTimeout(watched.timer);
    watched.timer = setTimeout(() => {
      watched.timer = undefined;
      void this.#reload(name);
    }, this.#debounceMs);
  }

  async #reload(name: string): Promise<void> {
    if (!this.#manager.registry.isLoaded(name)) return;
    const result = await this.#manager.reload(name);
    if (result.ok) this.#logger.info(`reloaded ${name} after a change: ${result.tools.join(', ')}`);
    else this.#logger.error(`reload of ${name} after a change failed: ${result.error}`);
    this.#onReload?.(name, result);
  }

  #unwatch(name: string): void {
    const watched = this.#watched.get(name);
    if (!watched) return;
    clearTimeout(watched.timer);
    watched.watcher.close();
    this.#watched.delete(name);
  }

  close(): void {
    this.#stopEvents();
    for (const name of [...this.#watched.keys()]) this.#unwatch(name);
  }
}
