/**
 * `CompositeToolLogger`: hands each call to several loggers; one failing logger does not stop the
 * others.
 *
 * @module
 */
import type { CallDetails, ToolLogger } from './types.ts';

export class CompositeToolLogger implements ToolLogger {
  readonly #loggers: readonly ToolLogger[];

  constructor(loggers: readonly ToolLogger[]) {
    this.#loggers = [...loggers];
  }

  logCall(
    tool: string,
    params: unknown,
    result: unknown,
    ok: boolean,
    details?: CallDetails,
  ): void {
    for (const logger of this.#loggers) {
      try {
        logger.logCall(tool, params, result, ok, details);
      } catch {
        // A third-party logger that breaks its contract still must not fail the call.
      }
    }
  }

  async flush(): Promise<void> {
    await Promise.allSettled(this.#loggers.map((l) => l.flush()));
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.#loggers.map((l) => l.close()));
  }
}
