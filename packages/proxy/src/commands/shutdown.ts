/**
 * Orderly shutdown for the serving commands: closes everything once — on SIGINT/SIGTERM, or when
 * the command asks (stdin closed, start-up failed) — and lets the process end by itself so stderr
 * drains. Anything still holding the event loop afterwards (a stuck client socket, an upstream
 * that ignores SIGTERM) gets 3 s; a second signal exits at once.
 *
 * @module
 */
import type { Logger } from '@mcpbox/framework';

/** Returns `shutdown(reason)`; a `reason` is logged. */
export function createShutdown(close: () => Promise<void>, log: Logger) {
  let closing: Promise<void> | undefined;
  const shutdown = (reason: string | undefined): Promise<void> => {
    if (closing) return closing;
    if (reason) log.info(`shutting down (${reason})`);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    closing = close().catch((error) => log.error('error while closing', { error }));
    // Unref'd: it fires only if something still holds the event loop 3 s later.
    setTimeout(() => process.exit(process.exitCode ?? 0), 3000).unref();
    return closing;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) process.exit(130);
    void shutdown(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return shutdown;
}
