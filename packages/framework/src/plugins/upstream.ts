/**
 * Another MCP server as a plugin: `upstreamPlugin(name, params)` returns a plugin module whose
 * `register()` connects to the server and mirrors its tools, resources, resource templates and
 * prompts into the catalog. Definitions are passed on as the upstream sent them — every field,
 * tool schemas as the raw JSON Schema objects (clients see them byte for byte); calls are
 * forwarded with progress and cancellation, and the upstream's results come back unchanged
 * (content, structuredContent, isError).
 *
 * Either protocol era, upstream and downstream: when the upstream asks for input in the middle
 * of a call (elicitation or sampling — `input_required` in 2026-07-28, a request in 2025), the
 * question goes to the caller's `ctx.elicit` / `ctx.sample`, which reach the downstream client
 * its own era's way, and the answer goes back upstream.
 *
 * When the upstream announces a list change, the list is fetched again and compared with what is
 * mirrored: only a real difference counts (server-everything, for one, announces a change right
 * after every connect). A real change reloads the plugin through `reload` — re-registering over
 * the running connection, so clients get `list_changed` — or, without one, is logged.
 *
 * If the upstream dies, the next call restarts it; if that fails, the call is an `isError`
 * result saying why. `dispose()` closes the connection (and ends a stdio upstream); whoever
 * unloads the plugin calls it (mcp-proxy does; `PluginRegistry.unloadPlugin` alone does not).
 *
 * @module
 */

import type {
  Prompt,
  Resource,
  ResourceTemplateType as ResourceTemplateDefinition,
  Tool,
} from '@modelcontextprotocol/server';
import { ResourceTemplate } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { type AuthIdentity, principalKeyOf } from '../auth/principal.ts';
import {
  type CallOptions,
  type ListKind,
  UpstreamConnection,
  type UpstreamConnectionOptions,
} from '../client/connection.ts';
import { describeUpstream, type UpstreamParams } from '../client/params.ts';
import { VerdictCache } from '../client/verdicts.ts';
import type { Logger } from '../contract/logger.ts';
import type { PluginModule, PluginServer, PromptConfig } from '../contract/plugin.ts';
import type { JsonSchemaObject } from '../contract/schema.ts';
import type { RequestExtra, ToolConfig, ToolContext } from '../contract/tool.ts';
import { errorMessage } from '../errors.ts';
import { rememberUpstreamSecrets } from './upstreamSecrets.ts';

/** What changed in one list, by name (tools, prompts) or URI (resources and templates). */
export interface ListChange {
  added: string[];
  removed: string[];
  changed: string[];
}

export interface UpstreamPluginOptions extends Omit<UpstreamConnectionOptions, 'onListChanged'> {
  /**
   * Re-registers the plugin (a host passes its registry's `reloadPlugin`). Called when the
   * upstream's tools, resources or prompts really changed: the plugin lists them again over the
   * running connection and clients are told. Without it, the change is only logged.
   */
  reload?: (plugin: string) => Promise<unknown>;
  /** Told of every real change, after it was handled (for hosts that watch, and tests). */
  onListChanged?: (kind: ListKind, change: ListChange) => void;
}

/** A plugin module mirroring one upstream MCP server. */
export interface UpstreamPlugin extends PluginModule {
  readonly description: string;
  /** The connection of the latest `register()`, until `dispose()`. */
  readonly connection: UpstreamConnection | undefined;
  /** Closes the connection, ending a stdio upstream and its children. Idempotent. */
  dispose(): Promise<void>;
}

/** The upstream's lists as last mirrored, each entry as JSON by name or URI. */
interface Snapshot {
  tools: Map<string, string>;
  resources: Map<string, string>;
  prompts: Map<string, string>;
}

/**
 * Era verdicts of every mirror in this process (keyed by upstream name and expanded params), so a
 * host that reloads a mirror with a new module — mcp-proxy does — does not probe again.
 */
const processVerdicts = new VerdictCache();

/** How long announcements are gathered before the list is fetched again. */
const CHANGE_SETTLE_MS = 100;

/**
 * @param name names the upstream in messages and logs ("upstream 'github' …").
 * @param params as written: `${VAR}` placeholders are expanded at each connect, never stored.
 */
export function upstreamPlugin(
  name: string,
  params: UpstreamParams,
  options: UpstreamPluginOptions = {},
): UpstreamPlugin {
  const { reload, onListChanged, ...connectionOptions } = options;
  let connection: UpstreamConnection | undefined;
  let plugin = name;
  let logger: Logger | undefined;
  // The configured credentials, redacted from the tool-call logs while the plugin is loaded.
  let forgetSecrets = () => {};
  /** The latest mirror: settles when its lists are in (or failed). */
  let mirroring: Promise<Snapshot | undefined> = Promise.resolve(undefined);
  const pending = new Map<ListKind, NodeJS.Timeout>();
  // Handlers look the connection up at call time: a re-register (reload) replaces it.
  const current = (): UpstreamConnection => {
    if (!connection) throw new Error(`upstream '${name}' was unloaded`);
    return connection;
  };

  /** The upstream said `kind` changed: compare with the mirror, act only on a difference. */
  const announced = (kind: ListKind) => {
    clearTimeout(pending.get(kind));
    const timer = setTimeout(() => {
      pending.delete(kind);
      void recheck(kind).catch((error) =>
        logger?.warn(
          `upstream '${name}' announced a change to its ${kind}, but listing them failed: ${errorMessage(error)}`,
        ),
      );
    }, CHANGE_SETTLE_MS);
    timer.unref();
    pending.set(kind, timer);
  };

  const recheck = async (kind: ListKind) => {
    const active = connection;
    const mirrored = await mirroring;
    if (!active || active !== connection || active.closed || !mirrored) return;
    const now = await snapshotOf(active, kind);
    const change = difference(mirrored[kind], now);
    if (!change) {
      logger?.debug(`upstream '${name}' announced a change to its ${kind}; nothing changed`);
      return;
    }
    const what = describeChange(kind, change);
    if (reload) {
      logger?.info(`upstream '${name}' changed its ${what}; mirroring the change`);
      const result = (await reload(plugin)) as { ok?: boolean; error?: string } | undefined;
      if (result?.ok === false) {
        logger?.warn(`upstream '${name}': mirroring the change failed: ${result.error}`);
      }
    } else {
      logger?.warn(
        `upstream '${name}' changed its ${what}; reload plugin '${plugin}' to mirror the change`,
      );
    }
    onListChanged?.(kind, change);
  };

  return {
    description: `MCP server: ${describeUpstream(params)}`,
    get connection() {
      return connection;
    },

    async register(server: PluginServer) {
      plugin = server.name;
      logger = connectionOptions.logger ?? server.logger;
      // Registering the same module again (a reload that keeps the module, or mcp-proxy's
      // stage-then-swap) re-lists over the running connection instead of starting a second
      // process; a connection that died restarts on first use anyway.
      const fresh = connection === undefined || connection.closed;
      if (fresh) {
        forgetSecrets();
        forgetSecrets = rememberUpstreamSecrets(name, params, connectionOptions.env);
        connection = new UpstreamConnection(name, params, {
          verdicts: processVerdicts,
          ...connectionOptions,
          logger,
          onListChanged: announced,
        });
      }
      const active = connection as UpstreamConnection;
      const listed = listEverything(active);
      mirroring = listed.then(
        (lists) => snapshotFrom(lists),
        () => undefined,
      );
      try {
        mirror(server, active, await listed, current, logger);
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
      for (const timer of pending.values()) clearTimeout(timer);
      pending.clear();
      forgetSecrets();
      const closing = connection;
      connection = undefined;
      await closing?.close();
    },
  };
}

interface Lists {
  tools: Tool[];
  resources: Resource[];
  templates: ResourceTemplateDefinition[];
  prompts: Prompt[];
}

/** Lists are fetched before anything is registered, so a failure registers nothing. */
async function listEverything(connection: UpstreamConnection): Promise<Lists> {
  return {
    tools: await connection.listTools(),
    resources: await connection.listResources(),
    templates: await connection.listResourceTemplates(),
    prompts: await connection.listPrompts(),
  };
}

function keyed<T>(items: T[], key: (item: T) => string): Map<string, string> {
  return new Map(items.map((item) => [key(item), JSON.stringify(item)]));
}

function snapshotFrom(lists: Lists): Snapshot {
  return {
    tools: keyed(lists.tools, (tool) => tool.name),
    resources: new Map([
      ...keyed(lists.resources, (resource) => resource.uri),
      ...keyed(lists.templates, (template) => template.uriTemplate),
    ]),
    prompts: keyed(lists.prompts, (prompt) => prompt.name),
  };
}

async function snapshotOf(connection: UpstreamConnection, kind: ListKind) {
  if (kind === 'tools') return keyed(await connection.listTools(), (tool) => tool.name);
  if (kind === 'prompts') return keyed(await connection.listPrompts(), (prompt) => prompt.name);
  return new Map([
    ...keyed(await connection.listResources(), (resource) => resource.uri),
    ...keyed(await connection.listResourceTemplates(), (template) => template.uriTemplate),
  ]);
}

/** What differs between two listings, or nothing when they are the same. */
function difference(
  before: Map<string, string>,
  after: Map<string, string>,
): ListChange | undefined {
  const added = [...after.keys()].filter((key) => !before.has(key));
  const removed = [...before.keys()].filter((key) => !after.has(key));
  const changed = [...after.keys()].filter(
    (key) => before.has(key) && before.get(key) !== after.get(key),
  );
  if (added.length + removed.length + changed.length === 0) return undefined;
  return { added, removed, changed };
}

function describeChange(kind: ListKind, change: ListChange): string {
  const parts = (['added', 'removed', 'changed'] as const)
    .filter((part) => change[part].length > 0)
    .map((part) => `${part} ${change[part].join(', ')}`);
  return `${kind} (${parts.join('; ')})`;
}

function mirror(
  server: PluginServer,
  connection: UpstreamConnection,
  lists: Lists,
  current: () => UpstreamConnection,
  logger: Logger | undefined,
): void {
  for (const tool of lists.tools) {
    if (needsTasks(tool)) {
      // A plain tools/call to it always fails; listing it would only offer a broken tool.
      logger?.warn(
        `upstream '${connection.name}': tool '${tool.name}' requires MCP tasks, which mirrored servers do not support yet; not mirrored`,
      );
      continue;
    }
    mirrorTool(server, tool, current);
  }
  for (const resource of lists.resources) mirrorResource(server, resource, current);
  for (const template of lists.templates) mirrorTemplate(server, template, current);
  for (const prompt of lists.prompts) mirrorPrompt(server, prompt, current);
}

/** Tools that may only run as MCP tasks (`execution.taskSupport: 'required'`). */
export function needsTasks(tool: Tool): boolean {
  return tool.execution?.taskSupport === 'required';
}

/**
 * Who is calling, for routing a 2025 upstream's questions: the connection (stdio, a 2025 HTTP
 * session, SSE), else the authenticated principal; a 2026 HTTP request without either is a
 * caller of its own.
 */
function callerOf(ctx: RequestExtra): string | undefined {
  if (ctx.connectionId !== undefined) return `connection:${ctx.connectionId}`;
  const auth = ctx.authInfo as AuthIdentity | undefined;
  if (!auth) return undefined;
  return `principal:${principalKeyOf(auth) ?? ''}`;
}

/**
 * Forwards the caller's cancellation, progress when the caller asked for it, and the upstream's
 * questions to the caller's own `elicit` / `sample`.
 */
function forwarding(ctx: RequestExtra & Partial<ToolContext>): CallOptions {
  const wantsProgress = ctx._meta?.progressToken !== undefined;
  const { reportProgress, elicit, sample } = ctx;
  return {
    signal: ctx.signal,
    onprogress:
      wantsProgress && reportProgress
        ? (p) => void reportProgress(p.progress, p.total, p.message).catch(() => undefined)
        : undefined,
    elicit: elicit && ((params) => elicit(params)),
    sample: sample && ((params) => sample(params)),
    caller: callerOf(ctx),
  };
}

function mirrorTool(server: PluginServer, tool: Tool, current: () => UpstreamConnection): void {
  // The name is captured before any prefix: the upstream knows its tools by their own names.
  const { name: upstreamName, inputSchema, outputSchema, ...listing } = tool;
  // Everything the upstream sent is handed on (execution, icons, _meta, fields this version
  // does not know); the schemas stay the very objects received.
  const config = {
    ...listing,
    inputSchema: inputSchema as JsonSchemaObject,
    ...(outputSchema !== undefined && { outputSchema: outputSchema as JsonSchemaObject }),
  } as ToolConfig<JsonSchemaObject>;
  server.registerTool(
    upstreamName,
    config,
    // Errors (upstream gone and not restartable, timeouts …) become isError results upstream of
    // here, in the catalog's runTool; the upstream's own isError results pass through as they
    // are. An error the caller raised answering a question (e.g. a 2026 client that must be
    // asked first) is rethrown as it is, for the catalog to handle.
    (args: Record<string, unknown>, ctx: ToolContext) =>
      current().callTool(upstreamName, args, forwarding(ctx)),
  );
}

/** Everything of a listed entry except what `registerResource` takes separately. */
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
  // Every field as sent, `arguments` included; the zod shape below only validates calls.
  const config = metadataOf(prompt, []) as PromptConfig;
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
