/**
 * `ToolServer`: the host-side endpoint kernel code calls to run MCP tools.
 *
 * - `POST /run {server_name, tool_name, tool_args, timeout?}` → `{result}` or `{error, type}`
 *   (always HTTP 200 once the call was understood: the outcome is data). Needs
 *   `Authorization: Bearer <token>`.
 * - `POST /result {handle}` → `{result: {kind, text, …}}` or `{error, type}`: the whole of a tool
 *   result the model saw as a preview, read as the running cell's caller (`resultRoute.ts`).
 * - `GET /status` → `{status: "ok"}` (readiness, no token).
 * - WebSocket `/approval`: the approval channel (see `approval/approvalWebSocket.ts`), with its
 *   own token.
 *
 * It listens on loopback TCP (`127.0.0.1`, an ephemeral port by default) and/or a Unix socket —
 * the sandboxed kernel has no network namespace, but a socket in the workspace stays reachable.
 * Server parameters live only here, in the {@link ToolConnections} (the framework's
 * `UpstreamPool`); the kernel gets an address and a token through {@link ToolServer.kernelEnv}.
 *
 * @module
 */
import { chmod, unlink } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { createLogger, errorMessage, inSpan, type Logger } from '@mcpbox/framework';
import { ApprovalGate } from '../approval/approvalGate.ts';
import { APPROVAL_PATH, ApprovalWebSocketEndpoint } from '../approval/approvalWebSocket.ts';
import { bearerTokenMatches, newToken } from '../bearerTokens.ts';
import { type HttpRoutes, handleHttpRequest, reply } from './httpRoutes.ts';
import { cellResults, type OpenCellResult, readResult } from './resultRoute.ts';
import { RunLane } from './runLane.ts';
import {
  parseToolCall,
  runToolCall,
  type ToolCallReply,
  type ToolConnections,
} from './runToolCall.ts';
import { prepareSocketPath } from './socketPath.ts';
import { UpstreamQuestions } from './upstreamQuestions.ts';

/** Environment variables the generated runtime (`mcptools/_runtime.py`) reads. */
export const TOOL_SERVER_ENV = 'IPYBOX_TOOL_SERVER';
export const TOOL_SERVER_TOKEN_ENV = 'IPYBOX_TOOL_SERVER_TOKEN';

export interface ToolServerOptions {
  /** The upstream servers kernel code may call (the framework's `UpstreamPool`). */
  connections: ToolConnections;
  /** Decides each call. Default: a gate with policy `ask` (calls fail until a client attaches). */
  approval?: ApprovalGate;
  /** Listen on TCP. Default `true`; set `false` to serve only `socketPath`. */
  tcp?: boolean;
  /** TCP host. Default `127.0.0.1`; anything else exposes the host's MCP servers. */
  host?: string;
  /** TCP port. Default `0` (ephemeral). */
  port?: number;
  /** Also listen on this Unix socket (created mode 0600; a stale socket file is replaced). */
  socketPath?: string;
  /** Token kernel code must send. Default: random. */
  token?: string;
  /** Token approval clients must send; kernel code never sees it. Default: random. */
  approvalToken?: string;
  /**
   * Opens a stored tool result as the caller of the running cell (`POST /result`, see
   * `resultRoute.ts`). Default: every read refused (no result store behind this server).
   */
  results?: OpenCellResult;
  /** Per-call timeout when the caller gives none, ms. Default 120 000. */
  callTimeoutMs?: number;
  /** Largest accepted request body, bytes. Default 16 MiB. */
  maxBodyBytes?: number;
  logger?: Logger;
}

export class ToolServer {
  readonly connections: ToolConnections;
  readonly approval: ApprovalGate;
  readonly token: string;
  readonly approvalToken: string;
  /** Where upstreams' questions during calls go: attach the running cell's client here. */
  readonly questions: UpstreamQuestions;
  readonly #options: ToolServerOptions;
  readonly #logger: Logger;
  readonly #approvalEndpoint: ApprovalWebSocketEndpoint;
  /** Each listener: the socket server in front, and node:http behind it (`runLane.ts`). */
  readonly #servers: Array<{ front: ReturnType<typeof createNetServer>; http: Server }> = [];
  readonly #lane: RunLane;
  /** What node:http serves (`httpRoutes.ts`): the requests that do not take the lane. */
  readonly #routes: HttpRoutes;
  #tcpPort: number | undefined;
  #socketPath: string | undefined;

  constructor(options: ToolServerOptions) {
    this.#options = options;
    this.connections = options.connections;
    this.approval = options.approval ?? new ApprovalGate();
    // The user gets as long to answer an upstream's question as to decide an approval.
    this.questions = new UpstreamQuestions(() => this.approval.timeoutMs);
    this.token = options.token ?? newToken();
    this.approvalToken = options.approvalToken ?? newToken();
    this.#logger = options.logger ?? createLogger('ipybox.toolserver');
    this.#approvalEndpoint = new ApprovalWebSocketEndpoint({
      gate: this.approval,
      token: this.approvalToken,
      logger: this.#logger,
    });
    // One limit for both paths, so a body is refused alike whichever one serves it.
    const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
    this.#lane = new RunLane({
      handle: ({ headers, body, signal }) => this.#call(headers, body.toString('utf8'), signal),
      admits: (headers) => bearerTokenMatches(headers.authorization, this.token),
      maxBodyBytes,
      onError: (error) => this.#logger.error(`tool server: ${errorMessage(error)}`),
    });
    this.#routes = {
      token: this.token,
      maxBodyBytes,
      call: (headers, body, signal) => this.#call(headers, body, signal),
      result: (body) =>
        readResult(options.results ?? cellResults(undefined, () => undefined), body),
    };
  }

  /** Starts listening; resolves once every listener is bound. */
  static async start(options: ToolServerOptions): Promise<ToolServer> {
    const server = new ToolServer(options);
    await server.listen();
    return server;
  }

  async listen(): Promise<void> {
    if (this.#servers.length > 0) throw new Error('tool server is already listening');
    const { tcp = true, host = '127.0.0.1', port = 0, socketPath } = this.#options;
    if (!tcp && socketPath === undefined) {
      throw new Error('tool server needs tcp or a socketPath to listen on');
    }
    try {
      if (tcp) {
        const front = await this.#bind((s, done) => s.listen(port, host, done));
        this.#tcpPort = (front.address() as AddressInfo).port;
      }
      if (socketPath !== undefined) {
        await prepareSocketPath(socketPath);
        await this.#bind((s, done) => s.listen(socketPath, done));
        this.#socketPath = socketPath;
        await chmod(socketPath, 0o600); // only our user may connect (the token still applies)
      }
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  /** `http://127.0.0.1:PORT` while listening on TCP. */
  get url(): string | undefined {
    if (this.#tcpPort === undefined) return undefined;
    const { host = '127.0.0.1' } = this.#options;
    return `http://${host.includes(':') ? `[${host}]` : host}:${this.#tcpPort}`;
  }

  /** The Unix socket path while listening on one. */
  get socketPath(): string | undefined {
    return this.#socketPath;
  }

  /** Where kernel code should call: the Unix socket if there is one (`unix:/path`), else TCP. */
  get address(): string {
    if (this.#socketPath !== undefined) return `unix:${this.#socketPath}`;
    if (this.url !== undefined) return this.url;
    throw new Error('tool server is not listening');
  }

  /** `ws://127.0.0.1:PORT/approval` for {@link ApprovalClient} (TCP listener only). */
  get approvalUrl(): string | undefined {
    return this.url === undefined
      ? undefined
      : `${this.url.replace(/^http/, 'ws')}${APPROVAL_PATH}`;
  }

  /** Variables to put into the kernel's environment so generated modules find this server. */
  kernelEnv(): Record<string, string> {
    return { [TOOL_SERVER_ENV]: this.address, [TOOL_SERVER_TOKEN_ENV]: this.token };
  }

  /** Closes every upstream connection; they restart on their next call (ipybox `reset`). */
  async reset(): Promise<void> {
    await this.connections.closeAll();
  }

  /**
   * Stops listening, disconnects approval clients (pending approvals fail) and closes upstream
   * connections. Calls in flight are answered with an error as their connections end.
   */
  async close(): Promise<void> {
    await this.#approvalEndpoint.close();
    const servers = this.#servers.splice(0);
    const closed = Promise.all(
      servers.map(
        ({ front, http }) =>
          new Promise<void>((resolve) => {
            front.close(() => resolve());
            http.closeAllConnections();
          }),
      ),
    );
    // The front server's close waits for every connection, those on the lane too.
    this.#lane.closeAll();
    await closed;
    if (this.#socketPath !== undefined) {
      await unlink(this.#socketPath).catch(() => undefined);
      this.#socketPath = undefined;
    }
    this.#tcpPort = undefined;
    await this.connections.closeAll();
  }

  async #bind(
    listen: (server: ReturnType<typeof createNetServer>, done: () => void) => void,
  ): Promise<ReturnType<typeof createNetServer>> {
    const http = createServer((request, response) => {
      handleHttpRequest(request, response, this.#routes).catch((error) => {
        this.#logger.error(`tool server: ${errorMessage(error)}`);
        if (!response.headersSent) {
          reply(response, 500, { error: 'internal error in the tool server', type: 'tool_error' });
        } else response.destroy();
      });
    });
    http.on('upgrade', (request, socket, head) =>
      this.#approvalEndpoint.handleUpgrade(request, socket, head),
    );
    // Connections arrive here first: kernel code's tool calls are served on the lane, the rest
    // is handed to node:http.
    const front = createNetServer((socket) => this.#lane.accept(socket, http));
    await new Promise<void>((resolve, reject) => {
      front.once('error', reject);
      listen(front, () => {
        front.off('error', reject);
        resolve();
      });
    });
    front.on('error', (error) => this.#logger.error(`tool server: ${errorMessage(error)}`));
    http.on('error', (error) => this.#logger.error(`tool server: ${errorMessage(error)}`));
    this.#servers.push({ front, http });
    return front;
  }

  /** Runs one call, its body read and its token checked; HTTP 200 once it was understood. */
  async #call(
    headers: IncomingHttpHeaders,
    body: string,
    signal: AbortSignal,
  ): Promise<{ status: number; body: unknown }> {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return {
        status: 400,
        body: { error: 'request body is not valid JSON', type: 'bad_request' },
      };
    }
    const parsed = parseToolCall(json);
    if ('error' in parsed) return { status: 400, body: parsed };

    const { server_name, tool_name } = parsed.call;
    // A span continuing the running cell's trace (its `traceparent` header, python/_runtime.py).
    const result: ToolCallReply = await inSpan(
      () => ({
        name: `ipybox.toolserver ${server_name}.${tool_name}`,
        kind: 'server',
        parent: headers,
        attributes: { 'mcpbox.upstream': server_name, 'gen_ai.tool.name': tool_name },
      }),
      () =>
        runToolCall(
          {
            connections: this.connections,
            approval: this.approval,
            defaultTimeoutMs: this.#options.callTimeoutMs ?? 120_000,
            questions: this.questions,
          },
          parsed.call,
          { timeoutMs: parsed.timeoutMs, signal, grant: parsed.grant },
        ),
      (outcome) => ('error' in outcome ? outcome.type : undefined),
    );
    if ('error' in result) {
      this.#logger.info(
        `tool call ${parsed.call.server_name}.${parsed.call.tool_name}: ${result.type}`,
      );
    }
    return { status: 200, body: result };
  }
}
