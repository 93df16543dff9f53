/**
 * The management operations of mcp-proxy, one entry each: its name, what it does, its arguments
 * (the zod shape the `proxy__*` tool lists), and how every front door addresses it — the tool's
 * name, the REST method and path, the CLI command words and how the CLI prints the answer —,
 * whether cluster mode replicates it and whether the web console offers it. The REST API, the
 * CLI, the `proxy__*` tools, the console and cluster sync read this table; what an operation
 * does is its handler in `handlers.ts`, keyed by the same name. Adding an operation is one entry
 * here and its handler there.
 *
 * This file is what the CLI loads to declare its commands, so it imports no framework code.
 *
 * @module
 */
import { z } from 'zod';
import {
  type ExplainBody,
  explainText,
  type PrincipalsBody,
  principalsText,
  type ReloadBody,
  reloadText,
} from './accessText.ts';
import { APPROVAL_OPERATIONS } from './approvalOperations.ts';
import {
  type AvailableBody,
  commandArgs,
  commandResultText,
  commandsText,
  jsonObjectOperand,
  listText,
  OperandError,
  type OperationBody,
  operationText,
  statusText,
  type ToolsBody,
  toolsText,
} from './cliText.ts';
import { PIN_OPERATIONS } from './pinOperations.ts';
import type { ProxyStatus } from './status.ts';

/** An operation's arguments as every front door hands them to its handler. */
export type OperationArgs = Record<string, unknown>;

/** One way the REST API reaches an operation. */
export interface RestRoute {
  method: 'GET' | 'POST';
  path: string;
  /** The path continues with one segment naming this argument: `/proxy/command/<name>`. */
  param?: string;
  /**
   * What the body carries: `{"plugin": "<name>"}` for `{ name: 'plugin' }`, or a JSON object of
   * named values that becomes the argument `object` names, or (`fields`) a JSON object whose
   * named values are the operation's arguments themselves. None: the body is not read.
   */
  body?: { name: string } | { object: string } | { fields: true };
}

/** An `mcp-proxy` client command: it sends the operation's REST request and prints the answer. */
export interface CliCommand {
  /** The command this one is a subcommand of: `pins` for `mcp-proxy pins diff`. */
  group?: CliGroup;
  /** Commander's words: the command name and its operands, `load <plugin>`. */
  command: string;
  description: string;
  /** Extra flags, `[flags, description]`; commander camel-cases them for {@link args}. */
  options?: ReadonlyArray<readonly [string, string]>;
  /** The operation's arguments from the command's operands and flags. */
  args(operands: ReadonlyArray<string | undefined>, flags: Record<string, unknown>): OperationArgs;
  /** What the command prints for the API's JSON answer. */
  text(body: unknown, args: OperationArgs): string;
}

/** A command word whose subcommands are operations: `mcp-proxy pins diff|approve|…`. */
export interface CliGroup {
  name: string;
  description: string;
}

export interface OperationSpec {
  name: string;
  /** What it does: the tool's description. */
  summary: string;
  /** The tool's input schema; none: the tool takes no arguments (and lists no schema). */
  args?: z.ZodRawShape;
  /** Changes what runs: kernel code may not call its tool (the framework's privilege mark). */
  privileged?: boolean;
  /** The `proxy__*` tool. */
  tool: string;
  /**
   * It tells about principals: its tool answers about the calling principal alone (its own
   * id, groups and claims), so no MCP caller learns of another; REST, CLI and console (the
   * operator's doors) ask about anyone.
   */
  aboutCaller?: boolean;
  rest: readonly RestRoute[];
  cli: CliCommand;
  /** Cluster mode carries it to every replica (cluster sync reconciles it, `clusterSync.ts`). */
  replicated?: boolean;
  /** A button on the console's plugins page; `flashTools`: its message names the tools. */
  console?: { flashTools: boolean };
  /**
   * The arguments its audit record keeps, each with the record field it fills: only those named
   * here, so an argument that may hold a secret (a server's env or headers, a token, a command's
   * arguments) is never recorded unless someone names it.
   */
  recorded?: Readonly<Record<string, RecordedField>>;
}

/** The audit record fields an operation's arguments may fill (`target`: what else it acted on). */
export type RecordedField = 'plugin' | 'tool' | 'view' | 'target';

const pluginArg = { plugin: z.string().min(1).describe('Plugin name') };

/** A free-form object, said so (`additionalProperties: true`): whoever reads it, reads its own. */
const anyObject = () =>
  z.record(z.string(), z.unknown()).meta({ additionalProperties: true }).optional();

/** `explain`'s arguments: who (an id, optionally its groups, claims and scopes) and what. */
export const EXPLAIN_ARGS = {
  principal: z
    .string()
    .min(1)
    .describe(
      'Principal id (sub:alice, key:ci, local:me, anonymous); one seen lately keeps its claims',
    ),
  groups: z.array(z.string()).optional().describe('Groups instead of its own'),
  claims: anyObject().describe('Claims instead of its own'),
  scopes: z.array(z.string()).optional().describe('Scopes instead of its own'),
  tool: z.string().optional().describe('Tool to explain; none: list the tools it sees'),
  view: z.string().optional().describe('View the request comes through; none: the whole catalog'),
  args: anyObject().describe('Arguments of a call, to decide rules that read args'),
};

/** A comma-separated flag as a list: `--groups support,ops`. */
const listFlag = (value: unknown) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    : undefined;

/** load, unload and reload: one plugin by name, the same at every front door. */
function pluginOperation<N extends 'load' | 'unload' | 'reload'>(
  name: N,
  verb: string,
  summary: string,
): OperationSpec & { name: N } {
  const unload = name === 'unload';
  return {
    name,
    summary,
    args: pluginArg,
    privileged: true,
    tool: `proxy__${name}`,
    rest: [{ method: 'POST', path: `/proxy/${name}`, body: { name: 'plugin' } }],
    cli: {
      command: `${name} <plugin>`,
      description: `${name} a plugin in the running proxy`,
      args: ([plugin]) => ({ plugin }),
      text: (body) => operationText(verb, body as OperationBody, unload),
    },
    replicated: true,
    console: { flashTools: !unload },
    recorded: { plugin: 'plugin' },
  };
}

/** In the order the `proxy__*` tools are listed. */
export const OPERATIONS = [
  pluginOperation(
    'load',
    'Loaded',
    'Load a plugin (or a configured MCP server) into the running proxy.',
  ),
  pluginOperation(
    'unload',
    'Unloaded',
    'Unload a plugin: its tools, resources and prompts disappear.',
  ),
  pluginOperation(
    'reload',
    'Reloaded',
    'Reload a plugin from its files. The old version keeps serving if the new one fails to load.',
  ),
  {
    name: 'status',
    summary: 'Server, transport, ports and how many plugins and tools are loaded.',
    tool: 'proxy__status',
    rest: [{ method: 'GET', path: '/proxy/status' }],
    cli: {
      command: 'status',
      description: 'plugins and tools of the running proxy',
      args: () => ({}),
      text: (body) => statusText(body as ProxyStatus),
    },
  },
  {
    name: 'list',
    summary: 'Plugins that are available but not loaded.',
    tool: 'proxy__list',
    rest: [{ method: 'GET', path: '/proxy/plugins' }],
    cli: {
      command: 'list',
      description: 'plugins available to the running proxy, loaded or not',
      args: () => ({}),
      text: (body) => listText(body as AvailableBody),
    },
  },
  {
    name: 'tools',
    summary: 'Names of loaded tools; dynamic_only lists those loaded after start-up.',
    args: {
      dynamic_only: z.boolean().default(false).describe('Only tools loaded after start-up'),
    },
    tool: 'proxy__tools',
    rest: [{ method: 'GET', path: '/proxy/tools' }],
    cli: {
      command: 'tools',
      description: 'tools of the running proxy',
      options: [['--dynamic-only', 'only tools loaded after start-up']],
      args: (_, flags) => ({ dynamic_only: flags.dynamicOnly === true }),
      text: (body, args) => toolsText(body as ToolsBody, args.dynamic_only === true),
    },
  },
  {
    name: 'command',
    summary: 'Run a management command a plugin registered; without a name, list them.',
    args: {
      command: z.string().optional().describe('Command name'),
      // A free-form object, said so (`additionalProperties: true`): each command reads its own.
      args: z
        .record(z.string(), z.unknown())
        .meta({ additionalProperties: true })
        .optional()
        .describe('Arguments for the command: an object of named values'),
    },
    privileged: true,
    tool: 'proxy__command',
    // The command's name; never its arguments.
    recorded: { command: 'target' },
    // With a command name it runs that command, without one it lists them.
    rest: [
      { method: 'POST', path: '/proxy/command', param: 'command', body: { object: 'args' } },
      { method: 'GET', path: '/proxy/commands' },
    ],
    cli: {
      command: 'command [name] [args]',
      description: 'run a plugin command (JSON object args); without a name, list commands',
      args: ([name, args]) => (name ? { command: name, args: commandArgs(args) } : {}),
      text: (body, args) =>
        args.command === undefined
          ? commandsText((body as { commands: Array<{ name: string; plugin?: string }> }).commands)
          : commandResultText((body as { result: unknown }).result),
    },
  },
  {
    name: 'reload_policy',
    summary:
      'Re-read views, policy and API keys from the config file. A bad key or a rule that does not compile changes nothing.',
    privileged: true,
    tool: 'proxy__reload_policy',
    rest: [{ method: 'POST', path: '/proxy/policy/reload' }],
    cli: {
      command: 'reload-policy',
      description: 're-read views:, policy: and api_keys: from the config file, without a restart',
      args: () => ({}),
      text: (body) => reloadText(body as ReloadBody),
    },
    replicated: true,
  },
  {
    name: 'explain',
    summary:
      'Why a principal may or may not see and call a tool (each rule and the outcome); without a tool, the tools it sees.',
    args: EXPLAIN_ARGS,
    tool: 'proxy__explain',
    aboutCaller: true,
    recorded: { principal: 'target', tool: 'tool', view: 'view' },
    rest: [{ method: 'POST', path: '/proxy/explain', body: { fields: true } }],
    cli: {
      command: 'explain',
      description:
        'explain what a principal may see and call (--principal, --tool, --view, --args)',
      options: [
        ['--principal <id>', 'principal id: sub:alice, key:ci, local:me, anonymous (required)'],
        ['--groups <list>', 'its groups, comma-separated (instead of its own)'],
        ['--scopes <list>', 'its scopes, comma-separated (instead of its own)'],
        ['--claims <json>', 'its claims, a JSON object: \'{"projects": ["p1"]}\''],
        ['--tool <name>', 'the tool; without: list the tools it sees'],
        ['--view <name>', 'the view the request comes through'],
        ['--args <json>', 'a call\'s arguments, a JSON object: \'{"project": "p1"}\''],
      ],
      args: (_, flags) => explainFlags(flags),
      text: (body) => explainText(body as ExplainBody),
    },
  },
  {
    name: 'principals',
    summary: 'The principals served lately: kind, groups, views, calls, refusals, last seen.',
    tool: 'proxy__principals',
    aboutCaller: true,
    rest: [{ method: 'GET', path: '/proxy/principals' }],
    cli: {
      command: 'principals',
      description: 'principals the running proxy served lately',
      args: () => ({}),
      text: (body) => principalsText(body as PrincipalsBody),
    },
  },
  ...APPROVAL_OPERATIONS,
  ...PIN_OPERATIONS,
] as const satisfies readonly OperationSpec[];

/** `explain`'s arguments from its flags; a missing principal or bad JSON fails the command. */
function explainFlags(flags: Record<string, unknown>): OperationArgs {
  if (typeof flags.principal !== 'string' || flags.principal === '') {
    throw new OperandError('--principal is required, e.g. --principal sub:alice');
  }
  const json = (flag: string, example: string) =>
    jsonObjectOperand(flags[flag] as string | undefined, `--${flag}`, example);
  const args: OperationArgs = {
    principal: flags.principal,
    groups: listFlag(flags.groups),
    scopes: listFlag(flags.scopes),
    claims: json('claims', '{"projects": ["p1"]}'),
    tool: flags.tool,
    view: flags.view,
    args: json('args', '{"project": "p1"}'),
  };
  return Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined));
}

export type OperationName = (typeof OPERATIONS)[number]['name'];

export function operationNamed(name: string): OperationSpec {
  const found = (OPERATIONS as readonly OperationSpec[]).find((o) => o.name === name);
  if (found === undefined) throw new Error(`no management operation '${name}'`);
  return found;
}

/** The route a client uses for these arguments: the first whose path argument it has. */
export function restRouteFor(operation: OperationSpec, args: OperationArgs): RestRoute {
  const route = operation.rest.find((r) => r.param === undefined || args[r.param] !== undefined);
  if (route === undefined) throw new Error(`no REST route of '${operation.name}' fits`);
  return route;
}

/** Path and body of a REST request for an operation (the CLI's side of {@link RestRoute}). */
export function restRequest(
  route: RestRoute,
  args: OperationArgs,
): { path: string; body?: unknown } {
  const path =
    route.param === undefined
      ? route.path
      : `${route.path}/${encodeURIComponent(String(args[route.param]))}`;
  if (route.body === undefined) return { path };
  if ('name' in route.body) return { path, body: { [route.body.name]: args[route.body.name] } };
  if ('fields' in route.body) return { path, body: args };
  return { path, body: args[route.body.object] };
}
