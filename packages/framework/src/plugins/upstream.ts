/**
 * Another MCP server as a plugin: `upstreamPlugin(name, params)` returns a plugin module whose
 * `register()` connects to the server and mirrors its tools, resources, resource templates and
 * prompts into the catalog. Tool schemas are passed on as the raw JSON Schema objects the
 * upstream sent (clients see them byte for byte); calls are forwarded with progress and
 * cancellation, and the upstream's results come back unchanged (content, structuredContent,
 * isError).
 *
 * If the upstream dies, the next call restarts it; if that fails, the call is an `isError`
 * result saying why. `dispose()` closes the connection (and ends a stdio upstream); whoever
 * unloads the plugin calls it (mcp-proxy does; `PluginRegistry.unloadPlugin` alone does not).
 *
 * @module
 */
import { ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type {
  Prompt,
  Resource,
  ResourceTemplate as ResourceTemplateDefinition,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  type CallOptions,
  type ListKind,
  UpstreamConnection,
  type UpstreamConnectionOptions,
} from '../client/connection.ts';
import { describeUpstream, type UpstreamParams } from '../client/params.ts';
import type {
  JsonSchemaObject,
  Logger,
  PluginModule,
  PluginServer,
  RequestExtra,
  ToolContext,
} from './types.ts';

export interface UpstreamPluginOptions extends Omit<UpstreamConnectionOptions, 'onListChanged'> {
  /**
   * The upstream announced that its tools, resources or prompts changed. Mirrored entries are
   * fixed at registration, so picking the change up means reloading the plugin (which restarts
   * the upstream); by default the change is only logged.
   */
  onListChanged?: (kind: ListKind) => void;
}

/** A plugin module mirroring one upstream MCP server. */
export interface UpstreamPlugin extends PluginModule {
  readonly description: string;
  /** The connection of the latest `register()`, until `dispose()`. */
  readonly connection: UpstreamConnection | undefined;
  /** Closes the connection, ending a stdio upstream and its children. Idempotent. */
  dispose(): Promise<void>;
}

/**
 * @param name names the upstream in messages and logs ("upstream 'github' …").
 * @param params as written: `${VAR}` placeholders are expanded at each connect, never stored.
 */
export function upstreamPlugin(
  name: string,
  params: UpstreamParams,
  options: UpstreamPluginOptions = {},
): UpstreamPlugin {
  let connection: UpstreamConnection | undefined;
  // Handlers look the connection up at call time: a re-register (reload) replaces it.
  const current = (): UpstreamConnection => {
    if (!connection) throw new Error(`upstream '${name}' was unloaded`);
    return connection;
  };

  return {
    description: `MCP server: ${describeUpstream(params)}`,
    get connection() {
      return connection;
    },

    async register(server: PluginServer) {
      const logger = options.logger ?? server.logger;
      // Registering the same module again (a reload that keeps the module, or mcp-proxy's
      // stage-then-swap) re-lists over the running connection instead of starting a second
      // process; a connection that died restarts on first use anyway.
      const fresh = connection === undefined || connection.closed;
      if (fresh) {
        const onListChanged =
          options.onListChanged ??
          ((kind: ListKind) =>
            logger.warn(
              `upstream '${name}' changed its ${kind}; reload plugin '${server.name}' to mirror the change`,
            ));
        connection = new UpstreamConnection(name, params, { ...options, logger, onListChanged });
      }
      const active = connection as UpstreamConnection;
      try {
        await mirror(server, active, current, logger);
      } catch (error) {
        // Only a connection nobody else uses is closed; after an earlier successful register,
        // its entries may still be serving.
        if (fresh) {
          await active.close();
          connection = undefined;
        }
        throw error;
      }
    },

    async dispose() {
      const closing = connection;
      connection = undefined;
      await closing?.close();
    },
  };
}

async function mirror(
  server: PluginServer,
  connection: UpstreamConnection,
  current: () => UpstreamConnection,
  logger: Logger,
): Promise<void> {
  // Lists are fetched before anything is registered, so a failure registers nothing.
  const [tools, resources, templates, prompts] = [
    await connection.listTools(),
    await connection.listResources(),
    await connection.listResourceTemplates(),
    await connection.listPrompts(),
  ];
  for (const tool of tools) {
    if (needsTasks(tool)) {
      // A plain tools/call to it always fails; listing it would only offer a broken tool.
      logger.warn(
        `upstream '${connection.name}': tool '${tool.name}' requires MCP tasks, which mirrored servers do not support yet; not mirrored`,
      );
      continue;
    }
    mirrorTool(server, tool, current);
  }
  for (const resource of resources) mirrorResource(server, resource, current);
  for (const template of templates) mirrorTemplate(server, template, current);
  for (const prompt of prompts) mirrorPrompt(server, prompt, current);
}

/** Tools that may only run as MCP tasks (`execution.taskSupport: 'required'`). */
export function needsTasks(tool: Tool): boolean {
  return tool.execution?.taskSupport === 'required';
}

/** Forwards the caller's cancellation, and progress only when the caller asked for it. */
function forwarding(ctx: RequestExtra & Partial<Pick<ToolContext, 'reportProgress'>>): CallOptions {
  const wantsProgress = ctx._meta?.progressToken !== undefined;
  const report = ctx.reportProgress;
  return {
    signal: ctx.signal,
    onprogress:
      wantsProgress && report
        ? (p) => void report(p.progress, p.total, p.message).catch(() => undefined)
        : undefined,
  };
}

function mirrorTool(server: PluginServer, tool: Tool, current: () => UpstreamConnection): void {
  // The name is captured before any prefix: the upstream knows its tools by their own names.
  const upstreamName = tool.name;
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema as JsonSchemaObject,
      outputSchema: tool.outputSchema as JsonSchemaObject | undefined,
      annotations: tool.annotations,
      _meta: tool._meta,
    },
    // Errors (upstream gone and not restartable, timeouts …) become isError results upstream of
    // here, in the catalog's runTool; the upstream's own isError results pass through as they are.
    (args: Record<string, unknown>, ctx: ToolContext) =>
      current().callTool(upstreamName, args, forwarding(ctx)),
  );
}

/** Everything of a listed resource except what `registerResource` takes separately. */
function metadataOf<T extends { name: string }>(entry: T, drop: Array<keyof T>) {
  const metadata: Record<string, unknown> = { ...entry };
  for (const key of ['name', ...drop]) delete metadata[key as string];
  return metadata;
}

function mirrorResource(
  server: PluginServer,
  resource: Resource,
  current: () => UpstreamConnection,
): void {
  const uri = resource.uri; // as the upstream wrote it, not as URL parsing normalizes it
  server.registerResource(resource.name, uri, metadataOf(resource, ['uri']), (_url, ctx) =>
    current().readResource({ uri }, { signal: ctx.signal }),
  );
}

function mirrorTemplate(
  server: PluginServer,
  template: ResourceTemplateDefinition,
  current: () => UpstreamConnection,
): void {
  server.registerResource(
    template.name,
    new ResourceTemplate(template.uriTemplate, { list: undefined }),
    metadataOf(template, ['uriTemplate']),
    (url, _variables, ctx) => current().readResource({ uri: url.href }, { signal: ctx.signal }),
  );
}

function mirrorPrompt(
  server: PluginServer,
  prompt: Prompt,
  current: () => UpstreamConnection,
): void {
  const upstreamName = prompt.name;
  const config = { title: prompt.title, description: prompt.description };
  const get = (args: Record<string, string> | undefined, ctx: RequestExtra) =>
    current().getPrompt(
      args === undefined ? { name: upstreamName } : { name: upstreamName, arguments: args },
      { signal: ctx.signal },
    );
  if (!prompt.arguments?.length) {
    server.registerPrompt(prompt.name, config, (ctx: RequestExtra) => get(undefined, ctx));
    return;
  }
  // Prompt arguments are strings; the shape reproduces names, descriptions and `required`.
  const shape: Record<string, z.ZodTypeAny> = {};
  for (const argument of prompt.arguments) {
    let field: z.ZodTypeAny = z.string();
    if (argument.description !== undefined) field = field.describe(argument.description);
    shape[argument.name] = argument.required ? field : field.optional();
  }
  server.registerPrompt(prompt.name, { ...config, argsSchema: shape }, (args, ctx) =>
    get(args as Record<string, string>, ctx),
  );
}
