/**
 * One MCP session: its own low-level SDK `Server` (an SDK server serves exactly one connection,
 * and SDK v2 builds one per 2026 request), whose handlers read the shared catalog. Sessions are
 * cheap — a handful of closures — so Streamable HTTP can open one per 2025 client and one per
 * 2026 request.
 *
 * @module
 */
import {
  type CacheHint,
  type CallToolResult,
  type CompleteResult,
  type GetPromptResult,
  type Implementation,
  type InputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Resource,
  ResourceNotFoundError,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Catalog } from '../catalog/catalog.ts';
import { type ToolCallDispatcher, toToolResult } from '../catalog/toolCalls.ts';
import type { Completer } from '../catalog/types.ts';
import type { PromptReturn, ResourceReturn } from '../contract/plugin.ts';
import type { RequestExtra, ToolContext } from '../contract/tool.ts';
import { GATE_HANDLE_ARGUMENT } from '../gate/handles.ts';
import type { Era } from '../protocol/era.ts';
import { observeRequest } from '../telemetry/requests.ts';
import { toolsFor } from './appOnlyTools.ts';
import { toToolContext, withV1Aliases } from './context.ts';
import { InputNeeded, InputRounds, type RoundsCodec } from './inputRounds.ts';
import { serveLiveCall } from './liveCalls.ts';
import type { ServerCounters } from './stats.ts';
import {
  registerTaskMethods,
  requestDeclaresTasks,
  startTask,
  TASKS_EXTENSION,
  tasksRequired,
} from './tasks.ts';

export interface SessionOptions {
  /** Name and version announced at `initialize`. */
  info: Implementation;
  instructions?: string;
  catalog: Catalog;
  dispatcher: ToolCallDispatcher;
  counters: ServerCounters;
  /** Seals `requestState` for 2026 `input_required` rounds. */
  rounds: RoundsCodec;
  /** Cache hints for 2026 list/read results; default the SDK's (`ttlMs: 0`, `private`). */
  cacheHints?: CacheHints;
  /**
   * Identifies a session that outlives one request (stdio, 2025 HTTP, SSE); handlers see it as
   * `ctx.connectionId`. Unset for a 2026 request, which has no connection beyond itself. A
   * function makes it on first use (see {@link McpSession.connectionId}).
   */
  connectionId?: string | (() => string);
  /**
   * The protocol era this session serves, decided by the transport entry that opens it (the
   * SDK's stdio and HTTP entries hand it to the session factory); every request carries it.
   */
  era: Era;
}

export type CacheHints = Partial<
  Record<
    | 'tools/list'
    | 'prompts/list'
    | 'resources/list'
    | 'resources/templates/list'
    | 'resources/read'
    | 'server/discover',
    CacheHint
  >
>;

const CAPABILITIES = {
  tools: { listChanged: true },
  resources: { listChanged: true, subscribe: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {},
  extensions: { [TASKS_EXTENSION]: {} },
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
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid resource URI: ${uri}`);
  }
}

/**
 * Takes the reserved `gate_handle` argument off a call (unless the tool itself declares a
 * parameter of that name) and hands it to the gate through the context.
 */
function takeGateHandle(
  catalog: Catalog,
  tool: string,
  args: Record<string, unknown> | undefined,
  extra: RequestExtra,
): Record<string, unknown> | undefined {
  if (!args || !(GATE_HANDLE_ARGUMENT in args)) return args;
  const declared = catalog.getTool(tool)?.definition.inputSchema.properties as
    | Record<string, unknown>
    | undefined;
  if (declared && GATE_HANDLE_ARGUMENT in declared) return args;
  const { [GATE_HANDLE_ARGUMENT]: handle, ...rest } = args;
  if (typeof handle === 'string') extra.gateHandle = handle;
  return rest;
}

export class McpSession {
  #connectionId: string | (() => string) | undefined;
  /**
   * The 2025 `Mcp-Session-Id` this session served, as its requests carried it. Kept here because
   * the SDK drops the transport (and with it the id) before its close hook runs.
   */
  sessionId: string | undefined;
  readonly server: Server;
  /** See {@link SessionOptions.era}. */
  readonly era: Era;
  /** Resource URIs this client subscribed to (2025 `resources/subscribe`). */
  readonly subscriptions = new Set<string>();

  /** See {@link SessionOptions.connectionId}; made by its function on the first read. */
  get connectionId(): string | undefined {
    if (typeof this.#connectionId === 'function') this.#connectionId = this.#connectionId();
    return this.#connectionId;
  }

  constructor(options: SessionOptions) {
    const { catalog, dispatcher, counters } = options;
    this.#connectionId = options.connectionId;
    const server = new Server(options.info, {
      capabilities: CAPABILITIES,
      instructions: options.instructions || undefined,
      cacheHints: options.cacheHints,
      requestState: { verify: options.rounds.verify },
    });
    this.server = server;
    this.era = options.era;
    const initialized = () => server.getClientCapabilities();

    // Counts every request and every failure for the health endpoints, one wrapper per handler.
    const counted =
      <Q, R>(handler: (request: Q, extra: RequestExtra) => Promise<R>) =>
      async (request: Q, ctx: ServerContext): Promise<R> => {
        counters.requests += 1;
        counters.last_request = Date.now();
        try {
          this.sessionId ??= ctx.sessionId;
          const { era, connectionId } = this;
          // Traced and counted by method and era when configured (telemetry/requests.ts).
          return await observeRequest(ctx, era, (request as { params?: unknown }).params, () =>
            handler(request, withV1Aliases(ctx, { era, connectionId, initialized })),
          );
        } catch (error) {
          counters.errors += 1;
          throw error;
        }
      };

    /**
     * Runs a tool or prompt handler with the helpers of {@link toToolContext}. For a 2026
     * request its questions become rounds: a question still unanswered turns the call into
     * `input_required` (even if the handler caught the {@link InputNeeded} and went on), and a
     * malformed answer fails the call with -32602.
     */
    const withRounds = async <R>(
      extra: RequestExtra,
      call: { method: 'tools/call' | 'prompts/get'; name: string; args: unknown },
      run: (ctx: ToolContext) => Promise<R>,
    ): Promise<{ result: R } | { inputRequired: InputRequiredResult }> => {
      const keepsRunning =
        call.method === 'tools/call' ? catalog.getTool(call.name)?.keepsRunning : undefined;
      if (keepsRunning && extra.era === 'modern') {
        // Asked live and answered by the retries: the handler runs once (liveCalls.ts).
        return serveLiveCall(
          extra,
          call,
          { codec: options.rounds, inputTimeoutMs: keepsRunning.inputTimeoutMs },
          (runExtra, detached) =>
            run(toToolContext(runExtra, { rounds: InputRounds.none(), detached })),
        );
      }
      const rounds =
        extra.era === 'modern'
          ? await InputRounds.fromRequest(extra, options.rounds, call)
          : InputRounds.none();
      const ctx = toToolContext(extra, {
        rounds,
        asTask:
          call.method === 'tools/call'
            ? (work) => {
                if (!requestDeclaresTasks(extra)) {
                  throw tasksRequired(
                    `Tool ${call.name} goes on as a task: declare the ${TASKS_EXTENSION} extension`,
                  );
                }
                return startTask(extra, call, keepsRunning ?? {}, async (runExtra, detached) =>
                  toToolResult(
                    await work(toToolContext(runExtra, { rounds: InputRounds.none(), detached })),
                  ),
                );
              }
            : undefined,
      });
      let result: R | undefined;
      try {
        result = await run(ctx);
      } catch (error) {
        if (!(error instanceof InputNeeded) || rounds.failure) throw rounds.failure ?? error;
      }
      if (rounds.failure) throw rounds.failure;
      if (rounds.pending) return { inputRequired: await rounds.toResult(extra) };
      return { result: result as R };
    };

    registerTaskMethods(server, counted as never);

    server.setRequestHandler(
      'tools/list',
      counted(async (_request, extra) => ({
        tools: toolsFor(catalog.listTools(), extra.clientCapabilities),
      })),
    );

    server.setRequestHandler(
      'tools/call',
      counted(async (request, extra) => {
        const { name } = request.params;
        const args = takeGateHandle(catalog, name, request.params.arguments, extra);
        const keepsRunning = catalog.getTool(name)?.keepsRunning;
        const taskable = keepsRunning?.tasks && requestDeclaresTasks(extra);
        if (keepsRunning?.tasks === 'required' && !taskable) {
          throw tasksRequired(
            `Tool ${name} runs only as a task: declare the ${TASKS_EXTENSION} extension`,
          );
        }
        if (taskable) {
          // Answered at once with a task handle; the call runs on (tasks.ts).
          return startTask(extra, { name, args }, keepsRunning, (runExtra, detached) =>
            dispatcher.call(
              name,
              args,
              toToolContext(runExtra, { rounds: InputRounds.none(), detached }),
            ),
          ) as unknown as CallToolResult;
        }
        const asked = await withRounds(extra, { method: 'tools/call', name, args }, (ctx) =>
          dispatcher.call(name, args, ctx),
        );
        if (!('result' in asked)) return asked.inputRequired as unknown as CallToolResult;
        const result = asked.result;
        if (result.isError) counters.errors += 1;
        return result;
      }),
    );

    server.setRequestHandler(
      'resources/list',
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
      'resources/templates/list',
      counted(async () => ({ resourceTemplates: catalog.listTemplates() })),
    );

    server.setRequestHandler(
      'resources/read',
      counted(async (request, extra) => {
        const raw = request.params.uri;
        const url = parseUri(raw);
        const resource = catalog.getResource(raw) ?? catalog.getResource(url.href);
        if (resource) {
          if (!resource.enabled) {
            throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Resource ${raw} disabled`);
          }
          return toReadResult(raw, await resource.read(url, extra));
        }
        const match = catalog.matchTemplate(raw);
        if (match) return toReadResult(raw, await match.entry.read(url, match.variables, extra));
        // -32602 with `data.uri` in both eras (2026-07-28 SEP-2164; the SDK's own error type).
        throw new ResourceNotFoundError(raw, `Resource ${raw} not found`);
      }),
    );

    server.setRequestHandler(
      'resources/subscribe',
      counted(async (request) => {
        this.subscriptions.add(request.params.uri);
        return {};
      }),
    );
    server.setRequestHandler(
      'resources/unsubscribe',
      counted(async (request) => {
        this.subscriptions.delete(request.params.uri);
        return {};
      }),
    );

    server.setRequestHandler(
      'prompts/list',
      counted(async () => ({ prompts: catalog.listPrompts() })),
    );

    server.setRequestHandler(
      'prompts/get',
      counted(async (request, extra) => {
        const { name } = request.params;
        const prompt = catalog.getPrompt(name);
        if (!prompt)
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${name} not found`);
        if (!prompt.enabled)
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${name} disabled`);
        let args: Record<string, unknown> | undefined;
        if (prompt.args) {
          const checked = await prompt.args.validate(request.params.arguments ?? {});
          if (!checked.ok) {
            throw new ProtocolError(
              ProtocolErrorCode.InvalidParams,
              `Invalid arguments for prompt ${name}: ${checked.message}`,
            );
          }
          args = checked.value as Record<string, unknown>;
        }
        // Prompts may ask the client too (`input_required` is allowed on prompts/get).
        const asked = await withRounds(
          extra,
          { method: 'prompts/get', name, args: request.params.arguments },
          async (ctx) =>
            toPromptResult(await (args ? prompt.handler(args, ctx) : prompt.handler(ctx))),
        );
        if (!('result' in asked)) return asked.inputRequired as unknown as GetPromptResult;
        return asked.result;
      }),
    );

    server.setRequestHandler(
      'completion/complete',
      counted(async (request) => {
        const { ref, argument, context } = request.params;
        let complete: Completer | undefined;
        if (ref.type === 'ref/prompt') {
          const prompt = catalog.getPrompt(ref.name);
          if (!prompt)
            throw new ProtocolError(
              ProtocolErrorCode.InvalidParams,
              `Prompt ${ref.name} not found`,
            );
          complete = prompt.completers.get(argument.name);
        } else {
          const template = catalog.getTemplate(ref.uri);
          if (!template) {
            // Completing a fixed URI is not an error in the spec; there is just nothing to offer.
            if (catalog.getResource(ref.uri)) return EMPTY_COMPLETION;
            throw new ProtocolError(
              ProtocolErrorCode.InvalidParams,
              `Resource template ${ref.uri} not found`,
            );
          }
          complete = template.template.completeCallback(argument.name);
        }
        if (!complete) return EMPTY_COMPLETION;
        return completionOf((await complete(argument.value, context)).map(String));
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
