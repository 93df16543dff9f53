/**
 * Test helpers for the gate: a logger that keeps its lines and a clock the test moves. Not
 * exported from the package (TOTP codes are `codeAt` of `@mcpbox/test-utils`; a whole gated
 * server is `__fixtures__/gatedServer.ts`).
 *
 * @module
 */
import type { Logger } from '../logging/index.ts';

/** A logger that records every line (message and extra fields) for leak checks. */
export function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const record = (level: string) => (msg: string, extra?: unknown) => {
    lines.push(`${level} ${msg} ${extra === undefined ? '' : JSON.stringify(extra)}`);
  };
  return {
    lines,
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
  };
}

/** A clock the test moves; starts 10 s into a TOTP step so ±1 step stays unambiguous. */
export function testClock(start = 30_000 * 60_000_000 + 10_000) {
  let now = start;
  return {
    now: () => now,
    advance: (seconds: number) => {
      now += seconds * 1000;
    },
  };
}
