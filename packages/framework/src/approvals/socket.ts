/**
 * The approval WebSocket: operators' programs answer waiting calls over JSON-RPC 2.0. One
 * protocol and one implementation for every desk — mcp-proxy and mcp-factory serve
 * `server.approvals` (the framework's {@link ApprovalDesk}) on their management listener,
 * ipybox's tool server serves the calls of its kernel code at `/approval` — so ipybox's
 * `ApprovalClient` speaks to any of them.
 *
 * Server → client, for each call that starts waiting (and for those waiting when it connects):
 * `{"jsonrpc":"2.0","id":"<id>","method":"approve","params":{server_name, tool_name, tool_args,
 * principal, rule, via, expires_at, privileged?}}`
 * Client → server: `{"jsonrpc":"2.0","id":"<id>","result":true|false}` (anything but an explicit
 * `true`, an error included, is a no).
 * Server → client, when a call stops waiting without this client's answer (another operator
 * answered, it expired, its caller went away), or this client's answer came too late:
 * `{"jsonrpc":"2.0","method":"cancelled","params":{"id":"<id>","reason":"..."}}`
 *
 * Who may connect is the host's decision (`authorize`, a bearer token compared in constant
 * time): a token kernel code never sees, or code could approve its own calls.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import type { Logger } from '../contract/logger.ts';
import { errorMessage } from '../errors.ts';
import { lazyRequire } from '../lazy.ts';
import { createLogger } from '../logging/index.ts';
import type { ApprovalDesk, PendingApproval } from './types.ts';

const ws = lazyRequire<typeof import('ws')>('ws');

/**
 * What a connection answers: a desk's list, answers and changes. Any {@link ApprovalDesk} is
 * one; `endedAs` says how a call that left the list ended, when the desk knows.
 */
export interface SocketDesk {
  pending(): Promise<ReadonlyArray<PendingApproval & { readonly privileged?: boolean }>>;
  answer(id: string, approve: boolean, by: string): Promise<{ ok: boolean; reason?: string }>;
  onChange(listener: () => void): () => void;
  endedAs?(id: string): string | undefined;
}

export interface ApprovalSocketOptions {
  /** Whether the upgrade request may answer approvals (its credentials). */
  authorize(request: IncomingMessage): boolean;
  /** The desk a new connection answers, and what its closing releases. */
  open(): { desk: SocketDesk; close(): void };
  /** Who answers over this socket, as grants and the audit trail name it. */
  by: string;
  logger?: Logger;
}

/** A call's wire form in the `approve` request (ipybox's `ToolCall`, and who and why). */
export function approveParams(p: PendingApproval & { readonly privileged?: boolean }) {
  return {
    server_name: p.subject.server,
    tool_name: p.subject.tool,
    tool_args: p.args,
    principal: p.subject.principal,
    rule: p.rule,
    via: p.via,
    // A wait without a limit (ipybox's default) has none to tell.
    ...(Number.isFinite(p.expiresAt) && { expires_at: p.expiresAt }),
    ...(p.privileged === true && { privileged: true as const }),
  };
}

export class ApprovalSocket {
  readonly #options: ApprovalSocketOptions;
  readonly #logger: Logger;
  #wss: WebSocketServer | undefined;

  constructor(options: ApprovalSocketOptions) {
    this.#options = options;
    this.#logger = options.logger ?? createLogger('approvals');
  }

  /** Connected clients. */
  get clientCount(): number {
    return this.#wss?.clients.size ?? 0;
  }

  /** Takes over an HTTP upgrade the host routed here; 401 without the credentials. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (!this.#options.authorize(request)) {
      refuseUpgrade(socket, 401, 'Unauthorized');
      return;
    }
    this.#wss ??= this.#server();
    const wss = this.#wss;
    wss.handleUpgrade(request, socket, head, (client) => wss.emit('connection', client, request));
  }

  /** Disconnects every client. */
  async close(): Promise<void> {
    const wss = this.#wss;
    if (wss === undefined) return;
    for (const client of wss.clients) client.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  }

  #server(): WebSocketServer {
    const wss = new (ws().WebSocketServer)({ noServer: true, maxPayload: 1024 * 1024 });
    wss.on('connection', (client) => this.#serve(client));
    return wss;
  }

  #serve(client: WebSocket): void {
    const { desk, close } = this.#options.open();
    // Calls put to this client and not yet ended; those it answered itself.
    const asked = new Set<string>();
    const answered = new Set<string>();
    let syncing = Promise.resolve();
    const sync = () => {
      syncing = syncing
        .then(async () => {
          const pending = await desk.pending();
          const waiting = new Set(pending.map((p) => p.id));
          for (const p of pending) {
            if (asked.has(p.id)) continue;
            asked.add(p.id);
            send(client, { jsonrpc: '2.0', id: p.id, method: 'approve', params: approveParams(p) });
          }
          for (const id of asked) {
            if (waiting.has(id)) continue;
            asked.delete(id);
            if (!answered.delete(id)) cancel(client, id, desk.endedAs?.(id) ?? 'cancelled');
          }
        })
        .catch((error) => this.#logger.warn(`approval socket: ${errorMessage(error)}`));
    };
    const stop = desk.onChange(sync);
    sync();
    this.#logger.info('approval client connected');

    client.on('message', (data) => {
      const message = parse(data.toString());
      if (message === undefined) {
        send(client, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
        return;
      }
      const id = typeof message.id === 'string' ? message.id : undefined;
      if (id === undefined || !asked.has(id) || answered.has(id)) return; // ended already
      answered.add(id);
      const approve = !('error' in message) && message.result === true;
      desk.answer(id, approve, this.#options.by).then(
        (answer) => {
          // Too late (another operator, expiry): the client drops its prompt, told why.
          if (!answer.ok && !(answer.reason === 'refused' && !approve)) {
            cancel(client, id, answer.reason ?? 'cancelled');
          }
        },
        (error) => {
          this.#logger.warn(`approval answer failed: ${errorMessage(error)}`);
          cancel(client, id, 'unavailable');
        },
      );
    });
    client.on('error', (error) => this.#logger.debug(`approval client: ${errorMessage(error)}`));
    client.on('close', () => {
      stop();
      close();
      this.#logger.info('approval client disconnected');
    });
  }
}

function cancel(client: WebSocket, id: string, reason: string): void {
  send(client, { jsonrpc: '2.0', method: 'cancelled', params: { id, reason } });
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

function send(client: WebSocket, message: unknown): void {
  if (client.readyState === client.OPEN) client.send(JSON.stringify(message));
}

/** Answers an upgrade that is not taken with a plain HTTP status. */
export function refuseUpgrade(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}
