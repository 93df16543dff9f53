/**
 * Errors of the kernel layer. `KernelError` carries a string `code` for local failures (start-up,
 * death, timeout, cancel); `CodeExecutionError` is an exception raised by the user's code inside
 * the kernel. Both keep the output produced before the failure, so a caller can still show it.
 *
 * @module
 */
import type { ExecutionOutput } from './output.ts';

/** Why a kernel call failed, so callers can branch without parsing messages. */
export type KernelErrorCode =
  /** The interpreter or `ipykernel` is missing: the message names the Debian package. */
  | 'KERNEL_NOT_FOUND'
  /** The kernel process exited or failed during start-up. */
  | 'KERNEL_START_FAILED'
  /** The kernel did not become ready within the start-up timeout. */
  | 'KERNEL_START_TIMEOUT'
  /** The kernel process died (or stopped answering heartbeats) during a call. */
  | 'KERNEL_DIED'
  /** The cell ran longer than its timeout and was interrupted. */
  | 'EXECUTION_TIMEOUT'
  /** The caller cancelled the cell (abort signal, `cancel()`, or leaving a stream early). */
  | 'EXECUTION_CANCELLED'
  /** The client was closed. */
  | 'CLIENT_CLOSED';

export class KernelError extends Error {
  readonly code: KernelErrorCode;
  /** Output the cell produced before it failed, when the failure happened during a cell. */
  readonly output: ExecutionOutput | undefined;

  constructor(
    code: KernelErrorCode,
    message: string,
    options?: { cause?: unknown; output?: ExecutionOutput },
  ) {
    super(message, options);
    this.name = 'KernelError';
    this.code = code;
    this.output = options?.output;
  }
}

/** An exception raised by the executed code, with IPython's traceback (ANSI codes removed). */
export class CodeExecutionError extends Error {
  readonly ename: string;
  readonly evalue: string;
  /** The traceback as IPython formats it, lines joined with `\n`, no ANSI escape codes. */
  readonly traceback: string;
  /** Output the cell produced before the exception. */
  readonly output: ExecutionOutput;

  constructor(ename: string, evalue: string, traceback: string, output: ExecutionOutput) {
    super(traceback ? `${ename}: ${evalue}\n${traceback}` : `${ename}: ${evalue}`);
    this.name = 'CodeExecutionError';
    this.ename = ename;
    this.evalue = evalue;
    this.traceback = traceback;
    this.output = output;
  }
}
