/**
 * The approval channel for applications: a WebSocket speaking JSON-RPC 2.0, mounted on the tool
 * server's HTTP listener at `/approval`.
 *
 * Server → client: `{"jsonrpc":"2.0","id":"<uuid>","method":"approve","params":{server_name,tool_name,tool_args}}`
 * Client → server: `{"jsonrpc":"2.0","id":"<uuid>","result":true|false}`
 * Server → client, when a request ends without the client's answer (timeout, caller gone):
 * `{"jsonrpc":"2.0","method":"cancelled","params":{"id":"<uuid>","reason":"timeout"}}`
 *
 * Each connection attaches itself to the {@link ApprovalGate} as an approver, so the most recent
 * client decides; when it disconnects, its pending requests fail as `unavailable` and the
 * previous client (if any) decides again. The upgrade needs `Authorization: Bearer <token>`, a
 * token kernel code never sees — otherwise code could approve its own calls.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { createLogger, errorMessage, type Logger } from '@mcpbox/framework';
import type { WebSocket, WebSocketServer } from 'ws';
import { bearerTokenMatches } from '../bearerTokens.ts';
import { ws } from '../lazy.ts';
import type { ApprovalGate } from './approvalGate.ts';
import type { ApprovalRequest } from './approvalRequest.ts';

export const APPROVAL_PATH = '/approval';

export interface ApprovalWebSocketOptions {
  gate: ApprovalGate;
  /** Clients must send `Authorization: Bearer <token>`. */
  token: string;
  logger?: Logger;
}

export class ApprovalWebSocketEndpoint {
  readonly #gate: ApprovalGate;
  readonly #token: string;
  readonly #logger: Logger;
  readonly #wss: WebSocketServer = new (ws().WebSocketServer)({
    noServer: true,
    maxPayload: 1024 * 1024,
  });

  constructor({ gate, token, logger }: ApprovalWebSocketOptions) {
    this.#gate = gate;
    this.#token = token;
    this.#logger = logger ?? createLogger('ipybox.approval');
    this.#wss.on('connection', (ws) => this.#serve(ws));
  }

  /** Number of connected approval clients. */
  get clientCount(): number {
    return this.#wss.clients.size;
  }

  /** Handles an HTTP upgrade for {@link APPROVAL_PATH}; answers 404/401 for anything else. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path !== APPROVAL_PATH) {
      refuse(socket, 404, 'Not Found');
      return;
    }
    if (!bearerTokenMatches(request.headers.authorization, this.#token)) {
      refuse(socket, 401, 'Unauthorized');
      return;
    }
    this.#wss.handleUpgrade(request, socket, head, (ws) =>
      this.#wss.emit('connection', ws, request),
    );
  }

  /** Disconnects every client (their pending requests fail as `unavailable`). */
  async close(): Promise<void> {
    for (const ws of this.#wss.clients) ws.terminate();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }

  #serve(ws: WebSocket): void {
    const waiting = new Map<string, ApprovalRequest>();
    const detach = this.#gate.attach((request) => {
      waiting.set(request.id, request);
      void request.settled.then((outcome) => {
        waiting.delete(request.id);
        // The client decided (accepted/rejected) or must drop its prompt.
        if (outcome !== 'accepted' && outcome !== 'rejected' && ws.readyState === ws.OPEN) {
          send(ws, {
            jsonrpc: '2.0',
            method: 'cancelled',
            params: { id: request.id, reason: outcome },
          });
        }
      });
      send(ws, { jsonrpc: '2.0', id: request.id, method: 'approve', params: request.toJSON() });
      return undefined; // decided when the response arrives
    });
    this.#logger.info('approval client connected');

    ws.on('message', (data) => {
      const message = parse(data.toString());
      if (message === undefined) {
        send(ws, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
        return;
      }
      const request = typeof message.id === 'string' ? waiting.get(message.id) : undefined;
      if (!request) return; // an answer to a request that already ended
      if ('error' in message) request.reject();
      else if (message.result === true) request.accept();
      else request.reject(); // anything but an explicit true is a no
    });
    ws.on('error', (error) => this.#logger.debug(`approval client: ${errorMessage(error)}`));
    ws.on('close', () => {
      detach();
      this.#logger.info('approval client disconnected');
    });
  }
}

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function send(ws: WebSocket, message: unknown): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
}

function refuse(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}
