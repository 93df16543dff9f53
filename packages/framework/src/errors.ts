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
  | 'TELEMETRY_FAILED'
  | 'UNKNOWN_VIEW'
  | 'PINS_FILE'
  /** A pin approval or rejection found nothing of its target waiting. */
  | 'PIN_NOT_WAITING'
  /** What waits cannot be pinned (it could not be read as a definition): the reason says why. */
  | 'PIN_UNDECIDABLE'
  /** A skills folder (config `skills_dir`, a plugin's `skills/`) cannot be read. */
  | 'SKILLS_FOLDER';

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

/**
 * The one exception the configuration API throws: every problem found, one per line, each as
 * `<source>: <dotted.key>: <what was expected>`. Here, below every layer, because each concern
 * checks its own settings (telemetry, the gate, OAuth) as well as `config/`.
 */
export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';
  /** One line per problem, in the order found. */
  readonly issues: readonly string[];

  constructor(issues: readonly string[]) {
    super(
      issues.length === 1
        ? `invalid configuration: ${issues[0]}`
        : `invalid configuration (${issues.length} problems):\n  ${issues.join('\n  ')}`,
    );
    this.name = 'ConfigError';
    this.issues = issues;
  }
}
