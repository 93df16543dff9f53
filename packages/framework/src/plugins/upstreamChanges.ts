/**
 * Following an upstream's list changes. An upstream announces that its tools, resources or
 * prompts changed; the list is fetched again and compared with what is mirrored, and only a real
 * difference counts (server-everything, for one, announces a change right after every connect).
 * A real change reloads the plugin through `reload`, or, without one, is logged.
 *
 * Kept apart from the mirroring itself (`upstreamMirror.ts`): this is the comparison of listings
 * and the timing of re-checks, which needs nothing of how entries are registered.
 *
 * @module
 */

import type { ListKind, UpstreamConnection } from '../client/connection.ts';
import type { Logger } from '../contract/logger.ts';
import { errorMessage } from '../errors.ts';
import { type Lists, listSkills } from './upstreamMirror.ts';

/** What changed in one list, by name (tools, prompts) or URI (resources and templates). */
export interface ListChange {
  added: string[];
  removed: string[];
  changed: string[];
}

/**
 * The upstream's lists as last mirrored, each entry as JSON by name or URI. Skills count as
 * resources: a server announces a change of its skills with `resources/list_changed`.
 */
export interface Snapshot {
  tools: Map<string, string>;
  resources: Map<string, string>;
  prompts: Map<string, string>;
}

/** How long announcements are gathered before the list is fetched again. */
const CHANGE_SETTLE_MS = 100;

function keyed<T>(items: T[], key: (item: T) => string): Map<string, string> {
  return new Map(items.map((item) => [key(item), JSON.stringify(item)]));
}

export function snapshotFrom(lists: Lists): Snapshot {
  return {
    tools: keyed(lists.tools, (tool) => tool.name),
    resources: resourcesKeyed(lists),
    prompts: keyed(lists.prompts, (prompt) => prompt.name),
  };
}

function resourcesKeyed(lists: Pick<Lists, 'resources' | 'templates' | 'skills'>) {
  return new Map([
    ...keyed(lists.resources, (resource) => resource.uri),
    ...keyed(lists.templates, (template) => template.uriTemplate),
    // Apart from resources of the same URI: a skill entry is not its SKILL.md resource.
    ...keyed(lists.skills, (skill) => `skill ${skill.uri}`),
  ]);
}

async function snapshotOf(
  upstream: WatchedUpstream,
  connection: UpstreamConnection,
  kind: ListKind,
) {
  if (kind === 'tools') return keyed(await connection.listTools(), (tool) => tool.name);
  if (kind === 'prompts') return keyed(await connection.listPrompts(), (prompt) => prompt.name);
  return resourcesKeyed({
    resources: await connection.listResources(),
    templates: await connection.listResourceTemplates(),
    skills: await listSkills(connection, upstream.logger()),
  });
}

/** What differs between two listings, or nothing when they are the same. */
function difference(
  before: Map<string, string>,
  after: Map<string, string>,
): ListChange | undefined {
  const added = [...after.keys()].filter((key) => !before.has(key));
  const removed = [...before.keys()].filter((key) => !after.has(key));
  const changed = [...after.keys()].filter(
    (key) => before.has(key) && before.get(key) !== after.get(key),
  );
  if (added.length + removed.length + changed.length === 0) return undefined;
  return { added, removed, changed };
}

function describeChange(kind: ListKind, change: ListChange): string {
  const parts = (['added', 'removed', 'changed'] as const)
    .filter((part) => change[part].length > 0)
    .map((part) => `${part} ${change[part].join(', ')}`);
  return `${kind} (${parts.join('; ')})`;
}

/**
 * The plugin's state as the watcher reads it when a change is checked: each is asked at that
 * moment, since a re-register replaces the connection, the mirror, the logger and the name.
 */
export interface WatchedUpstream {
  /** Names the upstream in log messages. */
  readonly name: string;
  connection(): UpstreamConnection | undefined;
  /** The latest mirror's lists; settles when they are in (undefined if listing failed). */
  mirrored(): Promise<Snapshot | undefined>;
  logger(): Logger | undefined;
  /** The plugin's name in the registry, for `reload`. */
  plugin(): string;
  reload?: (plugin: string) => Promise<unknown>;
  onListChanged?: (kind: ListKind, change: ListChange) => void;
}

/** Gathers an upstream's change announcements and acts on the real ones. */
export class ListChangeWatcher {
  readonly #upstream: WatchedUpstream;
  readonly #pending = new Map<ListKind, NodeJS.Timeout>();

  constructor(upstream: WatchedUpstream) {
    this.#upstream = upstream;
  }

  /** The upstream said `kind` changed: compare with the mirror, act only on a difference. */
  announced(kind: ListKind): void {
    clearTimeout(this.#pending.get(kind));
    const timer = setTimeout(() => {
      this.#pending.delete(kind);
      void this.#recheck(kind).catch((error) =>
        this.#upstream
          .logger()
          ?.warn(
            `upstream '${this.#upstream.name}' announced a change to its ${kind}, but listing them failed: ${errorMessage(error)}`,
          ),
      );
    }, CHANGE_SETTLE_MS);
    timer.unref();
    this.#pending.set(kind, timer);
  }

  /** Drops the re-checks still waiting. */
  stop(): void {
    for (const timer of this.#pending.values()) clearTimeout(timer);
    this.#pending.clear();
  }

  async #recheck(kind: ListKind): Promise<void> {
    const upstream = this.#upstream;
    const active = upstream.connection();
    const mirrored = await upstream.mirrored();
    if (!active || active !== upstream.connection() || active.closed || !mirrored) return;
    const now = await snapshotOf(upstream, active, kind);
    const change = difference(mirrored[kind], now);
    const name = upstream.name;
    if (!change) {
      upstream
        .logger()
        ?.debug(`upstream '${name}' announced a change to its ${kind}; nothing changed`);
      return;
    }
    const what = describeChange(kind, change);
    if (upstream.reload) {
      upstream.logger()?.info(`upstream '${name}' changed its ${what}; mirroring the change`);
      const result = (await upstream.reload(upstream.plugin())) as
        | { ok?: boolean; error?: string }
        | undefined;
      if (result?.ok === false) {
        upstream.logger()?.warn(`upstream '${name}': mirroring the change failed: ${result.error}`);
      }
    } else {
      upstream
        .logger()
        ?.warn(
          `upstream '${name}' changed its ${what}; reload plugin '${upstream.plugin()}' to mirror the change`,
        );
    }
    upstream.onListChanged?.(kind, change);
  }
}
