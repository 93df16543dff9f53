/**
 * What a tool handler is: its context (`ToolContext`: the SDK's request context, the SDK v1
 * aliases, and the helpers that ask the client — `elicit`, `sample`, `listRoots`, `runAsTask`),
 * what it may return, and how a tool is declared (`ToolConfig`). Part of the plugin contract;
 * sessions build the context (`session/context.ts`) and the catalog calls the handler.
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
  ListRootsResult,
  LoggingLevel,
  ProtocolEra,
  RequestId,
  RequestMeta,
  ServerContext,
  ToolAnnotations,
} from '@modelcontextprotocol/server';
import type { Principal } from './principal.ts';
import type { ArgsOf, SchemaLike } from './schema.ts';

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
  /**
   * This request's protocol era, as the transport entry decided it: the SDK's type, which
   * protocol/era.ts names `Era` (the contract imports nothing of ours).
   */
  era: ProtocolEra;
  /**
   * What this request's client declared: per request for a 2026-07-28 client, at `initialize`
   * for a 2025 session.
   */
  clientCapabilities: ClientCapabilities | undefined;
  /** Who is calling, as authentication decided it (see `contract/principal.ts`). */
  principal: Principal;
  /**
   * The virtual server (view) this request came through: `/mcp/<name>` or a stdio server started
   * with `--view <name>`; undefined for the whole catalog.
   */
  view: string | undefined;
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
