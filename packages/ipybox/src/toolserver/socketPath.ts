/**
 * The tool server's Unix socket path, checked before it listens there: short enough for
 * `sun_path`, and free — a socket a dead process left behind is replaced, a live server's socket
 * or any other kind of file never is.
 *
 * @module
 */
import { lstat, unlink } from 'node:fs/promises';
import { connect } from 'node:net';

/** Linux `sun_path` holds 108 bytes including the terminating NUL. */
const MAX_SOCKET_PATH_BYTES = 107;

/** Refuses paths too long for a socket; replaces a stale socket, never another kind of file. */
export async function prepareSocketPath(path: string): Promise<void> {
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
    throw new Error(
      `socket path is ${Buffer.byteLength(path)} bytes, over the ${MAX_SOCKET_PATH_BYTES}-byte limit of Unix sockets: ${path}`,
    );
  }
  const stat = await lstat(path).catch(() => undefined);
  if (stat === undefined) return;
  if (!stat.isSocket()) {
    throw new Error(`${path} exists and is not a socket; refusing to replace it`);
  }
  if (await socketAnswers(path)) {
    throw new Error(`another server is listening on ${path}; refusing to replace its socket`);
  }
  await unlink(path); // left behind by a process that died
}

function socketAnswers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}
