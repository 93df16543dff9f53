/**
 * What a plugin hears when a client session ends (`server.onSessionClosed`), so state it keeps
 * per session can go with it. Part of the plugin contract; the session hub
 * (`session/hub.ts`) sends it.
 *
 * @module
 */

/** Who a closed session was, so state keyed by it (gate unlocks, kernels) can be freed. */
export interface ClosedSession {
  connectionId: string;
  /** The 2025 `Mcp-Session-Id`, when it had one. */
  sessionId?: string;
}

/** Subscribes to the server's session-close events (`SessionHub.onSessionClosed`). */
export type SessionClosedSource = (listener: (closed: ClosedSession) => void) => () => void;
