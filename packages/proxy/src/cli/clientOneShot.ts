/**
 * The command lines of `mcp-client call`, `inspect` and `skills`. Declares flags only; the work
 * is in `repl/oneShot.ts`, loaded after the command line parsed, so `--help` and usage errors
 * load no SDK. A command-line mistake exits 2, like the usage errors `repl/oneShot.ts` finds.
 *
 * @module
 */
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { type ConnectionOptions, targetFromArgs, withConnectionOptions } from './clientTarget.ts';
import { collect } from './options.ts';

const SERVER_HELP = 'a Streamable HTTP / SSE URL, or (after --) a command to run over stdio';

function callProgram(argv: string[]): Command {
  return withConnectionOptions(
    new Command('mcp-client call')
      .description(
        'Call one tool and print its result as JSON. Exit code: 0 done, 1 the tool answered ' +
          'isError or the server failed, 2 a usage error (unknown tool, arguments that do not ' +
          'match its input schema; nothing is called then).',
      )
      .usage("TOOL [--arg NAME=VALUE …] [--json '{…}'] [options] -- COMMAND [ARGS…] | URL")
      .argument('<tool>', 'the tool to call')
      .argument('<server...>', SERVER_HELP)
      .option(
        '-a, --arg <name=value>',
        'an argument, typed by the tool schema: numbers, true/false, JSON for objects and arrays (repeatable)',
        collect,
      )
      .option('--json <object>', 'the arguments as a JSON object (--arg pairs override its keys)')
      .option(
        '--timeout <seconds>',
        'give up on the call after this long without progress (default 60)',
        seconds,
      ),
  )
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  mcp-client call echo --arg message=hi -- mcp-factory -p echo\n' +
        '  mcp-client call get-sum --json \'{"a": 1, "b": 2}\' http://127.0.0.1:8000/mcp',
    )
    .action(async (tool: string, server: string[], options: CallOptions) => {
      // Everything after `--` is the server; a tool found there means none was given before it.
      const dashes = argv.indexOf('--');
      if (dashes >= 0 && server.length < argv.length - dashes - 1) {
        process.stderr.write(
          'mcp-client call: give the tool before --: mcp-client call TOOL [--arg NAME=VALUE …] -- COMMAND [ARGS…]\n',
        );
        process.exitCode = 2;
        return;
      }
      const target = targetOrUsageError('call', server, options);
      if (!target) return;
      const { callOnce } = await import('../repl/oneShot.ts');
      process.exitCode = await callOnce(target, {
        tool,
        pairs: options.arg ?? [],
        json: options.json,
        timeoutMs: options.timeout === undefined ? undefined : options.timeout * 1000,
      });
    });
}

interface CallOptions extends ConnectionOptions {
  arg?: string[];
  json?: string;
  timeout?: number;
}

function seconds(value: string): number {
  const n = Number(value);
  if (!(value.trim() !== '' && Number.isFinite(n) && n > 0)) {
    throw new InvalidArgumentError('expected a number of seconds greater than 0.');
  }
  return n;
}

function inspectProgram(_argv: string[]): Command {
  return withConnectionOptions(
    new Command('mcp-client inspect')
      .description(
        'Print the server: serverInfo, protocol version and era, capabilities, tools, ' +
          'resources, resource templates, prompts and skills, as one JSON object.',
      )
      .usage('[options] -- COMMAND [ARGS…] | URL')
      .argument('<server...>', SERVER_HELP),
  ).action(async (server: string[], options: ConnectionOptions) => {
    const target = targetOrUsageError('inspect', server, options);
    if (!target) return;
    const { inspectOnce } = await import('../repl/oneShot.ts');
    process.exitCode = await inspectOnce(target);
  });
}

function skillsProgram(_argv: string[]): Command {
  return withConnectionOptions(
    new Command('mcp-client skills')
      .description(
        "List the server's skills (SEP-2640) as JSON, or print one skill file with --read. " +
          'Every file read is checked against the skill entry (size, SHA-256 digest, frontmatter).',
      )
      .usage('[--read NAME[/PATH]] [options] -- COMMAND [ARGS…] | URL')
      .argument('<server...>', SERVER_HELP)
      .option(
        '--read <skill>',
        "print a skill's file: NAME for its SKILL.md, NAME/PATH for another file, or its skill:// URI",
      ),
  )
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  mcp-client skills -- mcp-factory -p conformance\n' +
        '  mcp-client skills --read conformance-skill/references/GUIDE.md http://127.0.0.1:8000/mcp',
    )
    .action(async (server: string[], options: ConnectionOptions & { read?: string }) => {
      const target = targetOrUsageError('skills', server, options);
      if (!target) return;
      const { skillsOnce } = await import('../repl/oneShot.ts');
      process.exitCode = await skillsOnce(target, options.read);
    });
}

/** The server the operands name; on a bad one, the reason on stderr and exit code 2. */
function targetOrUsageError(kind: string, server: string[], options: ConnectionOptions) {
  try {
    return targetFromArgs(server, options);
  } catch (err) {
    process.stderr.write(`mcp-client ${kind}: ${(err as Error).message}\n`);
    process.exitCode = 2;
    return undefined;
  }
}

/** The one-shot subcommands, each with its program. */
export const ONE_SHOT = {
  call: callProgram,
  inspect: inspectProgram,
  skills: skillsProgram,
} as const;

/** Runs `mcp-client call|inspect|skills` on the arguments after the subcommand's name. */
export async function runOneShotCli(kind: keyof typeof ONE_SHOT, argv: string[]): Promise<void> {
  const program = ONE_SHOT[kind](argv).showHelpAfterError().exitOverride();
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander printed the message (or the help) already.
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    process.stderr.write(
      `mcp-client ${kind}: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    process.exitCode = 2;
  }
}
