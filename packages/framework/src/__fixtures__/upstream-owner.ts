/**
 * Owns an upstream connection to a stubborn upstream-tools (ignores SIGTERM and end of stdin)
 * that has spawned a grandchild, prints `{guard, server, grandchild}` pids as one JSON line and
 * waits. Tests kill this process with SIGKILL and check the pids disappear.
 */
import { fileURLToPath } from 'node:url';
import { firstText } from '@mcpbox/test-utils';
import { UpstreamConnection } from '../client/connection.ts';

const fixture = fileURLToPath(new URL('./upstream-tools.ts', import.meta.url));
const connection = new UpstreamConnection(
  'stubborn',
  {
    command: process.execPath,
    args: ['--import', 'tsx', fixture],
    env: { UPSTREAM_STUBBORN: '1' },
    cwd: process.cwd(),
  },
  { killGraceSeconds: 0.5 },
);
const who = JSON.parse(firstText(await connection.callTool('whoami', {})));
const grandchild = JSON.parse(firstText(await connection.callTool('spawn_grandchild', {})));
process.stdout.write(
  `${JSON.stringify({ guard: connection.pid, server: who.pid, pgid: who.pgid, grandchild: grandchild.pid })}\n`,
);
setInterval(() => {}, 60_000);
