/**
 * The plugin contract: what a plugin module exports and what its `register()` receives.
 *
 * `PluginServer` mirrors the registration API of the SDK's `McpServer` (`registerTool`,
 * `registerResource`, `registerPrompt` and the short forms `tool`, `resource`, `prompt`), so code
 * written against an `McpServer` works as a plugin. Registrations go to the shared catalog, which
 * every MCP session reads.
 *
 * @module
 */
import type {
  AuthInfo,
  CallToolResult,
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  GetPromptResult,
  ListRootsResult,
  LoggingLevel,
  ReadResourceResult,
  RequestId,
  RequestMeta,
  Resource,
  ResourceTemplate,
  ServerContext,
  ToolAnnotations,
  Variables,
} from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { CatalogView } from '../catalog/catalogView.ts';
import type { AnySchema, ZodRawShapeCompat } from '../catalog/zodCompat.ts';
import type { ClusterLink } from '../cluster/link.ts';
import type { Logger } from '../logging/index.ts';
import type { ClosedSession } from '../session/hub.ts';
import type { AdminSurface } from './admin.ts';

export type { AnySchema, ClosedSession, ZodRawShapeCompat };

/** What a validated schema yields: zod's own inference where it can see it. */
type SchemaOutput<S> = S extends z.ZodType
  ? z.output<S>
  : S extends { '~standard': { types?: { output: infer O } } }
    ? O
    : unknown;
type ShapeOutput<S> = S extends z.ZodRawShape
  ? z.output<z.ZodObject<S>>
  : { [K in keyof S]: SchemaOutput<S[K]> };

export type { Logger };

/** A plugin's own settings (from its config file or the `plugins:` entry); free-form. */
export type PluginConfig = Record<string, unknown>;

/** What a plugin module exports (a `default` export holding `register` is unwrapped too). */
export interface PluginModule {
  register(server: PluginServer, config: PluginConfig): void | Promise<void>;
  /** One line shown by plugin listings when the plugin folder has no `config.yaml`. */
  description?: string;
}

/** A JSON Schema object, passed to clients byte for byte and checked with ajv. */
export type JsonSchemaObject = { type?: string; $schema?: string; [key: string]: unknown };

/** A tool's input or output schema: a zod raw shape, a zod schema, or a raw JSON Schema. */
export type SchemaLike = ZodRawShapeCompat | AnySchema | JsonSchemaObject;

/** The arguments a handler receives for a given input schema. */
export type ArgsOf<S> = S extends ZodRawShapeCompat
  ? ShapeOutput<S>
  : S extends AnySchema
    ? SchemaOutput<S>
    : Record<string, unknown>;

/**
 * The SDK's per-request context (`ctx.mcpReq`, `ctx.http`, `ctx.sessionId`) plus the SDK v1
 * names plugins were written against, kept as aliases: `signal`, `requestId`, `_meta`,
 * `authInfo`, `sendNotification`, `sendRequest`, `closeSSEStream`.
 */
export type RequestExtra = ServerContext & {
  signal: AbortSignal;
  requestId: RequestId;
  _meta?: RequestMeta;
  authInfo?: AuthInfo;
  sendNotification: ServerContext['mcpReq']['notify'];
  sendRequest: ServerContext['mcpReq']['send'];
  /** Closes this request's SSE stream (2025 sessions with an event store): the client polls. */
  closeSSEStream?: () => void;
  /** The session this request came on, when it outlives the request (stdio, 2025 HTTP, SSE). */
  connectionId?: string;
  /** The unlock handle passed as the reserved `gate_handle` argument, for the TOTP gate. */
  gateHandle?: string;
};

/** Options of one question to the client (`ctx.elicit`, `ctx.sample`, `ctx.listRoots`). */
export interface InputOptions {
  /**
   * The question's key in a 2026-07-28 client's `inputRequests` (and so in its
   * `inputResponses`); default `q<n>`, n counting the questions of the call from 0. Keys must
   * differ within one call. 2025 clients get a real request and never see it.
   */
  key?: string;
  /**
   * Withdraws the question when aborted: it rejects with the signal's reason. A 2025 client's
   * request is cancelled; for a tool that keeps running, a 2026 client's retry answering it is
   * refused and the call stops waiting for one. Replayed (2026) questions ignore it.
   */
  signal?: AbortSignal;
}

/**
 * What a handler receives besides its arguments: the SDK's request context plus helpers.
 * The helpers send to the client that made this request (on its HTTP stream, if any).
 *
 * `sample`, `elicit` and `listRoots` work in both protocol eras: a 2025 client gets a real
 * server→client request; for a 2026-07-28 client the call answers `input_required` and the
 * handler runs again, from the start, when the client retries with the answer (so ask the same
 * questions in the same order on every run, and put side effects after the last question).
 * Questions asked together (`Promise.all`) reach a 2026 client in one round.
 */
export type ToolContext = RequestExtra & {
  /**
   * What this request's client declared: per request for a 2026-07-28 client, at `initialize`
   * for a 2025 session — e.g. `extensions['io.modelcontextprotocol/ui']` (MCP Apps).
   */
  readonly clientCapabilities: ClientCapabilities | undefined;
  /** Sends `notifications/progress`; does nothing when the client asked for no progress. */
  reportProgress(progress: number, total?: number, message?: string): Promise<void>;
  /** Sends `notifications/message`, unless the session's `logging/setLevel` filters it out. */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /** Asks the client's model for a completion (`sampling/createMessage`). */
  sample(params: CreateMessageRequestParams, options?: InputOptions): Promise<CreateMessageResult>;
  /** Asks the user for input through the client (`elicitation/create`). */
  elicit(params: ElicitRequestParams, options?: InputOptions): Promise<ElicitResult>;
  /** Asks the client for its roots (`roots/list`). */
  listRoots(options?: InputOptions): Promise<ListRootsResult>;
  /**
   * How `elicit`, `sample` and `listRoots` reach this caller. `live`: a request on the caller's
   * session; the handler waits for the answer and keeps running (2025 sessions). `replay`: the
   * call ends with `input_required` and the handler runs again from the start on the retry, with
   * the answers (2026 requests) — so nothing before a question may have effects that must not
   * repeat. A handler whose questions come from work in progress (a running cell) needs `live`:
   * its tool sets `keepsRunning`, and then every request of either era is `live`.
   */
  readonly inputMode: 'live' | 'replay';
  /**
   * Goes on as a task (the `io.modelcontextprotocol/tasks` extension): `work` runs on with a
   * context of its own, and the handler returns what this returns — the task result the client
   * polls. For a handler that first asks its questions (2026: `input_required` rounds) and then
   * does the long part. Throws -32021 naming the extension when the client did not declare it.
   */
  runAsTask(work: (ctx: ToolContext) => Promise<ToolReturn>): ToolReturn;
};

/** A handler may return plain text (becomes one text block) or a full result. */
export type ToolReturn = string | CallToolResult;

/**
 * A tool handler. As with the SDK's `McpServer`, a tool declared without `inputSchema` gets only
 * the context; with a schema it gets the validated arguments and the context.
 */
export type ToolHandler<S extends SchemaLike | undefined = undefined> = S extends SchemaLike
  ? (args: ArgsOf<S>, ctx: ToolContext) => ToolReturn | Promise<ToolReturn>
  : (ctx: ToolContext) => ToolReturn | Promise<ToolReturn>;

export interface ToolConfig<I extends SchemaLike | undefined = undefined> {
  title?: string;
  description?: string;
  inputSchema?: I;
  outputSchema?: SchemaLike;
  annotations?: ToolAnnotations;
  _meta?: Record<string, unknown>;
  /**
   * The handler's questions come from work in progress (a running cell waiting for an approval)
   * that cannot be re-run: for a 2026-07-28 request the handler runs once and keeps running
   * while the client answers (`inputMode: 'live'`) — each question ends the current request
   * with `input_required`, the client's retry delivers the answer to the waiting handler and
   * waits for what comes next. Not part of the tool's listing. See {@link KeepsRunning}.
   */
  keepsRunning?: boolean | KeepsRunning;
  /**
   * The tool runs something on the host on the caller's behalf (spawns a command, installs
   * packages) or is an operator's switch: a privilege. Listed with
   * `_meta["io.mcpbox/privileged"]: true`; kernel code (code mode, ipybox's `mcptools`) may call
   * it only when the operator allowed privileged tools, and then never without an approval.
   * Direct calls by clients are not affected.
   */
  privileged?: boolean;
}

/** Options of a tool that keeps running (see {@link ToolConfig.keepsRunning}). */
export interface KeepsRunning {
  /**
   * How long a question waits for the client before it fails with `InputTimeoutError` (the
   * handler goes on, and the call no longer waits for a retry). Default 15 minutes, the
   * lifetime of a `requestState`.
   */
  inputTimeoutMs?: number;
  /**
   * Offer each call as a task (the `io.modelcontextprotocol/tasks` extension) to a request that
   * carries the extension in its own capabilities (a 2025 `initialize` does not count): the call answers at once with a task id, and the client polls
   * `tasks/get` (progress messages so far as `statusMessage`), answers questions with
   * `tasks/update` and stops the handler (its signal) with `tasks/cancel`. `'required'`: a
   * client without the extension is refused (-32021) instead of served the plain way.
   */
  tasks?: boolean | 'required';
  /** How long a finished task stays readable with `tasks/get`; default one hour. */
  taskTtlMs?: number;
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
  readonly cluster?: ClusterLink | undefined;
  /**
   * The whole catalog as it is at any moment — every plugin's and mirrored server's tools, a
   * ranked search, calls as a caller through the normal path, change events — for plugins that
   * work over other tools (code mode). Read it while serving, not only in `register()`.
   */
  readonly catalog: CatalogView;

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
}
