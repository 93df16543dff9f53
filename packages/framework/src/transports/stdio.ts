/**
 * MCP over the process's stdin/stdout, both eras: the SDK's `serveStdio` pins the connection's
 * era from its first message (`initialize` → 2025 session; `server/discover` or an enveloped
 * request → 2026) and builds one session server for it, which follows the catalog either way
 * (2026 clients get changes on their `subscriptions/listen` stream).
 *
 * stdout carries only protocol messages: while serving the process's own stdout, anything else
 * written to it — a plugin's `console.log`, a stray `process.stdout.write` — goes to stderr.
 * When the client closes stdin the session closes, so a server that has nothing else to do can
 * exit. The connection is one caller: it may hold `maxListensPerCaller` listen streams, each
 * within the size bounds of listenLimits.ts.
 *
 * @module
 */
import type { Readable, Writable } from 'node:stream';
import { serveStdio as sdkServeStdio } from '@modelcontextprotocol/server/stdio';
import { localPrincipal } from '../auth/principal.ts';
import type { Logger } from '../contract/logger.ts';
import type { DirectExchange } from '../session/directAnswers.ts';
import type { SessionHub } from '../session/hub.ts';
import type { McpSession } from '../session/session.ts';
import {
  DEFAULT_MAX_LISTENS_PER_CALLER,
  isListenRequest,
  type ListenLimits,
  listenSizeProblem,
  sdkCap,
} from './listenLimits.ts';
import { StdioServerTransport } from './stdioTransport.ts';
import type { MountedTransport } from './streamableHttp.ts';

export interface StdioOptions {
  hub: SessionHub;
  /** Default `process.stdin`. */
  stdin?: Readable;
  /** Default `process.stdout`. */
  stdout?: Writable;
  /** Largest message in bytes; default 64 MiB. */
  maxMessageBytes?: number;
  logger?: Logger;
  /** Called once when the client has gone (stdin ended) and the session is closed. */
  onClientGone?: () => void;
  /** `maxListensPerCaller` caps this connection's open listen streams. */
  listenLimits?: ListenLimits;
  /** The view (virtual server) this connection is served; the whole catalog when undefined. */
  view?: string;
}

let reservedStdout: Writable | undefined;

/**
 * Makes the process's stdout the protocol's alone: from now on anything else written to it — a
 * plugin's `console.log`, a stray `process.stdout.write` — goes to stderr, and the returned
 * stream still writes to the real stdout. Call it before loading plugins when serving stdio (a
 * plugin may print while it registers); idempotent, and kept for the life of the process.
 */
export function reserveStdoutForProtocol(): Writable {
  if (reservedStdout) return reservedStdout;
  const stdout = process.stdout;
  const protocol = Object.create(stdout) as Writable;
  protocol.write = stdout.write.bind(stdout) as Writable['write'];
  // The transport gathers a tick's messages into one write (cork … uncork) on the real stream.
  protocol.cork = stdout.cork.bind(stdout);
  protocol.uncork = stdout.uncork.bind(stdout);
  stdout.write = process.stderr.write.bind(process.stderr) as typeof stdout.write;
  reservedStdout = protocol;
  return protocol;
}

export async function serveStdio(options: StdioOptions): Promise<MountedTransport> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? reserveStdoutForProtocol();
  let session: McpSession | undefined;
  let gone = false;
  const exchange: DirectExchange = { send: (reply) => transport.send(reply) };
  const transport: StdioServerTransport = new StdioServerTransport({
    stdin,
    stdout,
    maxMessageBytes: options.maxMessageBytes,
    onrejected: (reason) => options.logger?.warn(`stdio: refused a message: ${reason}`),
    screen: (message) => {
      const problem = isListenRequest(message) ? listenSizeProblem(message) : undefined;
      return problem === undefined ? undefined : { code: -32602, message: problem };
    },
    // Once the session is established, it answers its load-carrying requests itself.
    direct: (message) => session?.answerDirectly(message, exchange) ?? false,
    onclosed: (reason) => {
      options.logger?.info(`stdio: connection closed: ${reason}`);
      if (gone) return;
      gone = true;
      void Promise.resolve(session?.close()).finally(() => options.onClientGone?.());
    },
  });
  const handle = sdkServeStdio(
    // The SDK's entry reads the opening exchange and names the connection's era.
    ({ era }) => {
      // The connection is the local user's: whoever started this process talks on its stdin.
      session = options.hub.open({ era, view: options.view, principal: localPrincipal() });
      return session.server;
    },
    {
      legacy: 'serve',
      transport,
      maxSubscriptions: sdkCap(
        options.listenLimits?.maxListensPerCaller ?? DEFAULT_MAX_LISTENS_PER_CALLER,
      ),
      onerror: (error) => options.logger?.debug(`stdio: ${error.message}`),
    },
  );
  return {
    async close() {
      gone = true;
      await handle.close();
      await session?.close();
    },
  };
}
