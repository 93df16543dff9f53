/**
 * A whole gated MCP server over HTTP, for tests of the gate end to end (eras, cluster forgery).
 * It assembles the top-level server, so it sits with the other whole-server fixtures rather than
 * in `gate/`, which the server itself builds on.
 *
 * @module
 */
import { newSecret } from '@mcpbox/test-utils';
import { z } from 'zod';
import { createGate } from '../gate/gate.ts';
import type { GateStateStore } from '../gate/store.ts';
import { recordingLogger } from '../gate/testing.ts';
import { createServer } from '../server.ts';

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
