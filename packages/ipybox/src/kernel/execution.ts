/**
 * One `execute_request` from send to finish. It finishes when both the shell `execute_reply` and
 * the iopub `status: idle` for the request have arrived: the reply alone can overtake the last
 * output on the other socket.
 *
 * @module
 */

import { CodeExecutionError, KernelError } from './errors.ts';
import type { ChannelName, JupyterMessage } from './messages.ts';
import { type ExecutionChunk, type ExecutionOutput, OutputCollector, stripAnsi } from './output.ts';

export interface ExecutionResult extends ExecutionOutput {
  kind: 'result';
  /** IPython's `In [n]` counter for this cell. */
  executionCount: number | null;
}

/** Why the client interrupted the cell, which decides the error reported when it stops. */
export type InterruptReason = {
  code: 'EXECUTION_TIMEOUT' | 'EXECUTION_CANCELLED';
  message: string;
};

const STDIN_HINT =
  ' (code runs without interactive input here: put the data in the code instead of calling input())';

export class Execution {
  readonly done: Promise<ExecutionResult>;
  readonly #collector: OutputCollector;
  #reply: Record<string, unknown> | undefined;
  #idle = false;
  #interrupted: InterruptReason | undefined;
  #resolve!: (result: ExecutionResult) => void;
  #reject!: (error: Error) => void;
  #settled = false;

  constructor(imagesDir: string, onChunk?: (chunk: ExecutionChunk) => void) {
    this.#collector = new OutputCollector(imagesDir, onChunk);
    this.done = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  get output(): ExecutionOutput {
    return this.#collector.output;
  }

  get settled(): boolean {
    return this.#settled;
  }

  /** Records why the client interrupted; the interrupted cell then fails with this reason. */
  markInterrupted(reason: InterruptReason): void {
    this.#interrupted ??= reason;
  }

  handle(channel: ChannelName, message: JupyterMessage): void {
    if (this.#settled) return;
    if (channel === 'shell' && message.header.msg_type === 'execute_reply') {
      this.#reply = message.content;
    } else if (channel === 'iopub') {
      if (message.header.msg_type === 'status') {
        if (message.content.execution_state === 'idle') this.#idle = true;
      } else {
        try {
          this.#collector.handle(message);
        } catch (error) {
          // Saving an image failed (disk full, bad directory): the cell's outcome is this error.
          this.fail(error as Error);
          return;
        }
      }
    }
    if (this.#reply && this.#idle) this.#finish(this.#reply);
  }

  fail(error: Error): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#reject(error);
  }

  #finish(reply: Record<string, unknown>): void {
    this.#settled = true;
    const output = this.#collector.output;
    const executionCount = typeof reply.execution_count === 'number' ? reply.execution_count : null;
    if (reply.status === 'ok') {
      this.#resolve({ kind: 'result', executionCount, ...output });
      return;
    }
    if (this.#interrupted) {
      const { code, message } = this.#interrupted;
      this.#reject(new KernelError(code, `${message} The kernel keeps its state.`, { output }));
      return;
    }
    if (reply.status === 'error') {
      const ename = String(reply.ename ?? 'Error');
      let evalue = String(reply.evalue ?? '');
      if (ename === 'StdinNotImplementedError') evalue += STDIN_HINT;
      const lines = Array.isArray(reply.traceback) ? reply.traceback.map(String) : [];
      this.#reject(new CodeExecutionError(ename, evalue, stripAnsi(lines.join('\n')), output));
      return;
    }
    this.#reject(
      new KernelError(
        'EXECUTION_CANCELLED',
        `the kernel did not run the cell (status ${String(reply.status)})`,
        {
          output,
        },
      ),
    );
  }
}
