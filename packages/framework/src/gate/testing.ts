/**
 * Test helpers for the gate: a logger that keeps its lines, a clock the test moves, and a gated
 * HTTP server. Not exported from the package (TOTP codes are `codeAt` of `@mcpbox/test-utils`).
 *
 * @module
 */
import { newSecret } from '@mcpbox/test-utils';
import { z } from 'zod';
import type { Logger } from '../logging/index.ts';
import { createServer } from '../server.ts';
import { createGate } from './gate.ts';
import type { GateStateStore } from './store.ts';

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

/**
 * An MCP server over HTTP with the gate group `shell` (10 minutes) and `secret_action` behind
 * it, closed after the test. `store` defaults to the process's (the cluster's once joined).
 */
export async function startGatedServer(
  t: { after: (fn: () => Promise<void>) => void },
  store?: GateStateStore,
) {
  const secret = newSecret();
  const gate = createGate(
    { groups: { shell: { secret_ref: 'S', timeout: 600 } } },
    { env: { S: secret }, logger: recordingLogger(), ...(store ? { store } : {}) },
  );
  const server = createServer({ name: 'gated', transport: 'http', port: 0 });
  gate.registerTools(server);
  server.registerTool(
    'secret_action',
    { inputSchema: { what: z.string() } },
    gate.protect('shell', ({ what }: { what: string }) => `done: ${what}`),
  );
  const url = (await server.start()) as string;
  t.after(() => server.close());
  return { gate, url, secret };
}
