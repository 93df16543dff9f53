/**
 * The one catalog of tools, resources, resource templates and prompts that every MCP session
 * reads. Lookups by name or URI are map hits; listings are cached until the next change. Every
 * change is announced once to the change listeners (the session hub turns that into
 * `notifications/.../list_changed` for each open session).
 *
 * @module
 */

import type {
  Prompt,
  Resource,
  ResourceTemplateType,
  Tool,
  Variables,
} from '@modelcontextprotocol/server';
import type { ToolListing } from './toolListing.ts';
import type {
  CatalogBatch,
  CatalogChangeListener,
  CatalogKind,
  CatalogScreen,
  Collision,
  PromptEntry,
  ResourceEntry,
  ResourceTemplateEntry,
  ToolEntry,
} from './types.ts';

/** What one plugin owns, as names (tools, prompts), URIs (resources) and URI templates. */
export interface OwnedNames {
  tools: string[];
  resources: string[];
  templates: string[];
  prompts: string[];
}

export class Catalog {
  readonly #tools = new Map<string, ToolEntry>();
  readonly #resources = new Map<string, ResourceEntry>();
  readonly #templates = new Map<string, ResourceTemplateEntry>();
  readonly #prompts = new Map<string, PromptEntry>();
  readonly #listeners = new Set<CatalogChangeListener>();
  readonly #updateListeners = new Set<(uri: string) => void>();
  // Listing caches, dropped on any change of their kind.
  #toolList: Tool[] | undefined;
  #resourceList: Resource[] | undefined;
  #templateList: ResourceTemplateType[] | undefined;
  #promptList: Prompt[] | undefined;
  /** What `tools/list` shows of each enabled tool (code mode, deferred-loading hints). */
  #toolListing: ToolListing | undefined;
  /** The pin book's screen every plugin's batch passes (none: everything enters). */
  #screen: CatalogScreen | undefined;

  // ---- lookups (the call path) ----

  getTool(name: string): ToolEntry | undefined {
    return this.#tools.get(name);
  }

  getResource(uri: string): ResourceEntry | undefined {
    return this.#resources.get(uri);
  }

  getTemplate(uriTemplate: string): ResourceTemplateEntry | undefined {
    return this.#templates.get(uriTemplate);
  }

  getPrompt(name: string): PromptEntry | undefined {
    return this.#prompts.get(name);
  }

  /** The first enabled template that matches a concrete URI, with the extracted variables. */
  matchTemplate(uri: string): { entry: ResourceTemplateEntry; variables: Variables } | undefined {
    for (const entry of this.#templates.values()) {
      if (!entry.enabled) continue;
      const variables = entry.matcher.match(uri);
      if (variables) return { entry, variables };
    }
    return undefined;
  }

  /** A tool the screen holds back, with why: for the call path's error. */
  heldTool(name: string): { entry: ToolEntry; reason: string } | undefined {
    return this.#screen?.heldTool(name);
  }

  heldPrompt(name: string): { entry: PromptEntry; reason: string } | undefined {
    return this.#screen?.heldPrompt(name);
  }

  // ---- listings (cached) ----

  /** What `tools/list` shows: every enabled tool, as the tool listing (if any) decides. */
  listTools(): Tool[] {
    this.#toolList ??= listedTools(this.#tools, this.#toolListing);
    return this.#toolList;
  }

  /**
   * Sets how enabled tools are listed (`undefined`: as they are). Sessions are told the tool
   * list changed; calls by name are not affected.
   */
  setToolListing(listing: ToolListing | undefined): void {
    this.#toolListing = listing;
    this.#changed(new Set(['tools']));
  }

  listResources(): Resource[] {
    this.#resourceList ??= enabledDefinitions(this.#resources);
    return this.#resourceList;
  }

  listTemplates(): ResourceTemplateType[] {
    this.#templateList ??= enabledDefinitions(this.#templates);
    return this.#templateList;
  }

  /** Template entries (enabled), for calling their `list` callbacks. */
  templateEntries(): ResourceTemplateEntry[] {
    return [...this.#templates.values()].filter((entry) => entry.enabled);
  }

  listPrompts(): Prompt[] {
    this.#promptList ??= enabledDefinitions(this.#prompts);
    return this.#promptList;
  }

  tools(): IterableIterator<ToolEntry> {
    return this.#tools.values();
  }

  get size(): { tools: number; resources: number; templates: number; prompts: number } {
    return {
      tools: this.#tools.size,
      resources: this.#resources.size,
      templates: this.#templates.size,
      prompts: this.#prompts.size,
    };
  }

  /** Names owned by one plugin. */
  ownedBy(plugin: string): OwnedNames {
    return {
      tools: keysOwnedBy(this.#tools, plugin),
      resources: keysOwnedBy(this.#resources, plugin),
      templates: keysOwnedBy(this.#templates, plugin),
      prompts: keysOwnedBy(this.#prompts, plugin),
    };
  }

  // ---- changes ----

  /**
   * Every entry of the batch whose name, URI or URI template is already taken — by anyone but
   * `replacing`, the plugin whose entries the batch is about to replace (a reload).
   */
  collisions(batch: CatalogBatch, replacing?: string): Collision[] {
    const found: Collision[] = [];
    const check = (kind: Collision['kind'], map: Map<string, { plugin: string }>, key: string) => {
      const existing = map.get(key);
      if (existing && existing.plugin !== replacing)
        found.push({ kind, key, owner: existing.plugin });
    };
    // A name held back by the screen stays its plugin's: another may not take it meanwhile.
    const held = (kind: 'tool' | 'prompt', key: string) => {
      const owner = this.#screen?.heldOwner(kind, key);
      if (owner !== undefined && owner !== replacing) found.push({ kind, key, owner });
    };
    for (const t of batch.tools) {
      check('tool', this.#tools, t.name);
      held('tool', t.name);
    }
    for (const r of batch.resources) check('resource', this.#resources, r.uri);
    for (const t of batch.templates) check('resource template', this.#templates, t.uriTemplate);
    for (const p of batch.prompts) {
      check('prompt', this.#prompts, p.name);
      held('prompt', p.name);
    }
    return found;
  }

  /**
   * Adds a whole batch, or nothing: throws before changing anything if any key is taken.
   * Listeners hear one change naming every kind the batch touched.
   */
  addBatch(batch: CatalogBatch): void {
    this.replacePlugin(undefined, batch);
  }

  /** Removes everything a plugin owns, announcing one change; returns what was removed. */
  removePlugin(plugin: string): OwnedNames {
    this.#screen?.forget(plugin);
    const owned = this.#remove(plugin);
    this.#changed(kindsOf(owned.tools, [...owned.resources, ...owned.templates], owned.prompts));
    return owned;
  }

  /**
   * Swaps a plugin's entries for a new batch in one step (a reload), or adds the batch when
   * `plugin` is undefined. Throws before changing anything if a key is taken by someone else.
   * Listeners hear one change naming every kind that was touched.
   */
  replacePlugin(plugin: string | undefined, batch: CatalogBatch): OwnedNames {
    const collisions = this.collisions(batch, plugin);
    if (collisions.length > 0) {
      const c = collisions[0];
      throw new Error(`${c.kind} '${c.key}' is already registered by '${c.owner}'`);
    }
    const owner = plugin ?? batch.tools[0]?.plugin ?? batch.prompts[0]?.plugin;
    const admitted =
      this.#screen && owner !== undefined ? this.#screen.screen(owner, batch) : batch;
    const removed = plugin === undefined ? emptyOwned() : this.#remove(plugin);
    for (const t of admitted.tools) this.#tools.set(t.name, t);
    for (const r of admitted.resources) this.#resources.set(r.uri, r);
    for (const t of admitted.templates) this.#templates.set(t.uriTemplate, t);
    for (const p of admitted.prompts) this.#prompts.set(p.name, p);
    this.#changed(
      kindsOf(
        [...removed.tools, ...batch.tools],
        [...removed.resources, ...removed.templates, ...batch.resources, ...batch.templates],
        [...removed.prompts, ...batch.prompts],
      ),
    );
    return removed;
  }

  /**
   * Screens every later batch (the pin book's screen); entries it releases come back through
   * {@link release}.
   */
  setScreen(screen: CatalogScreen): void {
    this.#screen = screen;
  }

  /** Adds entries the screen held back and now releases; a key taken meanwhile is skipped. */
  release(batch: Pick<CatalogBatch, 'tools' | 'prompts'>): void {
    const tools = batch.tools.filter((t) => !this.#tools.has(t.name));
    const prompts = batch.prompts.filter((p) => !this.#prompts.has(p.name));
    for (const t of tools) this.#tools.set(t.name, t);
    for (const p of prompts) this.#prompts.set(p.name, p);
    this.#changed(kindsOf(tools, [], prompts));
  }

  #remove(plugin: string): OwnedNames {
    const owned = this.ownedBy(plugin);
    for (const name of owned.tools) this.#tools.delete(name);
    for (const uri of owned.resources) this.#resources.delete(uri);
    for (const t of owned.templates) this.#templates.delete(t);
    for (const name of owned.prompts) this.#prompts.delete(name);
    return owned;
  }

  /** Removes one entry if it is still the one registered under its key. */
  removeEntry(
    entry: ToolEntry | ResourceEntry | ResourceTemplateEntry | PromptEntry,
    kind: 'tool' | 'resource' | 'template' | 'prompt',
  ): void {
    const [map, key, changed] = this.#slot(entry, kind);
    if (map.get(key) !== entry) return;
    map.delete(key);
    this.#changed(new Set([changed]));
  }

  /** Announces that an entry of this kind was updated in place (enabled, title, …). */
  touched(kind: CatalogKind): void {
    this.#changed(new Set([kind]));
  }

  onChange(listener: CatalogChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells listeners (sessions that subscribed) that one resource's content changed. */
  resourceUpdated(uri: string): void {
    for (const listener of this.#updateListeners) listener(uri);
  }

  onResourceUpdated(listener: (uri: string) => void): () => void {
    this.#updateListeners.add(listener);
    return () => this.#updateListeners.delete(listener);
  }

  #slot(
    entry: ToolEntry | ResourceEntry | ResourceTemplateEntry | PromptEntry,
    kind: 'tool' | 'resource' | 'template' | 'prompt',
  ): [Map<string, unknown>, string, CatalogKind] {
    switch (kind) {
      case 'tool':
        return [this.#tools, (entry as ToolEntry).name, 'tools'];
      case 'resource':
        return [this.#resources, (entry as ResourceEntry).uri, 'resources'];
      case 'template':
        return [this.#templates, (entry as ResourceTemplateEntry).uriTemplate, 'resources'];
      case 'prompt':
        return [this.#prompts, (entry as PromptEntry).name, 'prompts'];
    }
  }

  #changed(kinds: Set<CatalogKind>): void {
    if (kinds.size === 0) return;
    if (kinds.has('tools')) this.#toolList = undefined;
    if (kinds.has('resources')) {
      this.#resourceList = undefined;
      this.#templateList = undefined;
    }
    if (kinds.has('prompts')) this.#promptList = undefined;
    for (const listener of this.#listeners) {
      try {
        listener(kinds);
      } catch {
        // A listener's failure must not undo or hide a committed change from the others.
      }
    }
  }
}

function emptyOwned(): OwnedNames {
  return { tools: [], resources: [], templates: [], prompts: [] };
}

function kindsOf(tools: unknown[], resources: unknown[], prompts: unknown[]): Set<CatalogKind> {
  const kinds = new Set<CatalogKind>();
  if (tools.length > 0) kinds.add('tools');
  if (resources.length > 0) kinds.add('resources');
  if (prompts.length > 0) kinds.add('prompts');
  return kinds;
}

/**
 * Enabled definitions sorted by key: the same catalog lists in the same order whatever order
 * plugins loaded or reloaded in (2026-07-28 asks for a deterministic `tools/list` so clients
 * and prompt caches see a stable list).
 */
function enabledDefinitions<D>(map: Map<string, { enabled: boolean; definition: D }>): D[] {
  const out: D[] = [];
  for (const key of [...map.keys()].sort()) {
    const entry = map.get(key);
    if (entry?.enabled) out.push(entry.definition);
  }
  return out;
}

/** Enabled tools in name order, each as `listing` decides (left out when it says undefined). */
function listedTools(tools: Map<string, ToolEntry>, listing: ToolListing | undefined): Tool[] {
  if (listing === undefined) return enabledDefinitions(tools);
  const out: Tool[] = [];
  for (const key of [...tools.keys()].sort()) {
    const entry = tools.get(key);
    const listed = entry?.enabled ? listing(entry) : undefined;
    if (listed) out.push(listed);
  }
  return out;
}

function keysOwnedBy(map: Map<string, { plugin: string }>, plugin: string): string[] {
  const out: string[] = [];
  for (const [key, entry] of map) if (entry.plugin === plugin) out.push(key);
  return out;
}
