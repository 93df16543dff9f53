/**
 * What every `mcp-client` command shares: the flags that say how to reach a server (`--token`,
 * `--transport`, `--protocol`, `--quiet-server`) and the operands that name it (a URL, or a
 * command line after `--`).
 *
 * @module
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { ConnectTarget, HttpTransportChoice, ProtocolChoice } from '../repl/connect.ts';

export interface ConnectionOptions {
  token?: string;
  transport: HttpTransportChoice;
  protocol: ProtocolChoice;
  quietServer?: boolean;
}

/** Adds the connection flags to a command. */
export function withConnectionOptions(command: Command): Command {
  return command
    .addOption(new Option('--token <token>', 'bearer token for HTTP').env('MCP_TOKEN'))
    .addOption(
      new Option('--transport <kind>', 'HTTP transport')
        .choices(['auto', 'streamable-http', 'sse'])
        .default('auto'),
    )
    .addOption(
      new Option(
        '--protocol <version>',
        'MCP protocol revision: auto negotiates (2026-07-28 if the server speaks it, else 2025)',
      )
        // Listed here, not imported, so `--help` does not load the SDK.
        .choices(['auto', '2025-11-25', '2026-07-28'])
        .default('auto'),
    )
    .option('--quiet-server', "hide the stdio server's stderr");
}

/** True for an operand that names an HTTP server rather than a command to run. */
export function isHttpUrl(text: string): boolean {
  return /^https?:\/\//i.test(text);
}

/** `URL` alone means HTTP; anything else (normally after `--`) is a command line to spawn. */
export function targetFromArgs(operands: string[], options: ConnectionOptions): ConnectTarget {
  const [first, ...rest] = operands;
  if (first === undefined) {
    throw new InvalidArgumentError(
      'give a server: mcp-client URL, or mcp-client -- COMMAND [ARGS…]',
    );
  }
  if (rest.length === 0 && isHttpUrl(first)) {
    let url: URL;
    try {
      url = new URL(first);
    } catch {
      throw new InvalidArgumentError(`not a valid URL: ${first}`);
    }
    return {
      kind: 'http',
      url,
      token: options.token,
      transport: options.transport,
      protocol: options.protocol,
    };
  }
  return {
    kind: 'stdio',
    command: first,
    args: rest,
    quietServer: options.quietServer,
    protocol: options.protocol,
  };
}
