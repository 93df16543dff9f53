/**
 * mcp-client — an interactive MCP client.
 *
 *   mcp-client -- COMMAND [ARGS…]     start a server and talk to it over stdio
 *   mcp-client URL [--token TOKEN]    Streamable HTTP, falling back to HTTP+SSE
 *   --protocol 2025-11-25|2026-07-28  pin the protocol era (default: negotiate, `auto`)
 *
 * Commands are read from the terminal (line editing, history, tab completion) or, when stdin is
 * a pipe, line by line until end of input.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import type { ConnectTarget, HttpTransportChoice, ProtocolChoice } from '../client/connect.ts';
import { packageVersion } from './options.ts';

interface ClientOptions {
  token?: string;
  transport: HttpTransportChoice;
  protocol: ProtocolChoice;
  quietServer?: boolean;
  history: boolean;
}

/** `URL` alone means HTTP; anything else (normally after `--`) is a command line to spawn. */
export function targetFromArgs(operands: string[], options: ClientOptions): ConnectTarget {
  const [first, ...rest] = operands;
  if (first === undefined) {
    throw new InvalidArgumentError(
      'give a server: mcp-client URL, or mcp-client -- COMMAND [ARGS…]',
    );
  }
  if (rest.length === 0 && /^https?:\/\//i.test(first)) {
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

const program = new Command('mcp-client')
  .description('Interactive MCP client: list and call tools, read resources, get prompts.')
  .usage('[options] URL | [options] -- COMMAND [ARGS...]')
  .version(packageVersion(), '-V, --version', 'print the version')
  .argument('<server...>', 'a Streamable HTTP / SSE URL, or (after --) a command to run over stdio')
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
  .option('--quiet-server', "hide the stdio server's stderr")
  .option('--no-history', 'do not read or write ~/.mcp_client_history')
  .showHelpAfterError()
  .action(async (operands: string[], options: ClientOptions) => {
    const target = targetFromArgs(operands, options);
    // Loaded here, not at the top, so `--help` and argument errors do not load the SDK.
    const [{ formatError }, { defaultHistoryFile }, { ReplOutput, runRepl }, { ClientSession }] =
      await Promise.all([
        import('../client/format.ts'),
        import('../client/history.ts'),
        import('../client/repl.ts'),
        import('../client/session.ts'),
      ]);
    const out = new ReplOutput(process.stdout, process.stderr);
    const session = new ClientSession(target, out);
    try {
      out.print(await session.connect());
    } catch (err) {
      process.stderr.write(`mcp-client: could not connect: ${formatError(err)}\n`);
      await session.close();
      process.exitCode = 1;
      return;
    }
    const terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY);
    try {
      const { exitCode } = await runRepl({
        session,
        out,
        input: process.stdin,
        output: process.stdout,
        terminal,
        historyFile: options.history ? defaultHistoryFile() : undefined,
      });
      if (exitCode !== 0) process.exitCode = exitCode;
    } finally {
      await session.close();
    }
  });

try {
  await program.parseAsync(process.argv);
} catch (err) {
  process.stderr.write(`mcp-client: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
