/**
 * Opens an MCP connection for the interactive client: a child process over stdio, or a URL over
 * Streamable HTTP, falling back to the older HTTP+SSE transport when the server does not speak
 * Streamable HTTP. Either protocol era: `auto` probes with `server/discover` and falls back to
 * the 2025 `initialize` (over stdio the SDK probes on a short-lived second process); a version
 * pins that era.
 */

import type { Client, VersionNegotiationOptions } from '@modelcontextprotocol/client';
import {
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

/** `auto`, or the protocol revision to insist on. */
export type ProtocolChoice = 'auto' | '2025-11-25' | '2026-07-28';

export interface StdioTarget {
  kind: 'stdio';
  /** Which protocol era to speak. Default `auto`. */
  protocol?: ProtocolChoice;
  command: string;
  args: string[];
  /** Drop the server's stderr instead of showing it in the terminal. Default false. */
  quietServer?: boolean;
}

export type HttpTransportChoice = 'auto' | 'streamable-http' | 'sse';

export interface HttpTarget {
  kind: 'http';
  /** Which protocol era to speak. Default `auto`. */
  protocol?: ProtocolChoice;
  url: URL;
  /** Sent as `Authorization: Bearer <token>`; never printed. */
  token?: string;
  /** `auto` tries Streamable HTTP, then HTTP+SSE. */
  transport: HttpTransportChoice;
}

export type ConnectTarget = StdioTarget | HttpTarget;

export interface Connection {
  client: Client;
  /** How the server was reached, for `info` and the banner: `stdio (pid 123)`. */
  via: string;
  /** Ends the session: terminates an HTTP session, stops a stdio child. */
  close(): Promise<void>;
}

/**
 * @param newClient makes a fresh, unconnected `Client`; the SSE fallback needs a second one
 *   because a `Client` that failed to connect keeps its half-set-up state.
 */
export async function connect(target: ConnectTarget, newClient: () => Client): Promise<Connection> {
  const negotiated = () => {
    const client = newClient();
    client.setVersionNegotiation(negotiation(target.protocol ?? 'auto'));
    return client;
  };
  return target.kind === 'stdio'
    ? connectStdio(target, negotiated())
    : connectHttp(target, negotiated, newClient);
}

/** The SDK's negotiation mode for a choice: a 2025 pin is the plain `initialize` handshake. */
function negotiation(choice: ProtocolChoice): VersionNegotiationOptions {
  if (choice === 'auto') return { mode: 'auto' };
  if (choice === '2025-11-25') return { mode: 'legacy' };
  return { mode: { pin: choice } };
}

async function connectStdio(target: StdioTarget, client: Client): Promise<Connection> {
  const transport = new StdioClientTransport({
    command: target.command,
    args: target.args,
    // The SDK passes only a safe subset of the environment by default; a developer running
    // their own server from a shell expects it to see the same variables they do.
    env: Object.fromEntries(
      Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined),
    ),
    stderr: target.quietServer ? 'ignore' : 'inherit',
  });
  try {
    await client.connect(transport);
  } catch (err) {
    await client.close().catch(() => {});
    // The SDK reports a child that died during the handshake only as "Connection closed".
    if (!(err instanceof Error) || !/Connection closed/.test(err.message)) throw err;
    throw new Error(
      `${err.message}: the server exited before the MCP handshake finished${target.quietServer ? '' : ' (its stderr is above)'}`,
    );
  }
  return {
    client,
    via: `stdio (${[target.command, ...target.args].join(' ')}, pid ${transport.pid})`,
    close: () => client.close(),
  };
}

/** Statuses with which a server says "not here / not this way": worth trying the SSE transport. */
const FALLBACK_STATUSES = new Set([400, 404, 405]);

/**
 * @param newClient for the HTTP+SSE fallback, which predates 2026-07-28: a plain 2025 client.
 */
async function connectHttp(
  target: HttpTarget,
  negotiated: () => Client,
  newClient: () => Client,
): Promise<Connection> {
  const requestInit: RequestInit | undefined = target.token
    ? { headers: { Authorization: `Bearer ${target.token}` } }
    : undefined;

  if (target.transport !== 'sse') {
    const client = negotiated();
    const transport = new StreamableHTTPClientTransport(target.url, { requestInit });
    try {
      await client.connect(transport);
      return {
        client,
        via: `Streamable HTTP ${target.url.href}`,
        close: async () => {
          // Tell the server the session is over, so it frees it now rather than on a timeout.
          await transport.terminateSession().catch(() => {});
          await client.close();
        },
      };
    } catch (err) {
      await client.close().catch(() => {});
      const fallback =
        target.transport === 'auto' &&
        target.protocol !== '2026-07-28' &&
        err instanceof SdkHttpError &&
        err.status !== undefined &&
        FALLBACK_STATUSES.has(err.status);
      if (!fallback) throw explainHttpError(err);
    }
  }

  const client = newClient();
  const transport = new SSEClientTransport(target.url, { requestInit });
  try {
    await client.connect(transport);
  } catch (err) {
    await client.close().catch(() => {});
    throw explainHttpError(err);
  }
  return { client, via: `HTTP+SSE ${target.url.href}`, close: () => client.close() };
}

/**
 * Adds the one hint a user needs to an HTTP status they can fix. A failure the era probe wrapped
 * ("Version negotiation probe failed: fetch failed") is shown as the failure itself, whose cause
 * names the network reason (ECONNREFUSED, …).
 */
function explainHttpError(err: unknown): unknown {
  if (
    err instanceof SdkError &&
    err.code === SdkErrorCode.EraNegotiationFailed &&
    err.cause instanceof Error
  ) {
    return explainHttpError(err.cause);
  }
  const status = err instanceof SdkHttpError ? err.status : undefined;
  if (status === 401 || status === 403) {
    return new Error(
      `${(err as Error).message} (HTTP ${status}) — the server refused the credentials: check --token or MCP_TOKEN`,
    );
  }
  return err;
}
