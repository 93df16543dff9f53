/**
 * MCP over the process's stdin/stdout: one session for the life of the process. stdout carries
 * only protocol messages; logs go to stderr. When the client closes stdin the session closes,
 * so a server that has nothing else to do can exit.
 *
 * @module
 */
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { SessionHub } from '../session/hub.ts';
import type { MountedTransport } from './streamableHttp.ts';

export interface StdioOptions {
  hub: SessionHub;
  /** Default `process.stdin`. */
  stdin?: Readable;
  /** Default `process.stdout`. */
  stdout?: Writable;
  /** Called once when the client has gone (stdin ended) and the session is closed. */
  onClientGone?: () => void;
}

export async function serveStdio(options: StdioOptions): Promise<MountedTransport> {
  const stdin = options.stdin ?? process.stdin;
  const session = options.hub.open();
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  let gone = false;
  const onEnd = () => {
    if (gone) return;
    gone = true;
    void session.close().finally(() => options.onClientGone?.());
  };
  stdin.once('end', onEnd);
  stdin.once('close', onEnd);
  await session.server.connect(transport);
  return {
    async close() {
      stdin.off('end', onEnd);
      stdin.off('close', onEnd);
      await session.close();
    },
  };
}
