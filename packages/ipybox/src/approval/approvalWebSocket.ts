/**
 * The approval channel for applications: the framework's approval WebSocket (`ApprovalSocket`,
 * JSON-RPC 2.0, the protocol mcp-proxy's `/proxy/approvals/socket` speaks too), mounted on the
 * tool server's HTTP listener at `/approval`.
 *
 * Server → client: `{"jsonrpc":"2.0","id":"<uuid>","method":"approve","params":{server_name,tool_name,tool_args,...}}`
 * Client → server: `{"jsonrpc":"2.0","id":"<uuid>","result":true|false}`
 * Server → client, when a request ends without the client's answer (timeout, caller gone):
 * `{"jsonrpc":"2.0","method":"cancelled","params":{"id":"<uuid>","reason":"timeout"}}`
 *
 * Each connection attaches itself to the {@link ApprovalGate} as an approver (its own
 * {@link RequestDesk}), so the most recent client decides; when it disconnects, its pending
 * requests fail as `unavailable` and the previous client (if any) decides again. The upgrade
 * needs `Authorization: Bearer <token>`, a token kernel code never sees — otherwise code could
 * approve its own calls.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApprovalSocket, createLogger, type Logger, refuseUpgrade } from '@mcpbox/framework';
import { bearerTokenMatches } from '../bearerTokens.ts';
import type { ApprovalGate } from './approvalGate.ts';
import { RequestDesk } from './requestDesk.ts';

export const APPROVAL_PATH = '/approval';

export interface ApprovalWebSocketOptions {
  gate: ApprovalGate;
  /** Clients must send `Authorization: Bearer <token>`. */
  token: string;
  logger?: Logger;
}

export class ApprovalWebSocketEndpoint {
  readonly #socket: ApprovalSocket;

  constructor({ gate, token, logger }: ApprovalWebSocketOptions) {
    this.#socket = new ApprovalSocket({
      authorize: (request) => bearerTokenMatches(request.headers.authorization, token),
      open: () => {
        const desk = new RequestDesk(gate);
        return { desk, close: desk.detach };
      },
      by: 'ipybox:approval-client',
      logger: logger ?? createLogger('ipybox.approval'),
    });
  }

  /** Number of connected approval clients. */
  get clientCount(): number {
    return this.#socket.clientCount;
  }

  /** Handles an HTTP upgrade for {@link APPROVAL_PATH}; answers 404/401 for anything else. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path === APPROVAL_PATH) this.#socket.handleUpgrade(request, socket, head);
    else refuseUpgrade(socket, 404, 'Not Found');
  }

  /** Disconnects every client (their pending requests fail as `unavailable`). */
  close(): Promise<void> {
    return this.#socket.close();
  }
}
