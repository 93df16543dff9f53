/**
 * The interactive client's command language: one line in, output through `Output`. Each command
 * is an entry in `COMMANDS`; any other first word that names a tool calls that tool.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
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

interface Command {
  names: string[];
  usage: string;
  summary: string;
  run(ctx: CommandContext, rest: string): Promise<CommandResult | undefined>;
}

export const COMMANDS: Command[] = [
  {
    names: ['tools'],
    usage: 'tools',
    summary: 'list the tools',
    async run({ session, out }) {
      out.print(formatTools(await session.listTools()));
      return undefined;
    },
  },
  {
    names: ['call'],
    usage: 'call NAME [JSON|value]',
    summary: 'call a tool; without arguments, asks for each parameter',
    async run(ctx, rest) {
      const { name, rest: args } = splitWord(rest);
      if (!name) return void ctx.out.error('Usage: call NAME [JSON|value]');
      const tool = await ctx.session.findTool(name);
      if (!tool) return void ctx.out.error(`Unknown tool "${name}". Type "tools" to list them.`);
      await callTool(ctx, tool, args);
      return undefined;
    },
  },
  {
    names: ['resources'],
    usage: 'resources',
    summary: 'list resources and resource templates',
    async run({ session, out }) {
      const { resources, templates } = await session.listResources();
      out.print(formatResources(resources, templates));
      return undefined;
    },
  },
  {
    names: ['read'],
    usage: 'read URI',
    summary: 'read a resource',
    async run({ session, out, signal }, rest) {
      const uri = rest.trim();
      if (!uri) return void out.error('Usage: read URI');
      out.print(formatReadResult(await session.client.readResource({ uri }, { signal })));
      return undefined;
    },
  },
  {
    names: ['prompts'],
    usage: 'prompts',
    summary: 'list the prompts',
    async run({ session, out }) {
      out.print(formatPrompts(await session.listPrompts()));
      return undefined;
    },
  },
  {
    names: ['prompt'],
    usage: 'prompt NAME [JSON|value]',
    summary: 'get a prompt; without arguments, asks for each one',
    async run(ctx, rest) {
      const { session, out, signal } = ctx;
      const { name, rest: text } = splitWord(rest);
      if (!name) return void out.error('Usage: prompt NAME [JSON|value]');
      const prompt = await session.findPrompt(name);
      if (!prompt) return void out.error(`Unknown prompt "${name}". Type "prompts" to list them.`);
      const schema = promptArgumentsSchema(prompt.arguments);
      const args = await resolveArguments(
        ctx,
        argumentsFromText(text, schema, `prompt ${name}`),
        schema,
      );
      if (!args) return undefined;
      const result = await session.client.getPrompt(
        { name, arguments: stringifyValues(args) },
        { signal },
      );
      out.print(formatPromptResult(result));
      return undefined;
    },
  },
  {
    names: ['info'],
    usage: 'info',
    summary: 'server name, version, capabilities and instructions',
    async run({ session, out }) {
      out.print(formatInfo(session.info()));
      return undefined;
    },
  },
  {
    names: ['reconnect'],
    usage: 'reconnect',
    summary: 'close the connection and connect again (restarts a stdio server)',
    async run({ session, out }) {
      out.print(await session.reconnect());
      return undefined;
    },
  },
  {
    names: ['help', '?'],
    usage: 'help',
    summary: 'this list',
    async run({ out }) {
      out.print(helpText());
      return undefined;
    },
  },
  {
    names: ['quit', 'exit', 'q'],
    usage: 'quit',
    summary: 'leave (also exit, q, Ctrl-D)',
    async run() {
      return 'quit';
    },
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
    if (command) return await command.run(ctx, rest);
    // Tool shorthand. Without a connection no word can be a tool: say so, not "unknown".
    if (!ctx.session.connected) throw new NotConnectedError();
    const tool = ctx.session.knownTools.find((t) => t.name === name);
    if (tool) {
      await callTool(ctx, tool, rest);
      return undefined;
    }
    ctx.out.error(`Unknown command "${name}". Type "help" for commands, "tools" for tool names.`);
  } catch (err) {
    ctx.out.error(`Error: ${formatError(err)}${hint(err, ctx.session)}`);
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
    undefined,
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
  ctx.out.print(formatCallResult(result as Parameters<typeof formatCallResult>[0]));
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
  if (!asked) ctx.out.error('Input ended before all required parameters were given.');
  return asked;
}
