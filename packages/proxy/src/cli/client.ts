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
import { Command } from 'commander';
import { type ConnectionOptions, targetFromArgs, withConnectionOptions } from './clientTarget.ts';
import { packageVersion } from './options.ts';

interface ClientOptions extends ConnectionOptions {
  history: boolean;
}

// `mcp-client call …`, `inspect …` and `skills …` are one-shot commands with programs of their
// own. They are told apart here, by the first word only, because commander would also take a
// server command after `--` named `call` for the subcommand.
const oneShot = process.argv[2];
if (oneShot === 'call' || oneShot === 'inspect' || oneShot === 'skills') {
  const { runOneShotCli } = await import('./clientOneShot.ts');
  await runOneShotCli(oneShot, process.argv.slice(3));
} else {
  await runInteractiveCli();
}

async function runInteractiveCli(): Promise<void> {
  const program = withConnectionOptions(
    new Command('mcp-client')
      .description('Interactive MCP client: list and call tools, read resources, get prompts.')
      .usage('[options] URL | [options] -- COMMAND [ARGS...]')
      .version(packageVersion(), '-V, --version', 'print the version')
      .argument(
        '<server...>',
        'a Streamable HTTP / SSE URL, or (after --) a command to run over stdio',
      ),
  )
    .option('--no-history', 'do not read or write ~/.mcp_client_history')
    .addHelpText(
      'after',
      '\nOne-shot commands (JSON on stdout, for scripts):\n' +
        "  mcp-client call TOOL [--arg NAME=VALUE …] [--json '{…}'] -- COMMAND [ARGS…] | URL\n" +
        '  mcp-client inspect -- COMMAND [ARGS…] | URL\n' +
        '  mcp-client skills [--read NAME[/PATH]] -- COMMAND [ARGS…] | URL\n' +
        'See `mcp-client call --help`, `inspect --help` and `skills --help`.',
    )
    .showHelpAfterError()
    .action(async (operands: string[], options: ClientOptions) => {
      const target = targetFromArgs(operands, options);
      // Loaded here, not at the top, so `--help` and argument errors do not load the SDK.
      const [{ formatError }, { defaultHistoryFile }, { ReplOutput, runRepl }, { ClientSession }] =
        await Promise.all([
          import('../repl/format.ts'),
          import('../repl/history.ts'),
          import('../repl/repl.ts'),
          import('../repl/session.ts'),
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
}
