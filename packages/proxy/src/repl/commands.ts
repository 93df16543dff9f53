/**
 * The interactive client's command language: one line in, output through `Output`. Each command
 * is an entry in `COMMANDS`; any other first word that names a tool calls that tool.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import {
  type ArgumentsFromText,
  argumentsFromText,
  promptArgumentsSchema,
  stringifyValues,
} from './arguments.ts';
import { type Ask, askArguments } from './askArguments.ts';
import {
  formatCallResult,
  formatError,
  formatInfo,
  formatPromptResult,
  formatPrompts,
  formatReadResult,
  formatResources,
  formatTools,
} from './format.ts';
import { type ClientSession, NotConnectedError, type Output } from './session.ts';

export interface CommandContext {
  session: ClientSession;
  out: Output;
  /** Asks a follow-up question (a tool parameter); null when input has ended. */
  ask: Ask;
  /**
   * A person answers the questions. False for a script (piped input): then only required
   * parameters are asked for, since an optional question would take the next line of the script.
   */
  interactive: boolean;
  /** Aborted when the user presses Ctrl-C during a request. */
  signal?: AbortSignal;
}

/** `failed`: an error was printed or the tool answered with `isError`. */
export type CommandResult = 'ok' | 'failed' | 'quit';

/**
 * A mistake in how a command was typed, or arguments that could not be had: printed as is,
 * without an "Error:" prefix.
 */
class UsageError extends Error {}

/** A tool result with `isError`: already printed as the result, but the command failed. */
class ShownFailure extends Error {}

interface Command {
  names: string[];
  usage: string;
  summary: string;
  /** Throws on failure (`ShownFailure` when the output already says so). */
  run(ctx: CommandContext, rest: string): Promise<void>;
  /** Leaves the REPL after running. */
  quits?: boolean;
}

export const COMMANDS: Command[] = [
  {
    names: ['tools'],
    usage: 'tools',
    summary: 'list the tools',
    async run({ session, out }) {
      out.print(formatTools(await session.listTools()));
    },
  },
  {
    names: ['call'],
    usage: 'call NAME [ARGS]',
    summary: 'call a tool; without arguments, asks for the required parameters',
    async run(ctx, rest) {
      const { name, rest: args } = splitWord(rest);
      if (!name) throw new UsageError('Usage: call NAME [ARGS]');
      const tool = await ctx.session.findTool(name);
      if (!tool) throw new UsageError(`Unknown tool "${name}". Type "tools" to list them.`);
      await callTool(ctx, tool, args);
    },
  },
  {
    names: ['resources'],
    usage: 'resources',
    summary: 'list resources and resource templates',
    async run({ session, out }) {
      const { resources, templates } = await session.listResources();
      out.print(formatResources(resources, templates));
    },
  },
  {
    names: ['read'],
    usage: 'read URI',
    summary: 'read a resource',
    async run({ session, out, signal }, rest) {
      const uri = rest.trim();
      if (!uri) throw new UsageError('Usage: read URI');
      out.print(formatReadResult(await session.client.readResource({ uri }, { signal })));
    },
  },
  {
    names: ['prompts'],
    usage: 'prompts',
    summary: 'list the prompts',
    async run({ session, out }) {
      out.print(formatPrompts(await session.listPrompts()));
    },
  },
  {
    names: ['prompt'],
    usage: 'prompt NAME [ARGS]',
    summary: 'get a prompt; without arguments, asks for the required ones',
    async run(ctx, rest) {
      const { session, out, signal } = ctx;
      const { name, rest: text } = splitWord(rest);
      if (!name) throw new UsageError('Usage: prompt NAME [ARGS]');
      const prompt = await session.findPrompt(name);
      if (!prompt) throw new UsageError(`Unknown prompt "${name}". Type "prompts" to list them.`);
      const schema = promptArgumentsSchema(prompt.arguments);
      const args = await resolveArguments(
        ctx,
        argumentsFromText(text, schema, `prompt ${name}`),
        schema,
      );
      const result = await session.client.getPrompt(
        { name, arguments: stringifyValues(args) },
        { signal },
      );
      out.print(formatPromptResult(result));
    },
  },
  {
    names: ['info'],
    usage: 'info',
    summary: 'server name, version, capabilities and instructions',
    async run({ session, out }) {
      out.print(formatInfo(session.info()));
    },
  },
  {
    names: ['reconnect'],
    usage: 'reconnect',
    summary: 'close the connection and connect again (restarts a stdio server)',
    async run({ session, out }) {
      out.print(await session.reconnect());
    },
  },
  {
    names: ['help', '?'],
    usage: 'help',
    summary: 'this list',
    async run({ out }) {
      out.print(helpText());
    },
  },
  {
    names: ['quit', 'exit', 'q'],
    usage: 'quit',
    summary: 'leave (also exit, q, Ctrl-D)',
    quits: true,
    async run() {},
  },
];

export const COMMAND_NAMES: string[] = COMMANDS.flatMap((c) => c.names).filter((n) => n !== '?');

export function helpText(): string {
  const width = Math.max(...COMMANDS.map((c) => c.usage.length));
  return [
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
    '',
    'ARGS: NAME=VALUE pairs (`get-sum a=1 b=2`), a JSON object (`get-sum {"a": 1, "b": 2}`),',
    'or one value for the sole required parameter (`echo hello`). Quote as in a shell to keep',
    'spaces: `echo "a  b"`, `city=\'New York\'`. Without ARGS the required parameters are asked',
    'for (at a terminal the optional ones too; Enter skips or takes the default).',
    '',
    'Shorthand: TOOL [ARGS] is call TOOL [ARGS]. Tab completes commands and tool names.',
  ].join('\n');
}

/** First word and the remainder, split on the first run of whitespace. */
export function splitWord(text: string): { name: string; rest: string } {
  const match = /^\s*(\S*)\s*([\s\S]*)$/.exec(text);
  return { name: match?.[1] ?? '', rest: match?.[2] ?? '' };
}

/**
 * Runs one line typed at the prompt. Never throws: every failure, including a server that has
 * gone, becomes a message and the prompt comes back.
 */
export async function runLine(line: string, ctx: CommandContext): Promise<CommandResult> {
  const { name, rest } = splitWord(line);
  if (name === '' || name.startsWith('#')) return 'ok';
  try {
    const command = COMMANDS.find((c) => c.names.includes(name));
    if (command) {
      await command.run(ctx, rest);
      return command.quits ? 'quit' : 'ok';
    }
    // Tool shorthand. Without a connection no word can be a tool: say so, not "unknown".
    if (!ctx.session.connected) throw new NotConnectedError();
    const tool = ctx.session.knownTools.find((t) => t.name === name);
    if (tool) {
      await callTool(ctx, tool, rest);
      return 'ok';
    }
    ctx.out.error(`Unknown command "${name}". Type "help" for commands, "tools" for tool names.`);
  } catch (err) {
    if (err instanceof ShownFailure) {
      // printed where it happened
    } else if (err instanceof UsageError) ctx.out.error(err.message);
    else if (ctx.signal?.aborted) ctx.out.error('Cancelled.');
    else ctx.out.error(`Error: ${formatError(err)}${hint(err, ctx.session)}`);
  }
  return 'failed';
}

/** A network failure on a connection we still think is open: say what to do about it. */
function hint(err: unknown, session: ClientSession): string {
  const message = err instanceof Error ? err.message : '';
  if (session.connected && /fetch failed|ECONNREFUSED|socket hang up/.test(message)) {
    return ' — is the server still running? "reconnect" tries again';
  }
  return '';
}

async function callTool(ctx: CommandContext, tool: Tool, text: string): Promise<void> {
  const parsed = argumentsFromText(text, tool.inputSchema, `call ${tool.name}`);
  const args = await resolveArguments(ctx, parsed, tool.inputSchema);
  const result = await ctx.session.client.callTool(
    { name: tool.name, arguments: args },
    {
      signal: ctx.signal,
      // Long-running tools report progress; show it, and let it keep the request alive.
      onprogress: (p) =>
        ctx.out.notice(
          `progress ${p.progress}${p.total !== undefined ? `/${p.total}` : ''}${p.message ? ` ${p.message}` : ''}`,
        ),
      resetTimeoutOnProgress: true,
    },
  );
  // The SDK's return type also admits the pre-2024-11 `toolResult` shape; formatCallResult
  // prints either.
  ctx.out.print(formatCallResult(result as CallToolResult));
  if (result.isError === true) throw new ShownFailure('the tool answered isError');
}

/** Arguments from the command line, or asked for; a `UsageError` when there are none. */
async function resolveArguments(
  ctx: CommandContext,
  parsed: ArgumentsFromText,
  schema: unknown,
): Promise<Record<string, unknown>> {
  if (parsed.kind === 'error') throw new UsageError(parsed.message);
  if (parsed.kind === 'args') return parsed.args;
  const asked = await askArguments(schema, ctx.ask, (m) => ctx.out.error(m), {
    optional: ctx.interactive,
  });
  if (!asked) {
    throw new UsageError('Not sent: input ended before every required parameter was given.');
  }
  return asked;
}
