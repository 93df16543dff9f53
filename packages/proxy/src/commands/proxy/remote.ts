/**
 * The client side of `mcp-proxy`: `status`, `list`, `tools`, `load|unload|reload NAME` and
 * `command [NAME]` talk to a running proxy's management API. Output is readable by default and
 * the raw JSON with `--json`. Failures print one line to stderr and exit 1.
 *
 * @module
 */
import {
  ManagementClient,
  ManagementRequestError,
  ManagementUnauthorizedError,
  ManagementUnavailableError,
} from '../../management/client.ts';
import type { ProxyStatus } from '../../management/status.ts';
import { fail } from '../exit.ts';

export interface RemoteOptions {
  /** Default 12299. */
  mgmtPort?: number;
  /** Falls back to `MCP_MGMT_TOKEN`. */
  token?: string;
  json?: boolean;
  env?: Readonly<Record<string, string | undefined>>;
  /** Where output goes; default stdout. */
  write?: (text: string) => void;
}

export type RemoteAction =
  | { kind: 'status' }
  | { kind: 'list' }
  | { kind: 'tools'; dynamicOnly?: boolean }
  | { kind: 'load' | 'unload' | 'reload'; plugin: string }
  | { kind: 'command'; name?: string; args?: string };

const DEFAULT_MGMT_PORT = 12299;
const MAX_TOOLS_SHOWN = 5;

interface OperationBody {
  plugin: string;
  tools: string[];
  removed?: string[];
  resources?: string[];
  prompts?: string[];
}

function statusText(status: ProxyStatus): string {
  const lines = [`Plugins: ${status.total_plugins}, Tools: ${status.total_tools}`];
  if (status.total_resources > 0 || status.total_prompts > 0) {
    lines.push(`Resources: ${status.total_resources}, Prompts: ${status.total_prompts}`);
  }
  for (const [name, plugin] of Object.entries(status.plugins)) {
    const shown = plugin.tools.slice(0, MAX_TOOLS_SHOWN).join(', ') || '(no tools)';
    const more =
      plugin.tools.length > MAX_TOOLS_SHOWN
        ? ` (+${plugin.tools.length - MAX_TOOLS_SHOWN} more)`
        : '';
    lines.push(`  ${name}${plugin.internal ? ' (internal)' : ''}: ${shown}${more}`);
  }
  return lines.join('\n');
}

function listText(body: {
  available: Array<{ name: string; description: string; loaded: boolean; kind: string }>;
}): string {
  if (body.available.length === 0) return '(no plugins found in plugin directories)';
  return body.available
    .map((p) => {
      const tags = [
        p.loaded ? 'loaded' : undefined,
        p.kind === 'upstream' ? 'MCP server' : undefined,
      ]
        .filter(Boolean)
        .join(', ');
      return `  ${p.name}${p.description ? ` — ${p.description}` : ''}${tags ? ` [${tags}]` : ''}`;
    })
    .join('\n');
}

function toolsText(
  body: { tools: Array<{ name: string; plugin?: string; dynamic: boolean }> },
  dynamicOnly: boolean,
): string {
  const tools = dynamicOnly ? body.tools.filter((t) => t.dynamic) : body.tools;
  if (tools.length === 0) return dynamicOnly ? '(no dynamic tools loaded)' : '(no tools loaded)';
  const width = Math.max(...tools.map((t) => t.name.length));
  return tools
    .map((t) => `${t.name.padEnd(width)}  ${t.plugin ?? ''}${t.dynamic ? ' (dynamic)' : ''}`)
    .join('\n');
}

function operationText(kind: 'load' | 'unload' | 'reload', body: OperationBody): string {
  const verb = { load: 'Loaded', unload: 'Unloaded', reload: 'Reloaded' }[kind];
  const tools = kind === 'unload' ? (body.removed ?? body.tools) : body.tools;
  const lines = [
    `${verb} '${body.plugin}': ${kind === 'unload' ? 'removed ' : ''}${tools.join(', ') || '(no tools)'}`,
  ];
  if (body.resources?.length) lines.push(`Resources: ${body.resources.join(', ')}`);
  if (body.prompts?.length) lines.push(`Prompts: ${body.prompts.join(', ')}`);
  return lines.join('\n');
}

function commandArgs(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw fail(`command arguments must be a JSON object: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw fail('command arguments must be a JSON object, e.g. \'{"key": "value"}\'');
  }
  return parsed as Record<string, unknown>;
}

async function perform(
  client: ManagementClient,
  action: RemoteAction,
): Promise<{ body: unknown; text: string }> {
  switch (action.kind) {
    case 'status': {
      const body = (await client.get('/proxy/status')) as ProxyStatus;
      return { body, text: statusText(body) };
    }
    case 'list': {
      const body = (await client.get('/proxy/plugins')) as Parameters<typeof listText>[0];
      return { body, text: listText(body) };
    }
    case 'tools': {
      const body = (await client.get('/proxy/tools')) as Parameters<typeof toolsText>[0];
      return { body, text: toolsText(body, action.dynamicOnly ?? false) };
    }
    case 'load':
    case 'unload':
    case 'reload': {
      const body = (await client.post(`/proxy/${action.kind}`, {
        plugin: action.plugin,
      })) as OperationBody;
      return { body, text: operationText(action.kind, body) };
    }
    case 'command': {
      if (!action.name) {
        const body = (await client.get('/proxy/commands')) as {
          commands: Array<{ name: string; plugin?: string }>;
        };
        const text =
          body.commands.length === 0
            ? '(no commands registered)'
            : body.commands.map((c) => `  ${c.name}${c.plugin ? ` (${c.plugin})` : ''}`).join('\n');
        return { body, text };
      }
      const args = commandArgs(action.args);
      const body = (await client.post(
        `/proxy/command/${encodeURIComponent(action.name)}`,
        args,
      )) as {
        result: unknown;
      };
      const result = body.result;
      const text =
        result === null || result === undefined
          ? '(no result)'
          : typeof result === 'string'
            ? result
            : JSON.stringify(result, null, 2);
      return { body, text };
    }
  }
}

export async function runRemote(action: RemoteAction, options: RemoteOptions = {}): Promise<void> {
  const env = options.env ?? process.env;
  const port = options.mgmtPort ?? DEFAULT_MGMT_PORT;
  const token = options.token ?? (env.MCP_MGMT_TOKEN || undefined);
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  const client = new ManagementClient({ port, token });
  try {
    const { body, text } = await perform(client, action);
    write(`${options.json ? JSON.stringify(body, null, 2) : text}\n`);
  } catch (error) {
    if (
      error instanceof ManagementUnavailableError ||
      error instanceof ManagementUnauthorizedError
    ) {
      throw fail(error.message);
    }
    if (error instanceof ManagementRequestError) {
      if (options.json && error.body !== undefined)
        write(`${JSON.stringify(error.body, null, 2)}\n`);
      throw fail(error.message);
    }
    throw error;
  }
}
