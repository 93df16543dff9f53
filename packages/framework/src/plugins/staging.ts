/**
 * The `PluginServer` a plugin's `register()` talks to. It records registrations into a batch
 * instead of touching the catalog, so the registry can check the whole batch for collisions and
 * commit it in one step — or drop it, leaving the catalog as it was. Handles returned to the
 * plugin keep working after the commit (enable, disable, update, remove).
 *
 * @module
 */

import { fileURLToPath } from 'node:url';
import type {
  ResourceTemplate as SdkResourceTemplate,
  ToolAnnotations,
} from '@modelcontextprotocol/server';
import type { SkillSource } from '@modelcontextprotocol/server/ext/skills';
import type { Catalog } from '../catalog/catalog.ts';
import {
  createPromptEntry,
  createResourceEntry,
  createTemplateEntry,
  createToolEntry,
  isResourceTemplate,
  promptDefinition,
  toolDefinition,
} from '../catalog/entries.ts';
import { isZodRawShape } from '../catalog/schema.ts';
import type {
  CatalogBatch,
  CatalogKind,
  PromptEntry,
  ResourceEntry,
  ResourceTemplateEntry,
  ToolEntry,
} from '../catalog/types.ts';
import type { ClusterLink } from '../cluster/link.ts';
import type { AdminSurface } from '../contract/admin.ts';
import type { AuditRecorder } from '../contract/audit.ts';
import type { CatalogView } from '../contract/catalogView.ts';
import type { Logger } from '../contract/logger.ts';
import type {
  PluginConfig,
  PluginServer,
  PromptArgsShape,
  PromptConfig,
  ProxyCommands,
  ReadResourceHandler,
  ReadResourceTemplateHandler,
  RegisteredPrompt,
  RegisteredResource,
  RegisteredTool,
  ResourceMetadata,
} from '../contract/plugin.ts';
import type { SchemaLike } from '../contract/schema.ts';
import type { ClosedSession, SessionClosedSource } from '../contract/session.ts';
import type { SkillOrigins } from '../contract/skillOrigins.ts';
import type { ToolConfig } from '../contract/tool.ts';

export interface StagingServerOptions {
  /** The plugin's name: owner of every entry. */
  plugin: string;
  catalog: Catalog;
  /** What `server.catalog` gives the plugin: the server's view of the whole catalog. */
  view: CatalogView;
  config?: PluginConfig;
  logger: Logger;
  /** Tool and prompt names get `${prefix}_` unless they already start with it. */
  prefix?: string;
  proxy?: ProxyCommands;
  cluster?: ClusterLink;
  audit?: AuditRecorder;
  skillOrigins?: SkillOrigins;
  /** The server's session-close events; without it (a registry on its own) none ever fire. */
  onSessionClosed?: SessionClosedSource;
}

type EntryKind = 'tool' | 'resource' | 'template' | 'prompt';
const LIST_OF: Record<EntryKind, CatalogKind> = {
  tool: 'tools',
  resource: 'resources',
  template: 'resources',
  prompt: 'prompts',
};

export class StagingServer implements PluginServer {
  readonly name: string;
  readonly logger: Logger;
  readonly config: PluginConfig;
  readonly proxy: ProxyCommands | undefined;
  readonly cluster: ClusterLink | undefined;
  readonly audit: AuditRecorder | undefined;
  readonly skillOrigins: SkillOrigins | undefined;
  readonly catalog: CatalogView;
  readonly batch: CatalogBatch = { tools: [], resources: [], templates: [], prompts: [] };
  /** What `onUnload` was given, for the registry to run when this registration ends. */
  readonly cleanups: Array<() => unknown> = [];
  /** What `publishAdmin` was given, by name; the registry keeps it with this registration. */
  readonly admin = new Map<string, AdminSurface>();
  /** What `registerSkills` was given (folders as paths); the registry serves it as origins. */
  readonly skills: Array<string | SkillSource> = [];
  readonly #catalog: Catalog;
  readonly #prefix: string | undefined;
  readonly #onSessionClosed: SessionClosedSource | undefined;
  #committed = false;

  constructor(options: StagingServerOptions) {
    this.name = options.plugin;
    this.logger = options.logger;
    this.config = options.config ?? {};
    this.proxy = options.proxy;
    this.cluster = options.cluster;
    this.audit = options.audit;
    this.skillOrigins = options.skillOrigins;
    this.catalog = options.view;
    this.#catalog = options.catalog;
    this.#prefix = options.prefix || undefined;
    this.#onSessionClosed = options.onSessionClosed;
  }

  /**
   * Moves the batch into the catalog (all or nothing; throws on a collision), replacing the
   * entries of the plugin named by `replacing` in the same step (a reload).
   */
  commit(replacing?: string): void {
    this.#catalog.replacePlugin(replacing, this.batch);
    this.#committed = true;
  }

  prefixed(name: string): string {
    const p = this.#prefix;
    return p === undefined || name.startsWith(`${p}_`) ? name : `${p}_${name}`;
  }

  // ---- tools ----

  registerTool<I extends SchemaLike | undefined = undefined>(
    name: string,
    config: ToolConfig<I>,
    handler: (...args: never[]) => unknown,
  ): RegisteredTool {
    const full = this.prefixed(name);
    if (this.batch.tools.some((t) => t.name === full)) {
      throw new Error(`Tool ${full} is already registered`);
    }
    if (typeof handler !== 'function') throw new Error(`Tool ${full}: handler is not a function`);
    const entry = createToolEntry(
      this.name,
      full,
      config as ToolConfig<SchemaLike | undefined>,
      handler as ToolEntry['handler'],
    );
    this.batch.tools.push(entry);
    return this.#toolHandle(entry, config as ToolConfig<SchemaLike | undefined>);
  }

  tool(name: string, ...rest: unknown[]): RegisteredTool {
    // Same argument grammar as McpServer.tool(): [description], [paramsSchema], [annotations], cb.
    let description: string | undefined;
    let inputSchema: SchemaLike | undefined;
    let annotations: ToolAnnotations | undefined;
    if (typeof rest[0] === 'string') description = rest.shift() as string;
    if (rest.length > 1) {
      const first = rest[0];
      if (isZodRawShape(first)) {
        inputSchema = rest.shift() as SchemaLike;
        if (rest.length > 1 && typeof rest[0] === 'object' && rest[0] !== null) {
          annotations = rest.shift() as ToolAnnotations;
        }
      } else if (typeof first === 'object' && first !== null) {
        if (Object.values(first).some((v) => typeof v === 'object' && v !== null)) {
          throw new Error(
            `Tool ${name} expected a Zod schema or ToolAnnotations, but received an unrecognized object`,
          );
        }
        annotations = rest.shift() as ToolAnnotations;
      }
    }
    return this.registerTool(
      name,
      { description, inputSchema, annotations },
      rest[0] as (...args: never[]) => unknown,
    );
  }

  // ---- resources ----

  registerResource(
    name: string,
    uriOrTemplate: string | SdkResourceTemplate,
    metadata: ResourceMetadata,
    read: ReadResourceHandler | ReadResourceTemplateHandler,
  ): RegisteredResource {
    if (typeof read !== 'function')
      throw new Error(`Resource ${name}: read callback is not a function`);
    if (typeof uriOrTemplate === 'string') {
      if (this.batch.resources.some((r) => r.uri === uriOrTemplate)) {
        throw new Error(`Resource ${uriOrTemplate} is already registered`);
      }
      const entry = createResourceEntry(
        this.name,
        name,
        uriOrTemplate,
        metadata ?? {},
        read as ReadResourceHandler,
      );
      this.batch.resources.push(entry);
      return this.#resourceHandle(entry, 'resource', name);
    }
    if (!isResourceTemplate(uriOrTemplate)) {
      throw new Error(`Resource ${name}: expected a URI string or a ResourceTemplate`);
    }
    const entry = createTemplateEntry(
      this.name,
      name,
      uriOrTemplate,
      metadata ?? {},
      read as ReadResourceTemplateHandler,
    );
    if (this.batch.templates.some((t) => t.uriTemplate === entry.uriTemplate)) {
      throw new Error(`Resource template ${entry.uriTemplate} is already registered`);
    }
    this.batch.templates.push(entry);
    return this.#resourceHandle(entry, 'template', name);
  }

  resource(
    name: string,
    uriOrTemplate: string | SdkResourceTemplate,
    ...rest: unknown[]
  ): RegisteredResource {
    const metadata = typeof rest[0] === 'object' ? (rest.shift() as ResourceMetadata) : {};
    return this.registerResource(
      name,
      uriOrTemplate as string,
      metadata,
      rest[0] as ReadResourceHandler,
    );
  }

  // ---- prompts ----

  registerPrompt<A extends PromptArgsShape | undefined = undefined>(
    name: string,
    config: PromptConfig<A>,
    handler: (...args: never[]) => unknown,
  ): RegisteredPrompt {
    const full = this.prefixed(name);
    if (this.batch.prompts.some((p) => p.name === full)) {
      throw new Error(`Prompt ${full} is already registered`);
    }
    if (typeof handler !== 'function') throw new Error(`Prompt ${full}: handler is not a function`);
    const entry = createPromptEntry(
      this.name,
      full,
      config as PromptConfig<PromptArgsShape | undefined>,
      handler as PromptEntry['handler'],
    );
    this.batch.prompts.push(entry);
    return this.#promptHandle(entry, config as PromptConfig<PromptArgsShape | undefined>);
  }

  prompt(name: string, ...rest: unknown[]): RegisteredPrompt {
    let description: string | undefined;
    let argsSchema: PromptArgsShape | undefined;
    if (typeof rest[0] === 'string') description = rest.shift() as string;
    if (rest.length > 1) argsSchema = rest.shift() as PromptArgsShape;
    return this.registerPrompt(
      name,
      { description, argsSchema },
      rest[0] as (...args: never[]) => unknown,
    );
  }

  notifyResourceUpdated(uri: string): void {
    this.#catalog.resourceUpdated(uri);
  }

  onSessionClosed(listener: (closed: ClosedSession) => void): () => void {
    return this.#onSessionClosed?.(listener) ?? (() => undefined);
  }

  onUnload(cleanup: () => unknown): void {
    this.cleanups.push(cleanup);
  }

  publishAdmin(name: string, surface: AdminSurface): void {
    this.admin.set(name, surface);
  }

  registerSkills(from: string | URL | SkillSource): void {
    this.skills.push(from instanceof URL ? fileURLToPath(from) : from);
  }

  // ---- handles ----

  #remove(entry: ToolEntry | ResourceEntry | ResourceTemplateEntry | PromptEntry, kind: EntryKind) {
    if (this.#committed) {
      this.#catalog.removeEntry(entry, kind);
      return;
    }
    const list = {
      tool: this.batch.tools,
      resource: this.batch.resources,
      template: this.batch.templates,
      prompt: this.batch.prompts,
    }[kind] as unknown[];
    const i = list.indexOf(entry);
    if (i >= 0) list.splice(i, 1);
  }

  #touched(kind: EntryKind): void {
    if (this.#committed) this.#catalog.touched(LIST_OF[kind]);
  }

  #toolHandle(entry: ToolEntry, config: ToolConfig<SchemaLike | undefined>): RegisteredTool {
    const meta = { ...config };
    const handle: RegisteredTool = {
      name: entry.name,
      get enabled() {
        return entry.enabled;
      },
      enable: () => handle.update({ enabled: true }),
      disable: () => handle.update({ enabled: false }),
      remove: () => this.#remove(entry, 'tool'),
      update: (updates) => {
        const { callback, enabled, ...listing } = updates;
        if (callback !== undefined) entry.handler = callback as ToolEntry['handler'];
        if (enabled !== undefined) entry.enabled = enabled;
        if (Object.keys(listing).length > 0) {
          Object.assign(meta, listing);
          entry.definition = toolDefinition(
            entry.name,
            meta,
            entry.definition.inputSchema,
            entry.definition.outputSchema,
          );
        }
        this.#touched('tool');
      },
    };
    return handle;
  }

  #resourceHandle(
    entry: ResourceEntry | ResourceTemplateEntry,
    kind: 'resource' | 'template',
    name: string,
  ): RegisteredResource {
    const handle: RegisteredResource = {
      name,
      get enabled() {
        return entry.enabled;
      },
      enable: () => handle.update({ enabled: true }),
      disable: () => handle.update({ enabled: false }),
      remove: () => this.#remove(entry, kind),
      update: (updates) => {
        if (updates.callback !== undefined) entry.read = updates.callback as never;
        if (updates.enabled !== undefined) entry.enabled = updates.enabled;
        if (updates.metadata !== undefined || updates.title !== undefined) {
          const extra = { ...updates.metadata };
          if (updates.title !== undefined) extra.title = updates.title;
          entry.definition = { ...entry.definition, ...extra } as never;
        }
        this.#touched(kind);
      },
    };
    return handle;
  }

  #promptHandle(
    entry: PromptEntry,
    config: PromptConfig<PromptArgsShape | undefined>,
  ): RegisteredPrompt {
    const { argsSchema: _args, ...meta } = config;
    const handle: RegisteredPrompt = {
      name: entry.name,
      get enabled() {
        return entry.enabled;
      },
      enable: () => handle.update({ enabled: true }),
      disable: () => handle.update({ enabled: false }),
      remove: () => this.#remove(entry, 'prompt'),
      update: (updates) => {
        if (updates.callback !== undefined)
          entry.handler = updates.callback as PromptEntry['handler'];
        if (updates.enabled !== undefined) entry.enabled = updates.enabled;
        if (updates.title !== undefined || updates.description !== undefined) {
          if (updates.title !== undefined) meta.title = updates.title;
          if (updates.description !== undefined) meta.description = updates.description;
          entry.definition = {
            ...promptDefinition(entry.name, meta, undefined),
            arguments: entry.definition.arguments,
          };
        }
        this.#touched('prompt');
      },
    };
    return handle;
  }
}
