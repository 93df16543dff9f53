/**
 * Local failures of upstream connections, with string codes callers can branch on (the proxy
 * turns them into `isError` results, the ipybox tool server into typed errors for kernel code).
 * Messages name the upstream and the field or variable at fault, never a secret's value.
 *
 * @module
 */

export type UpstreamErrorCode =
  /** The params object is malformed (a field missing, of the wrong type, unknown). */
  | 'INVALID_PARAMS'
  /** A `${VAR}` placeholder names an unset variable, or the expanded URL is not a URL. */
  | 'EXPANSION_FAILED'
  /** The command does not exist or is not executable, or `cwd` does not exist. */
  | 'START_FAILED'
  /** The server was reached but did not finish `initialize` in time. */
  | 'INITIALIZE_TIMEOUT'
  /** The server could not be reached, or closed the connection during `initialize`. */
  | 'CONNECT_FAILED'
  /** The connection ended while a request was in flight (the server exited or was killed). */
  | 'CONNECTION_CLOSED'
  /** A request got no answer within its timeout. */
  | 'REQUEST_TIMEOUT'
  /** The caller's AbortSignal cancelled the request (the upstream was told). */
  | 'CANCELLED'
  /** The upstream asked the caller a question (elicitation, sampling) the caller cannot answer. */
  | 'INPUT_UNAVAILABLE'
  /** The upstream answered with something that is not MCP (e.g. a list without its array). */
  | 'PROTOCOL_ERROR'
  /** A pool was asked for a name it has no definition for. */
  | 'UNKNOWN_UPSTREAM'
  /** The connection was closed by its owner; it will not reconnect. */
  | 'CLOSED';

export class UpstreamError extends Error {
  readonly code: UpstreamErrorCode;

  constructor(code: UpstreamErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UpstreamError';
    this.code = code;
  }
}
