/**
 * The admin surfaces loaded plugins published (`server.publishAdmin`), kept per plugin in load
 * order, and the listeners told when they change. A plugin's surfaces are replaced with each
 * registration and leave with it; the registry calls `set` on every load, reload and unload.
 *
 * @module
 */
import type { AdminSurface, PublishedAdmin } from '../contract/admin.ts';
import type { Logger } from '../contract/logger.ts';
import { errorMessage } from '../errors.ts';

export class PublishedAdminSurfaces {
  readonly #admin = new Map<string, PublishedAdmin[]>();
  readonly #listeners = new Set<() => void>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Every published surface, in load order. */
  all(): PublishedAdmin[] {
    return [...this.#admin.values()].flat();
  }

  /** Hears every change of {@link all}. Returns a remover. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Replaces `plugin`'s surfaces (none: it has none now); listeners hear of a real change. */
  set(plugin: string, surfaces: Map<string, AdminSurface>): void {
    const had = this.#admin.has(plugin);
    if (surfaces.size === 0) this.#admin.delete(plugin);
    else {
      const published = [...surfaces].map(([name, surface]) => ({ plugin, name, surface }));
      this.#admin.set(plugin, published);
    }
    if (!had && surfaces.size === 0) return;
    for (const listener of this.#listeners) {
      try {
        listener();
      } catch (error) {
        this.#logger.warn(`admin surface listener failed: ${errorMessage(error)}`);
      }
    }
  }
}
