/**
 * `--watch`: a saved change to a loaded plugin's files reloads that plugin, debounced (editors
 * write a file in several steps). The reload is the manager's transactional one, so a broken
 * save leaves the previous version serving and is only logged.
 *
 * A folder plugin's whole folder is watched; a single-file plugin, its entry file. The watching
 * is chokidar's: Node 20's own recursive `fs.watch` loses a file once an editor (or `sed -i`)
 * has replaced it by renaming a new file over it, and so stopped reloading after a save or two.
 * chokidar watches each directory and file itself and picks the new file up after a rename.
 *
 * @module
 */
import { relative, sep } from 'node:path';
import { createLogger, errorMessage, type LoadResult, type Logger } from '@mcpbox/framework';
import { type FSWatcher, watch } from 'chokidar';
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
  /** Settles once the initial scan is done: changes from then on are seen. */
  ready: Promise<void>;
}

/** Files no plugin is made of: hidden files, editor backups and swap files, dependencies. */
const NOT_PLUGIN_CODE = /(^|\/)(\.|node_modules(\/|$))|~$|\.sw[px]$/;

/**
 * Whether a path chokidar met under `root` is to be left alone. Judged by the part below the
 * root, so a dot folder above the plugin (`.tmp/`) does not hide it; the root itself and the
 * folders above it (chokidar asks about a single file's directory) are never ignored.
 */
function isNoise(root: string, path: string): boolean {
  const below = relative(root, path);
  if (below === '' || below === '..' || below.startsWith(`..${sep}`)) return false;
  return NOT_PLUGIN_CODE.test(below.split(sep).join('/'));
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
    const watcher = watch(target, {
      ignoreInitial: true,
      // The proxy's servers keep the process alive; a watcher alone should not.
      persistent: false,
      ignored: (path) => isNoise(target, path),
    });
    watcher.on('all', () => this.#schedule(name));
    watcher.on('error', (error) => {
      this.#logger.warn(`watching plugin ${name} failed: ${errorMessage(error)}`);
    });
    const ready = new Promise<void>((resolve) => watcher.once('ready', resolve));
    this.#watched.set(name, { watcher, timer: undefined, ready });
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

  #unwatch(name: string): Promise<void> {
    const watched = this.#watched.get(name);
    if (!watched) return Promise.resolve();
    clearTimeout(watched.timer);
    this.#watched.delete(name);
    return watched.watcher.close().catch((error: unknown) => {
      this.#logger.warn(`closing the watcher of plugin ${name} failed: ${errorMessage(error)}`);
    });
  }

  /** Stops watching every plugin; settles when the file watches are closed. */
  async close(): Promise<void> {
    this.#stopEvents();
    await Promise.all([...this.#watched.keys()].map((name) => this.#unwatch(name)));
  }
}
