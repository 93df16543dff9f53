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
  /** Aborted when the user presses Ctrl-C during a request. */
  signal?: AbortSignal;
}

export type CommandResult = 'quit' | undefined;

/** A mistake in how a command was typed: printed as is, without an "Error:" prefix. */
class UsageError extends Error {}

interface Command {
  names: string[];
  usage: string;
  summary: string;
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
    usage: 'call NAME [JSON|value]',
    summary: 'call a tool; without arguments, asks for each parameter',
    async run(ctx, rest) {
      const { name, rest: args } = splitWord(rest);
      if (!name) throw new UsageError('Usage: call NAME [JSON|value]');
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
    usage: 'prompt NAME [JSON|value]',
    summary: 'get a prompt; without arguments, asks for each one',
    async run(ctx, rest) {
      const { session, out, signal } = ctx;
      const { name, rest: text } = splitWord(rest);
      if (!name) throw new UsageError('Usage: prompt NAME [JSON|value]');
      const prompt = await session.findPrompt(name);
      if (!prompt) throw new UsageError(`Unknown prompt "${name}". Type "prompts" to list them.`);
      const schema = promptArgumentsSchema(prompt.arguments);
      const args = await resolveArguments(
        ctx,
        argumentsFromText(text, schema, `prompt ${name}`),
        schema,
      );
      if (!args) return;
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
    'Shorthand: TOOL [JSON|value] calls a tool, e.g. `echo hello` when echo has one',
    'required parameter, or `echo {"message": "hi"}`. Tab completes commands and tool names.',
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
  if (name === '' || name.startsWith('#')) return undefined;
  try {
    const command = COMMANDS.find((c) => c.names.includes(name));
    if (command) {
      await command.run(ctx, rest);
      return command.quits ? 'quit' : undefined;
    }
    // Tool shorthand. Without a connection no word can be a tool: say so, not "unknown".
    if (!ctx.session.connected) throw new NotConnectedError();
    const tool = ctx.session.knownTools.find((t) => t.name === name);
    if (tool) {
      await callTool(ctx, tool, rest);
      return undefined;
    }
    ctx.out.error(`Unknown command "${name}". Type "help" for commands, "tools" for tool names.`);
  } catch (err) {
    if (err instanceof UsageError) ctx.out.error(err.message);
    else if (ctx.signal?.aborted) ctx.out.error('Cancelled.');
    else ctx.out.error(`Error: ${formatError(err)}${hint(err, ctx.session)}`);
  }
  return undefined;
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
  if (!args) return;
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
}

/** Arguments from the command line, or asked for; null when there is nothing to send. */
async function resolveArguments(
  ctx: CommandContext,
  parsed: ArgumentsFromText,
  schema: unknown,
): Promise<Record<string, unknown> | null> {
  if (parsed.kind === 'error') {
    ctx.out.error(parsed.message);
    return null;
  }
  if (parsed.kind === 'args') return parsed.args;
  const asked = await askArguments(schema, ctx.ask, (m) => ctx.out.error(m));
  if (!asked) ctx.out.error('Not sent: input ended before every required parameter was given.');
  return asked;
}
