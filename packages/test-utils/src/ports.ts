/**
 * A free loopback TCP port, for servers that take their port from the command line or the
 * environment (Redis, a bin's `--port`, server-everything's `PORT`).
 *
 * @module
 */
import { createServer } from 'node:net';

/** A port that was free a moment ago (for servers that take their port from the environment). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
