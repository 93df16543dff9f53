/**
 * One MCP session: its own low-level SDK `Server` (an SDK server serves exactly one transport),
 * whose handlers read the shared catalog. Sessions are cheap — a handful of closures — so
 * Streamable HTTP can open one per client and stateless mode one per request.
 *
 * @module
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  type CompleteResult,
  ErrorCode,
  GetPromptRequestSchema,
  type GetPromptResult,
  type Implementation,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  type LoggingLevel,
  McpError,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  type Resource,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Catalog } from '../catalog/catalog.ts';
import type { ToolCallDispatcher } from '../catalog/toolCalls.ts';
import type { Completer } from '../catalog/types.ts';
import type { PromptReturn, RequestExtra, ResourceReturn } from '../plugins/types.ts';
import { type LogThreshold, toToolContext } from './context.ts';
// For its effect: cheap failing message-type checks in the SDK's Protocol (see the module).
import './messageChecks.ts';
import type { ServerCounters } from './stats.ts';

export interface SessionOptions {
  /** Name and version announced at `initialize`. */
  info: Implementation;
  instructions?: string;
  catalog: Catalog;
  dispatcher: ToolCallDispatcher;
  counters: ServerCounters;
}

const CAPABILITIES = {
  tools: { listChanged: true },
  resources: { listChanged: true, subscribe: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {},
};

const EMPTY_COMPLETION: CompleteResult = { completion: { values: [], hasMore: false } };

function completionOf(values: string[]): CompleteResult {
  return {
    completion: {
      values: values.slice(0, 100),
      total: values.length,
      hasMore: values.length > 100,
    },
  };
}

function toReadResult(uri: string, value: ResourceReturn): ReadResourceResult {
  return typeof value === 'string' ? { contents: [{ uri, text: value }] } : value;
}

function toPromptResult(value: PromptReturn): GetPromptResult {
  return typeof value === 'string'
    ? { messages: [{ role: 'user', content: { type: 'text', text: value } }] }
    : value;
}

function parseUri(uri: string): URL {
  try {
    return new URL(uri);
  } catch {
    throw new McpError(ErrorCode.InvalidParams, `Invalid resource URI: ${uri}`);
  }
}

export class McpSession implements LogThreshold {
  readonly server: Server;
  /** Set by the client with `logging/setLevel`; handlers' `ctx.log` honours it. */
  logLevel: LoggingLevel | undefined;
  /** Resource URIs this client subscribed to. */
  readonly subscriptions = new Set<string>();

  constructor(options: SessionOptions) {
    const { catalog, dispatcher, counters } = options;
    const server = new Server(options.info, {
      capabilities: CAPABILITIES,
      instructions: options.instructions || undefined,
    });
    this.server = server;

    // Counts every request and every failure for the health endpoints, one wrapper per handler.
    const counted =
      <Q, R>(handler: (request: Q, extra: RequestExtra) => Promise<R>) =>
      async (request: Q, extra: RequestExtra): Promise<R> => {
        counters.requests += 1;
        counters.last_request = Date.now();
        try {
          return await handler(request, extra);
        } catch (error) {
          counters.errors += 1;
          throw error;
        }
      };

    server.setRequestHandler(
      ListToolsRequestSchema,
      counted(async () => ({ tools: catalog.listTools() })),
    );

    server.setRequestHandler(
      CallToolRequestSchema,
      counted(async (request, extra) => {
        const { name, arguments: args } = request.params;
        const result = await dispatcher.call(
          name,
          args,
          toToolContext(extra, this, () => server.getClientCapabilities()),
        );
        if (result.isError) counters.errors += 1;
        return result;
      }),
    );

    server.setRequestHandler(
      ListResourcesRequestSchema,
      counted(async (_request, extra) => {
        const listed: Resource[] = [...catalog.listResources()];
        // Templates with a `list` callback contribute their concrete resources, as in McpServer.
        for (const entry of catalog.templateEntries()) {
          const list = entry.template.listCallback;
          if (!list) continue;
          const result = await list(extra);
          for (const resource of result.resources)
            listed.push({ ...entry.definition, ...resource });
        }
        return { resources: listed };
      }),
    );

    server.setRequestHandler(
      ListResourceTemplatesRequestSchema,
      counted(async () => ({ resourceTemplates: catalog.listTemplates() })),
    );

    server.setRequestHandler(
      ReadResourceRequestSchema,
      counted(async (request, extra) => {
        const raw = request.params.uri;
        const url = parseUri(raw);
        const resource = catalog.getResource(raw) ?? catalog.getResource(url.href);
        if (resource) {
          if (!resource.enabled) {
            throw new McpError(ErrorCode.InvalidParams, `Resource ${raw} disabled`);
          }
          return toReadResult(raw, await resource.read(url, extra));
        }
        const match = catalog.matchTemplate(raw);
        if (match) return toReadResult(raw, await match.entry.read(url, match.variables, extra));
        throw new McpError(ErrorCode.InvalidParams, `Resource ${raw} not found`);
      }),
    );

    server.setRequestHandler(
      SubscribeRequestSchema,
      counted(async (request) => {
        this.subscriptions.add(request.params.uri);
        return {};
      }),
    );
    server.setRequestHandler(
      UnsubscribeRequestSchema,
      counted(async (request) => {
        this.subscriptions.delete(request.params.uri);
        return {};
      }),
    );

    server.setRequestHandler(
      ListPromptsRequestSchema,
      counted(async () => ({ prompts: catalog.listPrompts() })),
    );

    server.setRequestHandler(
      GetPromptRequestSchema,
      counted(async (request, extra) => {
        const { name } = request.params;
        const prompt = catalog.getPrompt(name);
        if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Prompt ${name} not found`);
        if (!prompt.enabled) throw new McpError(ErrorCode.InvalidParams, `Prompt ${name} disabled`);
        if (!prompt.args) return toPromptResult(await prompt.handler(extra));
        const checked = await prompt.args.validate(request.params.arguments ?? {});
        if (!checked.ok) {
          throw new McpError(
            ErrorCode.InvalidParams,
            `Invalid arguments for prompt ${name}: ${checked.message}`,
          );
        }
        return toPromptResult(await prompt.handler(checked.value, extra));
      }),
    );

    server.setRequestHandler(
      CompleteRequestSchema,
      counted(async (request) => {
        const { ref, argument, context } = request.params;
        let complete: Completer | undefined;
        if (ref.type === 'ref/prompt') {
          const prompt = catalog.getPrompt(ref.name);
          if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Prompt ${ref.name} not found`);
          complete = prompt.completers.get(argument.name);
        } else {
          const template = catalog.getTemplate(ref.uri);
          if (!template) {
            // Completing a fixed URI is not an error in the spec; there is just nothing to offer.
            if (catalog.getResource(ref.uri)) return EMPTY_COMPLETION;
            throw new McpError(ErrorCode.InvalidParams, `Resource template ${ref.uri} not found`);
          }
          complete = template.template.completeCallback(argument.name);
        }
        if (!complete) return EMPTY_COMPLETION;
        return completionOf((await complete(argument.value, context)).map(String));
      }),
    );

    // Replaces the SDK's own handler so the level lives here, next to `ctx.log` that reads it.
    server.setRequestHandler(
      SetLevelRequestSchema,
      counted(async (request) => {
        this.logLevel = request.params.level;
        return {};
      }),
    );
  }

  /** Sends `list_changed` for each kind; a closed or uninitialised session is skipped quietly. */
  notifyListChanged(kinds: ReadonlySet<'tools' | 'resources' | 'prompts'>): void {
    const server = this.server;
    if (!server.transport) return;
    const ignore = () => undefined;
    if (kinds.has('tools')) server.sendToolListChanged().catch(ignore);
    if (kinds.has('resources')) server.sendResourceListChanged().catch(ignore);
    if (kinds.has('prompts')) server.sendPromptListChanged().catch(ignore);
  }

  /** Sends `notifications/resources/updated` if this client subscribed to the URI. */
  notifyResourceUpdated(uri: string): void {
    if (!this.subscriptions.has(uri) || !this.server.transport) return;
    this.server.sendResourceUpdated({ uri }).catch(() => undefined);
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
