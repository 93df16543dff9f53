/**
 * What the `mcp-proxy` client commands print: readable text made from the management API's
 * JSON answers (the commands run in another process and see nothing else), and the one operand
 * that is not a plain word, a command's JSON arguments. Kept free of the framework so the CLI
 * can declare its commands from the operations table without loading the server.
 *
 * @module
 */
import type { ProxyStatus } from './status.ts';

const MAX_TOOLS_SHOWN = 5;

export interface OperationBody {
  plugin: string;
  tools: string[];
  removed?: string[];
  resources?: string[];
  prompts?: string[];
}

export interface AvailableBody {
  available: Array<{ name: string; description: string; loaded: boolean; kind: string }>;
}

export interface ToolsBody {
  tools: Array<{ name: string; plugin?: string; dynamic: boolean }>;
}

export function statusText(status: ProxyStatus): string {
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

export function listText(body: AvailableBody): string {
  if (body.available.length === 0) return '(no plugins found in plugin directories)';
  return body.available
    .map((p) => {
      const tags = [
        p.loaded ? 'loaded' : undefined,
        p.kind === 'upstream' ? 'MCP server' : p.kind === 'openapi' ? 'OpenAPI' : undefined,
      ]
        .filter(Boolean)
        .join(', ');
      return `  ${p.name}${p.description ? ` — ${p.description}` : ''}${tags ? ` [${tags}]` : ''}`;
    })
    .join('\n');
}

export function toolsText(body: ToolsBody, dynamicOnly: boolean): string {
  const tools = dynamicOnly ? body.tools.filter((t) => t.dynamic) : body.tools;
  if (tools.length === 0) return dynamicOnly ? '(no dynamic tools loaded)' : '(no tools loaded)';
  const width = Math.max(...tools.map((t) => t.name.length));
  return tools
    .map((t) => `${t.name.padEnd(width)}  ${t.plugin ?? ''}${t.dynamic ? ' (dynamic)' : ''}`)
    .join('\n');
}

/**
 * `Loaded 'echo': echo, echo_upper`. Unlike the `proxy__*` tools' text it lists what an unload
 * removed and says `(no tools)`, as the CLI always has.
 */
export function operationText(verb: string, body: OperationBody, removed: boolean): string {
  const tools = removed ? (body.removed ?? body.tools) : body.tools;
  const lines = [
    `${verb} '${body.plugin}': ${removed ? 'removed ' : ''}${tools.join(', ') || '(no tools)'}`,
  ];
  if (body.resources?.length) lines.push(`Resources: ${body.resources.join(', ')}`);
  if (body.prompts?.length) lines.push(`Prompts: ${body.prompts.join(', ')}`);
  return lines.join('\n');
}

/** The registered commands, one a line (the CLI and `proxy__command` alike). */
export function commandsText(commands: ReadonlyArray<{ name: string; plugin?: string }>): string {
  if (commands.length === 0) return '(no commands registered)';
  return commands.map((c) => `  ${c.name}${c.plugin ? ` (${c.plugin})` : ''}`).join('\n');
}

/** A CLI operand that cannot be used; its message is written for the user. */
export class OperandError extends Error {
  override name = 'OperandError';
}

/** A command's result: text as is, anything else as indented JSON. */
export function commandResultText(result: unknown): string {
  if (result === undefined || result === null) return '(no result)';
  return typeof result === 'string' ? result : JSON.stringify(result, null, 2);
}

/**
 * `mcp-proxy command NAME '{"key": "value"}'`: the arguments operand, a JSON object.
 * @throws {OperandError} saying what is wrong with it; the CLI prints it and exits 1.
 */
export function commandArgs(text: string | undefined): Record<string, unknown> | undefined {
  return jsonObjectOperand(text, 'command arguments', '{"key": "value"}');
}

/**
 * An operand or flag holding a JSON object; `what` names it in the message.
 * @throws {OperandError} saying what is wrong with it.
 */
export function jsonObjectOperand(
  text: string | undefined,
  what: string,
  example: string,
): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new OperandError(`${what} must be a JSON object: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new OperandError(`${what} must be a JSON object, e.g. '${example}'`);
  }
  return parsed as Record<string, unknown>;
}
