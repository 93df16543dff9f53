/**
 * The plugin registry's public types: what a load takes and returns, a loaded plugin as the
 * registry records it, the summary it gives, and the options it is built with. Kept apart so the
 * text renderers and hosts can name them without the registry's machinery.
 *
 * @module
 */
import type { Catalog } from '../catalog/catalog.ts';
import type { ClusterLink } from '../cluster/link.ts';
import type { AuditRecorder } from '../contract/audit.ts';
import type { CatalogView } from '../contract/catalogView.ts';
import type { Logger } from '../contract/logger.ts';
import type { PluginConfig, PluginModule, ProxyCommands } from '../contract/plugin.ts';
import type { SessionClosedSource } from '../contract/session.ts';
import type { PinMode } from '../pins/types.ts';
import type { SkillRegistry } from '../skills/registry.ts';
import type { PluginSource } from './load.ts';

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
  /** The server's audit trail, handed to every plugin (`server.audit`). */
  audit?: AuditRecorder;
  /** What plugins' `server.onSessionClosed` subscribes to (the server's session hub). */
  onSessionClosed?: SessionClosedSource;
  /** The pin book: each loaded plugin's mode is set before its batch enters the catalog. */
  pins?: PinModes;
  /**
   * The server's skills: each plugin's skills (its `skills/` folder, `registerSkills`) go here,
   * and a plugin that writes skills while serving adds its origins (`server.skillOrigins`).
   */
  skills?: SkillRegistry;
}

/** What the registry tells the pin book of each plugin it commits. */
export interface PinModes {
  /** Settles when the book is read (a load waits for it: nothing enters unscreened). */
  ready(): Promise<void>;
  /** The plugin's own `pin:` setting; `off` for internal plugins; undefined: the default. */
  setMode(plugin: string, mode: PinMode | undefined): void;
}
