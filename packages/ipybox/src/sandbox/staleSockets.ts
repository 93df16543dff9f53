/**
 * The Unix sockets sandbox-runtime puts straight into the temp directory (its proxy bridges:
 * `claude-http-*.sock`, `claude-socks-*.sock`, `srt-mux-*.sock`, `srt-tt-*.sock`) outlive a
 * SIGKILLed owner. Their names do not say whose they are, so a socket is judged by trying it: one
 * nobody listens on any more (`ECONNREFUSED`) is stale and removed; one that answers, or that we
 * cannot judge, stays.
 *
 * @module
 */
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { removeStale } from '../ownedDirs.ts';

const SANDBOX_SOCKET = /^(claude-http-|claude-socks-|srt-mux-|srt-tt-).*\.sock$/;

/** Resolves true when nothing listens on the socket (connect refused). */
export function nobodyListens(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/** Removes sandbox-runtime sockets in `parent` that nobody listens on. Returns their paths. */
export function sweepStaleSandboxSockets(parent: string = tmpdir()): Promise<string[]> {
  return removeStale(parent, (name) => SANDBOX_SOCKET.test(name), 'socket', nobodyListens);
}
