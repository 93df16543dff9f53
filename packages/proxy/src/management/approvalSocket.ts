/**
 * The approval WebSocket of mcp-proxy (and mcp-factory, which serves the same management
 * listener): `ws://127.0.0.1:<management_port>/proxy/approvals/socket`, the framework's
 * `ApprovalSocket` over the server's desk (`server.approvals`), so an operator's program
 * answers the calls a policy `approve` rule with `approver: operator` holds — ipybox's
 * `ApprovalClient` connects to it as to ipybox's own `/approval`.
 *
 * It opens as the REST API does: the management token as `Authorization: Bearer`, compared in
 * constant time (none configured: loopback callers). A browser never connects — an upgrade
 * carrying an `Origin` is refused — so no web page, same-site or not, answers approvals with an
 * operator's ambient rights; the console has its own page for people.
 *
 * @module
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApprovalSocket, refuseUpgrade } from '@mcpbox/framework';
import { OPERATORS } from '../operations/handlers.ts';
import type { PluginManager } from '../proxy/manager.ts';

export const APPROVAL_SOCKET_PATH = '/proxy/approvals/socket';

/**
 * Serves upgrades of `server` at {@link APPROVAL_SOCKET_PATH}; `refusal` is the API's own
 * request checks (DNS rebinding). Returns the closer (every client disconnected).
 */
export function serveApprovalSocket(
  server: Server,
  manager: PluginManager,
  authorized: (header: string | undefined) => boolean,
  refusal: (req: IncomingMessage) => string | undefined,
): () => Promise<void> {
  const socket = new ApprovalSocket({
    authorize: (request) => authorized(request.headers.authorization),
    open: () => ({ desk: manager.approvals!, close: () => {} }),
    by: OPERATORS.socket,
  });
  server.on('upgrade', (request: IncomingMessage, raw: Duplex, head: Buffer) => {
    const path = new URL(request.url ?? '/', 'http://mgmt').pathname.replace(/\/+$/, '');
    if (path !== APPROVAL_SOCKET_PATH) return refuseUpgrade(raw, 404, 'Not Found');
    if (request.headers.origin !== undefined || refusal(request) !== undefined) {
      return refuseUpgrade(raw, 403, 'Forbidden');
    }
    // No server behind this manager: nothing can wait for an operator here.
    if (manager.approvals === undefined) return refuseUpgrade(raw, 404, 'Not Found');
    socket.handleUpgrade(request, raw, head);
  });
  return () => socket.close();
}
