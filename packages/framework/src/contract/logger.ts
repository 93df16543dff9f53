/**
 * The logger a plugin gets (`server.logger`): four levels, a message and optional fields. Part
 * of the plugin contract; `logging/logger.ts` writes it to stderr.
 *
 * @module
 */

/** Fields added to a record, or the error it is about (its message is logged, never the stack). */
export type LogExtra = Record<string, unknown> | Error;

export interface Logger {
  debug(msg: string, extra?: LogExtra): void;
  info(msg: string, extra?: LogExtra): void;
  warn(msg: string, extra?: LogExtra): void;
  error(msg: string, extra?: LogExtra): void;
}
