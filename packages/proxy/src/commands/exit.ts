/**
 * How a CLI command fails: it prints its reason (one or more lines) and throws
 * {@link ExitError}; {@link runCommand} is the one place that turns errors into exit codes.
 * Known errors (an `ExitError`, invalid configuration, a busy port, a plugin error) print their
 * message only; anything else is a bug and prints its stack.
 *
 * @module
 */

/** "Already reported; exit with this code." Carries no message of its own. */
export class ExitError extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
    this.name = 'ExitError';
  }
}

/** Errors whose message is written for users (they carry a string `code`). */
function isKnown(error: unknown): error is Error & { code: string } {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string';
}

/** Prints `Error: <message>` for a user-facing failure and returns the exit error to throw. */
export function fail(message: string, exitCode = 1): ExitError {
  process.stderr.write(`Error: ${message}\n`);
  return new ExitError(exitCode);
}

/** Runs a command; maps failures to `process.exitCode` (no `process.exit`, so stderr drains). */
export async function runCommand(command: () => Promise<void>): Promise<void> {
  try {
    await command();
  } catch (error) {
    if (error instanceof ExitError) {
      process.exitCode = error.exitCode;
    } else if (isKnown(error)) {
      process.stderr.write(`Error: ${error.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(
        `Internal error (please report it): ${(error as Error)?.stack ?? error}\n`,
      );
      process.exitCode = 1;
    }
  }
}
