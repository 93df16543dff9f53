/**
 * The plugin contract: what a plugin module exports and what its `register()` receives.
 *
 * `PluginServer` mirrors the registration API of the SDK's `McpServer` (`registerTool`,
 * `registerResource`, `registerPrompt` and the short forms `tool`, `resource`, `prompt`), so code
 * written against an `McpServer` works as a plugin. Registrations go to the shared catalog, which
 * every MCP session reads.
 *
 * This folder is the bottom of the framework: it imports nothing of the framework's own, and the
 * implementations (catalog, sessions, cluster, registry) import it, never the reverse.
 *
 * @module
 */

import type {
  GetPromptResult,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ToolAnnotations,
  Variables,
} from '@modelcontextprotocol/server';
import type { SkillSource } from '@modelcontextprotocol/server/ext/skills';
import type { AdminSurface } from './admin.ts';
import type { AuditRecorder } from './audit.ts';
import type { CatalogView } from './catalogView.ts';
import type { PluginClusterLink } from './cluster.ts';
import type { Logger } from './logger.ts';
import type { SchemaLike, ShapeOutput, ZodRawShapeCompat } from './schema.ts';
import type { ClosedSession } from './session.ts';
import type { SkillOrigins } from './skillOrigins.ts';
import type { RequestExtra, ToolConfig, ToolContext, ToolHandler } from './tool.ts';

/** A plugin's own settings (from its config file or the `plugins:` entry); free-form. */
export type PluginConfig = Record<string, unknown>;

/** What a plugin module exports (a `default` export holding `register` is unwrapped too). */
export interface PluginModule {
  register(server: PluginServer, config: PluginConfig): void | Promise<void>;
  /** One line shown by plugin listings when the plugin folder has no `config.yaml`. */
  description?: string;
}

/** Resource metadata as in the SDK: a `Resource` without `uri` and `name`. */
export type ResourceMetadata = Omit<Resource, 'uri' | 'name'>;

/** A read may return plain text (becomes one text content for the URI) or a full result. */
export type ResourceReturn = string | ReadResourceResult;
export type ReadResourceHandler = (
  uri: URL,
  ctx: RequestExtra,
) => ResourceReturn | Promise<ResourceReturn>;
export type ReadResourceTemplateHandler = (
  uri: URL,
  variables: Variables,
  ctx: RequestExtra,
) => ResourceReturn | Promise<ResourceReturn>;

/** Prompt arguments are a zod raw shape of string fields, optionally `completable()`. */
export type PromptArgsShape = ZodRawShapeCompat;
/** A prompt may return plain text (becomes one user message) or a full result. */
export type PromptReturn = string | GetPromptResult;
/** A prompt handler; its context has the tool helpers too (`ctx.elicit` and the others). */
export type PromptHandler<A extends PromptArgsShape | undefined = undefined> =
  A extends PromptArgsShape
    ? (args: ShapeOutput<A>, ctx: ToolContext) => PromptReturn | Promise<PromptReturn>
    : (ctx: ToolContext) => PromptReturn | Promise<PromptReturn>;

export interface PromptConfig<A extends PromptArgsShape | undefined = undefined> {
  title?: string;
  description?: string;
  argsSchema?: A;
}

/** Handle returned by a registration, like the SDK's `RegisteredTool`: each call notifies clients. */
export interface RegisteredHandle {
  readonly name: string;
  readonly enabled: boolean;
  enable(): void;
  disable(): void;
  remove(): void;
}

export interface RegisteredTool extends RegisteredHandle {
  update(updates: {
    title?: string;
    description?: string;
    annotations?: ToolAnnotations;
    _meta?: Record<string, unknown>;
    callback?: ToolHandler<SchemaLike> | ToolHandler;
    enabled?: boolean;
  }): void;
}

export interface RegisteredResource extends RegisteredHandle {
  update(updates: {
    title?: string;
    metadata?: ResourceMetadata;
    callback?: ReadResourceHandler | ReadResourceTemplateHandler;
    enabled?: boolean;
  }): void;
}

export interface RegisteredPrompt extends RegisteredHandle {
  update(updates: {
    title?: string;
    description?: string;
    callback?: PromptHandler<PromptArgsShape> | PromptHandler;
    enabled?: boolean;
  }): void;
}

/** Command extension slot that `mcp-proxy` fills; `undefined` everywhere else. */
export interface ProxyCommands {
  registerCommand(
    name: string,
    handler: (args: Record<string, unknown>) => unknown | Promise<unknown>,
  ): void;
}

/** What a plugin's `register(server, config)` receives. */
export interface PluginServer {
  /** The plugin's name. */
  readonly name: string;
  readonly logger: Logger;
  readonly config: PluginConfig;
  /** Set only when running inside `mcp-proxy`. */
  readonly proxy: ProxyCommands | undefined;
  /**
   * The host's link to its cluster's Redis in cluster mode (`cluster:` or `MCP_REDIS_URL`), for
   * plugins that share their own state between replicas; `undefined` otherwise.
   */
  readonly cluster?: PluginClusterLink | undefined;
  /**
   * The whole catalog as it is at any moment — every plugin's and mirrored server's tools, a
   * ranked search, calls as a caller through the normal path, change events — for plugins that
   * work over other tools (code mode). Read it while serving, not only in `register()`.
   */
  readonly catalog: CatalogView;
  /**
   * Where the server records decisions (`audit_log`), for plugins that decide on their own
   * route — ipybox's approvals of kernel code; `undefined` when the host has none.
   */
  readonly audit?: AuditRecorder | undefined;
  /**
   * The skills the server serves, by origin, for plugins that write skills while serving
   * (ipybox's `save_skill`); `undefined` when the host serves none.
   */
  readonly skillOrigins?: SkillOrigins | undefined;

  registerTool<I extends SchemaLike | undefined = undefined>(
    name: string,
    config: ToolConfig<I>,
    handler: ToolHandler<I>,
  ): RegisteredTool;
  /** Short forms of `McpServer.tool()`: (name, [description], [paramsSchema], [annotations], handler). */
  tool(name: string, ...rest: unknown[]): RegisteredTool;

  registerResource(
    name: string,
    uri: string,
    metadata: ResourceMetadata,
    read: ReadResourceHandler,
  ): RegisteredResource;
  registerResource(
    name: string,
    template: ResourceTemplate,
    metadata: ResourceMetadata,
    read: ReadResourceTemplateHandler,
  ): RegisteredResource;
  /** Short forms of `McpServer.resource()`: (name, uriOrTemplate, [metadata], read). */
  resource(
    name: string,
    uriOrTemplate: string | ResourceTemplate,
    ...rest: unknown[]
  ): RegisteredResource;

  registerPrompt<A extends PromptArgsShape | undefined = undefined>(
    name: string,
    config: PromptConfig<A>,
    handler: PromptHandler<A>,
  ): RegisteredPrompt;
  /** Short forms of `McpServer.prompt()`: (name, [description], [argsSchema], handler). */
  prompt(name: string, ...rest: unknown[]): RegisteredPrompt;

  /** Tells subscribed sessions that a resource changed (`notifications/resources/updated`). */
  notifyResourceUpdated(uri: string): void;

  /**
   * Hears every client session that ends — a 2025 HTTP session closed (`DELETE`) or reaped, an
   * SSE or stdio connection gone — so state a plugin keeps per `ctx.sessionId` or
   * `ctx.connectionId` can go with it. 2026 HTTP requests have no session and never fire it.
   * Returns a remover; call it when the plugin shuts down.
   */
  onSessionClosed(listener: (closed: ClosedSession) => void): () => void;

  /**
   * Runs `cleanup` when this registration ends: the plugin unloaded, replaced by a reload (only
   * the old registration's cleanups run, after the new one is serving), its load or reload
   * failed, or the server shutting down. For what a plugin owns outside the catalog — processes,
   * connections, timers. Awaited; an error is logged and the other cleanups still run.
   */
  onUnload(cleanup: () => unknown): void;

  /**
   * Offers the host's operator rows to look at and actions to take (mcp-proxy's web console
   * renders them), under `name`; publishing the same name again replaces it. The surface goes
   * with this registration (unload, reload). Hosts without a console ignore it.
   */
  publishAdmin(name: string, surface: AdminSurface): void;

  /**
   * Serves skills (SEP-2640) with this registration, as the plugin folder's own `skills/`
   * subfolder is served without asking: a folder of skill folders, each with a `SKILL.md` (a
   * relative path is taken from the plugin's folder), or a `SkillSource` of the SDK's. They go
   * with the registration (unload, reload); a skill name another origin serves first is not
   * served, with a warning naming both.
   */
  registerSkills(from: string | URL | SkillSource): void;
}
