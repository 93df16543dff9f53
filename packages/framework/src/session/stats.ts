/**
 * Live counters of an MCP server, read by the health endpoints (`/health/detailed`).
 *
 * @module
 */

export interface ServerCounters {
  /** MCP sessions opened since start (stdio counts one). */
  connections: number;
  /** MCP requests handled (every JSON-RPC request, any method). */
  requests: number;
  /** Requests answered with a JSON-RPC error or an `isError` tool result, plus rejected HTTP requests. */
  errors: number;
  /** `Date.now()` of the last request; `null` before the first. */
  last_request: number | null;
  /** Sessions open right now. */
  sessions: number;
  /** 2025 HTTP sessions closed for being idle too long. */
  sessions_reaped: number;
  /** New 2025 HTTP sessions refused because `max_sessions` were open. */
  sessions_refused: number;
}

export function createCounters(): ServerCounters {
  return {
    connections: 0,
    requests: 0,
    errors: 0,
    last_request: null,
    sessions: 0,
    sessions_reaped: 0,
    sessions_refused: 0,
  };
}
