/**
 * `CatalogModules`: keeps `<workspace>/mcptools/` in step with the catalog — a package per
 * plugin or mirrored server whose tools code may call — and running kernels in step with it.
 *
 * Each catalog change (a plugin loaded, unloaded, reloaded) schedules one sync, debounced: new
 * packages are written, changed ones rewritten (atomically, by `generateMcpSources`), and those
 * of plugins gone are removed. Which packages are ours is kept in `mcptools/.code_mode.json`, so
 * a restart also removes what an earlier run left, and never a registered server's package.
 *
 * A kernel keeps what it imported in `sys.modules`: before the next cell of a kernel that saw an
 * older catalog, `forgetStale` evicts the catalog packages there (and from the `mcptools`
 * namespace) and invalidates the import caches, so the next import reads the new files.
 *
 * Views and policy: the packages are one set for the whole catalog, not one per caller. The
 * workspace is shared by every kernel of this server (files, installed packages, registered
 * servers' packages), so per-caller copies in it would hide nothing from code that lists the
 * directory — and a tool's name and schema are no credential. What each caller is *told* is
 * theirs: `search_tools` finds only the tools the caller may reach (`searchTool.ts`), and every
 * call from kernel code is decided by the dispatcher for the cell's caller: a tool outside its
 * view is `ToolNotFound`, a policy refusal a `ToolError` naming the rule
 * (`catalogConnections.ts`). A listing is never a permission.
 *
 * @module
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type CatalogView, errorMessage, type Logger } from '@mcpbox/framework';
import type { KernelSession } from '../kernels/kernelSession.ts';
import { generateMcpSources } from '../mcptools/generate.ts';
import { toIdentifier } from '../mcptools/pythonSource.ts';
import { type CatalogLayout, layoutCatalog } from './layout.ts';

const MANIFEST = '.code_mode.json';
const DEBOUNCE_MS = 50;

export interface CatalogModulesOptions {
  catalog: CatalogView;
  workspace: string;
  /** Code mode's own plugin name. */
  self: string;
  /** Names of the servers registered with `register_mcp_server` now. */
  registered: () => readonly string[];
  logger: Logger;
}

export class CatalogModules {
  readonly #options: CatalogModulesOptions;
  #layout: CatalogLayout | undefined;
  /** Rendered files of each package as written, to rewrite only what changed. */
  readonly #written = new Map<string, string>();
  /** Every package name this process ever wrote: what a stale kernel may hold. */
  readonly #everWritten = new Set<string>();
  /** Plugins that had a package at some point: a call to one gone says so. */
  readonly #everPlugins = new Set<string>();
  #generation = 0;
  readonly #seen = new WeakMap<KernelSession, number>();
  #syncing: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #dirty = false;
  #manifestRead = false;
  #closed = false;

  constructor(options: CatalogModulesOptions) {
    this.#options = options;
  }

  /** The layout as of the last sync (before the first one: the catalog now). */
  get layout(): CatalogLayout {
    this.#layout ??= this.#computeLayout();
    return this.#layout;
  }

  /** Whether `plugin` has, or had in this process, a package: its calls are routed here. */
  knows(plugin: string): boolean {
    return this.#everPlugins.has(plugin) || this.layout.plugins().includes(plugin);
  }

  /** The plugins that have a package now. */
  plugins(): string[] {
    return this.layout.plugins();
  }

  /** Schedules a sync (debounced: a burst of changes is one sync). */
  changed(): void {
    if (this.#closed) return;
    this.#dirty = true;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.sync(), DEBOUNCE_MS);
    this.#timer.unref();
  }

  /** Writes and removes packages to match the catalog now; resolves when done. */
  sync(): Promise<void> {
    clearTimeout(this.#timer);
    this.#dirty = false;
    this.#syncing = this.#syncing
      .then(() => this.#sync())
      .catch((error) => {
        this.#options.logger.warn(`code mode: updating mcptools/ failed: ${errorMessage(error)}`);
      });
    return this.#syncing;
  }

  /** Resolves once no sync is scheduled or running (a cell should see the latest catalog). */
  async settled(): Promise<void> {
    if (this.#dirty) await this.sync();
    await this.#syncing;
  }

  /** Before a cell: evicts stale catalog packages from a kernel that imported older ones. */
  async forgetStale(session: KernelSession): Promise<void> {
    await this.settled();
    const seen = this.#seen.get(session);
    this.#seen.set(session, this.#generation);
    if (seen === undefined || seen === this.#generation || this.#everWritten.size === 0) return;
    await session.runQuietly(evictionCode([...this.#everWritten])).catch((error) => {
      this.#options.logger.warn(`code mode: could not refresh kernel ${session.id}: ${error}`);
    });
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  #computeLayout(): CatalogLayout {
    const { catalog, self, registered, logger } = this.#options;
    const taken = new Set(registered().map((name) => toIdentifier(name, { fallback: 'server' })));
    return layoutCatalog(catalog.tools(), {
      self,
      taken,
      onSkipped: (plugin, reason) =>
        logger.warn(`code mode: no Python package for plugin '${plugin}': ${reason}`),
    });
  }

  async #sync(): Promise<void> {
    if (this.#closed) return;
    const { workspace, logger } = this.#options;
    const layout = this.#computeLayout();
    const mcptools = join(workspace, 'mcptools');
    let changed = false;
    if (!this.#manifestRead) {
      this.#manifestRead = true;
      for (const name of await readManifest(mcptools)) this.#written.set(name, '');
    }
    for (const [name, pkg] of layout.packages) {
      this.#everPlugins.add(pkg.plugin);
      const fingerprint = JSON.stringify([...pkg.rendered.files]);
      if (this.#written.get(name) === fingerprint) continue;
      await generateMcpSources(pkg.plugin, undefined, workspace, {
        listTools: async () => pkg.tools,
      });
      this.#written.set(name, fingerprint);
      this.#everWritten.add(name);
      changed = true;
    }
    const taken = new Set(this.#options.registered().map((n) => toIdentifier(n)));
    for (const name of [...this.#written.keys()]) {
      if (layout.packages.has(name)) continue;
      this.#written.delete(name);
      this.#everWritten.add(name);
      // A registered server took the name over: its package is not ours to remove.
      if (!taken.has(name)) await rm(join(mcptools, name), { recursive: true, force: true });
      changed = true;
    }
    this.#layout = layout;
    if (!changed) return;
    this.#generation += 1;
    await writeFile(
      join(mcptools, MANIFEST),
      `${JSON.stringify({ packages: [...this.#written.keys()] }, null, 2)}\n`,
    );
    logger.info(
      `code mode: mcptools/ has ${layout.packages.size} catalog packages (${layout.toolCount} tools)`,
    );
  }
}

async function readManifest(mcptools: string): Promise<string[]> {
  try {
    const { packages } = JSON.parse(await readFile(join(mcptools, MANIFEST), 'utf8')) as {
      packages?: unknown;
    };
    // Only plain package names: the manifest sits in a workspace kernel code may write.
    return Array.isArray(packages)
      ? packages.filter((p): p is string => typeof p === 'string' && /^[a-z][a-z0-9_]*$/.test(p))
      : [];
  } catch {
    return [];
  }
}

/** Python that drops `mcptools.<name>` (and its modules) from the kernel's import state. */
export function evictionCode(packages: readonly string[]): string {
  return [
    'def _code_mode_evict(names):',
    '    import importlib, sys',
    "    for key in [k for k in sys.modules if k.startswith('mcptools.') and k.split('.')[1] in names]:",
    '        del sys.modules[key]',
    "    namespace = sys.modules.get('mcptools')",
    '    for name in names:',
    '        if namespace is not None and hasattr(namespace, name):',
    '            delattr(namespace, name)',
    '    importlib.invalidate_caches()',
    `_code_mode_evict(${JSON.stringify(packages)})`,
    'del _code_mode_evict',
  ].join('\n');
}
