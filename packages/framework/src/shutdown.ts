/**
 * Orderly shutdown for the serving bins (mcp-factory, mcp-proxy, ipybox): closes everything
 * once — on SIGINT/SIGTERM, or when the command asks (stdin closed, start-up failed, the server
 * closed) — and lets the process end by itself so stderr drains. Anything still holding the
 * event loop afterwards (a stuck client socket, an upstream or a kernel that ignores SIGTERM)
 * gets a grace period; a second signal exits at once.
 *
 * @module
 */
import type { Logger } from './contract/logger.ts';

export interface ShutdownOptions {
  /** How long something may still hold the event loop once closed; default 3 s. */
  graceMs?: number;
}

/** Returns `shutdown(reason)`; a `reason` is logged. */
export function createShutdown(
  close: () => Promise<void>,
  log: Logger,
  { graceMs = 3000 }: ShutdownOptions = {},
) {
  let closing: Promise<void> | undefined;
  const shutdown = (reason: string | undefined): Promise<void> => {
    if (closing) return closing;
    if (reason) log.info(`shutting down (${reason})`);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    closing = close().catch((error) => log.error('error while closing', { error }));
    // Unref'd: it fires only if something still holds the event loop once the grace is over.
    setTimeout(() => process.exit(process.exitCode ?? 0), graceMs).unref();
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
