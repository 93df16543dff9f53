/**
 * `UpstreamConnection`: one named upstream MCP server, connected on first use and restarted on
 * the next use after it died. Requests pass through unchanged (results are not re-validated or
 * trimmed: the caller's own client does that), with progress, cancellation and timeouts.
 *
 * Used by mcp-proxy to mirror another server as a plugin, and by ipybox's tool server to run
 * upstream tools for kernel code.
 *
 * @module
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  type ClientRequest,
  ErrorCode,
  type GetPromptRequest,
  type GetPromptResult,
  type Implementation,
  LoggingMessageNotificationSchema,
  McpError,
  type Progress,
  type Prompt,
  PromptListChangedNotificationSchema,
  type ReadResourceRequest,
  type ReadResourceResult,
  type Resource,
  ResourceListChangedNotificationSchema,
  type ResourceTemplate,
  type ServerCapabilities,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { errorMessage } from '../errors.ts';
import { createLogger, type Logger } from '../logging/index.ts';
import { type ConnectedUpstream, connectUpstream, type TransportKind } from './connect.ts';
import { UpstreamError } from './errors.ts';
import { type EnvMap, expandUpstreamParams } from './expand.ts';
import { describeUpstream, type UpstreamParams } from './params.ts';
import { NO_SDK_TIMEOUT, ProgressRouter, RequestDeadline } from './requestControl.ts';

export type ListKind = 'tools' | 'resources' | 'prompts';

export interface UpstreamConnectionOptions {
  /** Where `${VAR}` placeholders are looked up, at each connect. Default `process.env`. */
  env?: EnvMap;
  /** Spawn/handshake plus `initialize`, in ms. Default 30 000. */
  connectTimeoutMs?: number;
  /** Default per-request timeout in ms (progress notifications restart it). Default 60 000. */
  requestTimeoutMs?: number;
  /** Receives the upstream's stderr lines, its log notifications and our own notes. */
  logger?: Logger;
  /** Called when the upstream sends `notifications/{tools,resources,prompts}/list_changed`. */
  onListChanged?: (kind: ListKind) => void;
  /** How we introduce ourselves in `initialize`. Default `{ name: 'mcpbox', version: '0.1.0' }`. */
  clientInfo?: Implementation;
  /** Seconds a stdio upstream's process group gets between SIGTERM and SIGKILL. Default 2. */
  killGraceSeconds?: number;
}

export interface CallOptions {
  /** Cancels the call: the upstream receives `notifications/cancelled`. */
  signal?: AbortSignal;
  /** Asks the upstream for progress (`_meta.progressToken`) and receives each notification. */
  onprogress?: (progress: Progress) => void;
  /** Overrides `requestTimeoutMs` for this call. */
  timeout?: number;
}

/** Stderr, in the process-wide format, for callers that pass no logger. */
const defaultLogger = createLogger('upstream');

// Results pass through as the upstream sent them: loose schemas keep every field, including
// ones this SDK version does not know. Only what pagination needs is checked.
const LooseResult = z.object({}).passthrough();
const LoosePage = z.object({ nextCursor: z.string().optional() }).passthrough();

const MAX_PAGES = 1000;

export class UpstreamConnection {
  readonly name: string;
  /** The params as written, placeholders intact. */
  readonly params: UpstreamParams;
  readonly #options: Required<Omit<UpstreamConnectionOptions, 'onListChanged'>> &
    Pick<UpstreamConnectionOptions, 'onListChanged'>;
  #live: ConnectedUpstream | undefined;
  #connecting: Promise<ConnectedUpstream> | undefined;
  #closing: Promise<void> | undefined;
  #starts = 0;
  /** Clients whose transport closed; a closed client is never handed out again. */
  readonly #dead = new WeakSet<Client>();
  readonly #progress: ProgressRouter;

  constructor(name: string, params: UpstreamParams, options: UpstreamConnectionOptions = {}) {
    this.name = name;
    this.params = params;
    this.#progress = new ProgressRouter(name);
    this.#options = {
      env: options.env ?? process.env,
      connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
      requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
      logger: options.logger ?? defaultLogger,
      onListChanged: options.onListChanged,
      clientInfo: options.clientInfo ?? { name: 'mcpbox', version: '0.1.0' },
      killGraceSeconds: options.killGraceSeconds ?? 2,
    };
  }

  /** True while a live connection exists (false before first use, after death and close). */
  get connected(): boolean {
    return this.#live !== undefined;
  }

  /** How many times the upstream has been started (or connected to); restarts count too. */
  get starts(): number {
    return this.#starts;
  }

  /** pid of the spawned process (the process-group guard on Linux) while connected over stdio. */
  get pid(): number | undefined {
    return this.#live?.pid;
  }

  get transportKind(): TransportKind | undefined {
    return this.#live?.kind;
  }

  get closed(): boolean {
    return this.#closing !== undefined;
  }

  /** The connected SDK client, connecting (or reconnecting after a crash) first if needed. */
  async client(): Promise<Client> {
    return (await this.#ensure()).client;
  }

  /** What the upstream announced in `initialize` (connects first if needed). */
  async serverCapabilities(): Promise<ServerCapabilities> {
    return (await this.client()).getServerCapabilities() ?? {};
  }

  async callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    const params = args === undefined ? { name } : { name, arguments: args };
    return this.#request('tools/call', params, LooseResult, options) as Promise<CallToolResult>;
  }

  async listTools(): Promise<Tool[]> {
    return this.#listAll('tools', 'tools/list', 'tools') as Promise<Tool[]>;
  }

  async listResources(): Promise<Resource[]> {
    return this.#listAll('resources', 'resources/list', 'resources') as Promise<Resource[]>;
  }

  async listResourceTemplates(): Promise<ResourceTemplate[]> {
    return this.#listAll('resources', 'resources/templates/list', 'resourceTemplates') as Promise<
      ResourceTemplate[]
    >;
  }

  async listPrompts(): Promise<Prompt[]> {
    return this.#listAll('prompts', 'prompts/list', 'prompts') as Promise<Prompt[]>;
  }

  async readResource(
    params: ReadResourceRequest['params'],
    options: CallOptions = {},
  ): Promise<ReadResourceResult> {
    return this.#request(
      'resources/read',
      params,
      LooseResult,
      options,
    ) as Promise<ReadResourceResult>;
  }

  async getPrompt(
    params: GetPromptRequest['params'],
    options: CallOptions = {},
  ): Promise<GetPromptResult> {
    return this.#request('prompts/get', params, LooseResult, options) as Promise<GetPromptResult>;
  }

  /** Closes the connection (ending a stdio upstream's whole process group). Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#shutDown();
    return this.#closing;
  }

  async #shutDown(): Promise<void> {
    const live = this.#live ?? (await this.#connecting?.catch(() => undefined));
    this.#live = undefined;
    if (live) await this.#release(live);
  }

  async #release(live: ConnectedUpstream): Promise<void> {
    if (live.kind === 'streamableHttp') {
      // Tell the server the session is over (DELETE); a server that is gone just fails this.
      await (live.transport as StreamableHTTPClientTransport)
        .terminateSession()
        .catch(() => undefined);
    }
    await live.client.close().catch(() => undefined);
  }

  #ensure(): Promise<ConnectedUpstream> {
    if (this.#closing) {
      return Promise.reject(new UpstreamError('CLOSED', `upstream '${this.name}' was closed`));
    }
    if (this.#live) return Promise.resolve(this.#live);
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #connect(): Promise<ConnectedUpstream> {
    const { logger } = this.#options;
    const expanded = expandUpstreamParams(this.name, this.params, this.#options.env);
    this.#starts += 1;
    const verb = this.#starts === 1 ? 'starting' : 'restarting';
    logger.info(`${verb} upstream '${this.name}': ${describeUpstream(this.params)}`);
    const live = await connectUpstream({
      name: this.name,
      written: this.params,
      expanded,
      timeoutMs: this.#options.connectTimeoutMs,
      logger,
      makeClient: () => this.#makeClient(),
      graceSteps: Math.round(this.#options.killGraceSeconds * 10),
    });
    if (this.#closing) {
      // close() was called while we were connecting; it waits for us but finds nothing to end.
      await this.#release(live);
      throw new UpstreamError('CLOSED', `upstream '${this.name}' was closed`);
    }
    if (this.#dead.has(live.client)) {
      throw new UpstreamError(
        'CONNECT_FAILED',
        `upstream '${this.name}' exited right after initialize`,
      );
    }
    this.#progress.attach(live.transport);
    this.#live = live;
    return live;
  }

  #makeClient(): Client {
    const { logger, onListChanged } = this.#options;
    const client = new Client(this.#options.clientInfo, { capabilities: {} });
    client.onclose = () => {
      this.#dead.add(client);
      if (this.#live?.client !== client) return;
      this.#live = undefined;
      if (!this.#closing) {
        logger.warn(`upstream '${this.name}' stopped; it will be restarted on the next call`);
      }
    };
    client.onerror = (error) => logger.debug(`upstream '${this.name}': ${errorMessage(error)}`);
    const changed = (kind: ListKind) => async () => onListChanged?.(kind);
    client.setNotificationHandler(ToolListChangedNotificationSchema, changed('tools'));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, changed('resources'));
    client.setNotificationHandler(PromptListChangedNotificationSchema, changed('prompts'));
    client.setNotificationHandler(LoggingMessageNotificationSchema, async ({ params }) => {
      const data = typeof params.data === 'string' ? params.data : JSON.stringify(params.data);
      logger.debug(`[upstream ${this.name}] ${params.level}: ${data}`);
    });
    return client;
  }

  async #request(
    method: string,
    params: Record<string, unknown>,
    schema: z.ZodTypeAny,
    options: CallOptions,
  ): Promise<unknown> {
    const live = await this.#ensure();
    const timeout = options.timeout ?? this.#options.requestTimeoutMs;
    const deadline = new RequestDeadline(timeout, options.signal);
    const { onprogress } = options;
    const route = onprogress
      ? this.#progress.register((progress) => {
          deadline.touch();
          onprogress(progress);
        })
      : undefined;
    const withToken = route
      ? { ...params, _meta: { ...(params._meta as object), progressToken: route.token } }
      : params;
    try {
      // Typed as any ClientRequest: these are the standard methods, built by the callers above.
      const request = { method, params: withToken } as ClientRequest;
      // Aborting the signal makes the SDK send notifications/cancelled upstream.
      return await live.client.request(request, schema, {
        signal: deadline.signal,
        timeout: NO_SDK_TIMEOUT,
      });
    } catch (error) {
      throw this.#explainRequestError(error, live, method, deadline, timeout);
    } finally {
      deadline.dispose();
      route?.release();
    }
  }

  async #listAll(capability: ListKind, method: string, key: string): Promise<unknown[]> {
    // Asking a server for a list it does not offer only earns a "method not found".
    if (!(await this.serverCapabilities())[capability]) return [];
    const items: unknown[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let pages = 0; pages < MAX_PAGES; pages++) {
      const result = (await this.#request(
        method,
        cursor === undefined ? {} : { cursor },
        LoosePage,
        {},
      )) as Record<string, unknown> & { nextCursor?: string };
      const found = result[key];
      if (!Array.isArray(found)) {
        throw new UpstreamError(
          'PROTOCOL_ERROR',
          `upstream '${this.name}' answered ${method} without a '${key}' array`,
        );
      }
      items.push(...found);
      cursor = result.nextCursor;
      // A server that repeats a cursor would otherwise keep us here forever.
      if (cursor === undefined || seen.has(cursor)) break;
      seen.add(cursor);
    }
    return items;
  }

  #explainRequestError(
    error: unknown,
    live: ConnectedUpstream,
    method: string,
    deadline: RequestDeadline,
    timeout: number,
  ): unknown {
    if (deadline.timedOut) {
      return new UpstreamError(
        'REQUEST_TIMEOUT',
        `upstream '${this.name}' did not answer ${method} within ${timeout} ms`,
        { cause: error },
      );
    }
    if (deadline.signal.aborted) {
      return new UpstreamError('CANCELLED', `${method} on upstream '${this.name}' was cancelled`, {
        cause: error,
      });
    }
    if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
      return new UpstreamError(
        'CONNECTION_CLOSED',
        `upstream '${this.name}' is not running (it stopped during ${method}); it will be restarted on the next call`,
        { cause: error },
      );
    }
    // An upstream's JSON-RPC error (unknown tool, invalid params …) is its answer: pass it on.
    if (error instanceof McpError) return error;
    // Anything else is the transport failing (an HTTP server gone, a session it forgot):
    // drop this connection so the next call starts a fresh one.
    if (this.#live === live) {
      this.#live = undefined;
      void this.#release(live);
    }
    return new UpstreamError(
      'CONNECTION_CLOSED',
      `upstream '${this.name}' failed during ${method} (${errorMessage(error)}); it will be reconnected on the next call`,
      { cause: error },
    );
  }
}
