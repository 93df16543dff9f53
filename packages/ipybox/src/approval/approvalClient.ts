/**
 * `ApprovalClient`: how an application approves tool calls made by kernel code. It connects to
 * the tool server's `/approval` WebSocket and hands each request to your handler.
 *
 * @example
 * const client = new ApprovalClient({ url: toolServer.approvalUrl, token: toolServer.approvalToken });
 * client.onApproval(async (request) => {
 *   console.error(`kernel code wants to run ${request}`);
 *   return request.toolName !== 'delete_everything';
 * });
 * await client.connect();
 *
 * @module
 */
import { createLogger, errorMessage, type Logger } from '@mcpbox/framework';
import WebSocket from 'ws';
import {
  type ApprovalOutcome,
  ApprovalRequest,
  type Approver,
  askApprover,
  type ToolCall,
} from './approvalRequest.ts';

export interface ApprovalClientOptions {
  /** `ws://127.0.0.1:PORT/approval` (see `ToolServer.approvalUrl`). */
  url: string;
  /** The tool server's approval token (see `ToolServer.approvalToken`). */
  token: string;
  logger?: Logger;
}

export class ApprovalClient {
  readonly #url: string;
  readonly #token: string;
  readonly #logger: Logger;
  #handler: Approver | undefined;
  #ws: WebSocket | undefined;
  readonly #open = new Map<string, ApprovalRequest>();

  constructor({ url, token, logger }: ApprovalClientOptions) {
    this.#url = url;
    this.#token = token;
    this.#logger = logger ?? createLogger('ipybox.approval-client');
  }

  /**
   * Sets the handler for incoming requests. It returns `true`/`false`, or nothing and calls
   * `request.accept()`/`reject()` later. Without a handler, or if it throws, the call is rejected.
   * `request.settled` resolves `cancelled`/`timeout` if the server withdraws the request.
   */
  onApproval(handler: Approver): this {
    this.#handler = handler;
    return this;
  }

  get connected(): boolean {
    return this.#ws?.readyState === WebSocket.OPEN;
  }

  /** Connects; rejects with a clear message if the server refuses (wrong token) or is down. */
  async connect(): Promise<void> {
    if (this.#ws) throw new Error('approval client is already connected');
    const ws = new WebSocket(this.#url, { headers: { Authorization: `Bearer ${this.#token}` } });
    this.#ws = ws;
    try {
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('unexpected-response', (_request, response) => {
          reject(
            new Error(
              `approval server refused the connection: HTTP ${response.statusCode}${
                response.statusCode === 401 ? ' (wrong approval token)' : ''
              }`,
            ),
          );
        });
        ws.once('error', (error) =>
          reject(new Error(`cannot connect to the approval server: ${errorMessage(error)}`)),
        );
      });
    } catch (error) {
      ws.terminate();
      this.#ws = undefined;
      throw error;
    }
    ws.on('message', (data) => this.#receive(data.toString()));
    ws.on('error', (error) => this.#logger.debug(`approval channel: ${errorMessage(error)}`));
    ws.on('close', () => {
      this.#ws = undefined;
      for (const request of this.#open.values()) request.settle('cancelled', 'disconnected');
      this.#open.clear();
    });
  }

  /** Disconnects; requests still open fail on the server side as `unavailable`. */
  async close(): Promise<void> {
    const ws = this.#ws;
    if (!ws) return;
    await new Promise<void>((resolve) => {
      ws.once('close', () => resolve());
      ws.close();
    });
  }

  #receive(text: string): void {
    let message: { id?: unknown; method?: unknown; params?: unknown };
    try {
      message = JSON.parse(text);
    } catch {
      this.#logger.warn('approval server sent invalid JSON');
      return;
    }
    if (message.method === 'cancelled') {
      const { id, reason } = (message.params ?? {}) as { id?: string; reason?: ApprovalOutcome };
      const request = id === undefined ? undefined : this.#open.get(id);
      request?.settle(reason === 'timeout' ? 'timeout' : 'cancelled', 'withdrawn by the server');
      return;
    }
    if (message.method !== 'approve' || typeof message.id !== 'string') return;
    const request = new ApprovalRequest(message.params as ToolCall, message.id);
    const id = message.id;
    this.#open.set(id, request);
    void request.settled.then((outcome) => {
      this.#open.delete(id);
      if (outcome === 'accepted' || outcome === 'rejected') {
        this.#send({ jsonrpc: '2.0', id, result: outcome === 'accepted' });
      }
    });
    this.#decide(request);
  }

  #decide(request: ApprovalRequest): void {
    const handler = this.#handler;
    if (!handler) {
      this.#logger.warn(`no approval handler set: rejecting ${request}`);
      request.reject();
      return;
    }
    askApprover(handler, request, (error) => {
      this.#logger.warn(`approval handler failed, rejecting ${request}: ${errorMessage(error)}`);
      request.reject();
    });
  }

  #send(message: unknown): void {
    if (this.#ws?.readyState === WebSocket.OPEN) this.#ws.send(JSON.stringify(message));
  }
}
