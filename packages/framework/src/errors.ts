/**
 * Local (never serialized) errors of the framework. Protocol errors that cross the wire use the
 * SDK's `McpError`; a throwing tool handler becomes an `isError` result, not an exception.
 *
 * @module
 */

/** String codes of local failures, so callers can branch without parsing messages. */
export type McpboxErrorCode =
  | 'PLUGIN_ALREADY_LOADED'
  | 'PLUGIN_NOT_FOUND'
  | 'PLUGIN_NOT_LOADED'
  | 'PLUGIN_INVALID'
  | 'PLUGIN_REGISTER_FAILED'
  | 'PLUGIN_COLLISION'
  | 'INVALID_SCHEMA'
  | 'NOT_STARTED'
  | 'ALREADY_STARTED'
  | 'TELEMETRY_FAILED';

export class McpboxError extends Error {
  readonly code: McpboxErrorCode;

  constructor(code: McpboxErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'McpboxError';
    this.code = code;
  }
}

/** The message of anything thrown, for results and logs (never the stack). */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
