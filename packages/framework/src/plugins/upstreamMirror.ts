/**
 * Mirroring an upstream's catalog: its tools, resources, resource templates and prompts are
 * registered on the plugin's server as the upstream listed them — every field, tool schemas as
 * the raw JSON Schema objects — with handlers that forward each call, read or get to the
 * connection serving at that moment. Calls carry the caller's cancellation, progress and
 * questions (elicitation, sampling) across.
 *
 * Kept apart from the plugin's life cycle (`upstream.ts`) and change following
 * (`upstreamChanges.ts`): this is the one place that knows how an upstream entry becomes a
 * catalog entry.
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
import { SKILLS_EXTENSION_ID, type Skill } from '@modelcontextprotocol/server/ext/skills';
import { z } from 'zod';
import { type AuthIdentity, principalKeyOf } from '../auth/principal.ts';
import type { CallOptions, UpstreamConnection } from '../client/connection.ts';
import type { Logger } from '../contract/logger.ts';
import type { PluginServer, PromptConfig } from '../contract/plugin.ts';
import type { JsonSchemaObject } from '../contract/schema.ts';
import type { RequestExtra, ToolConfig, ToolContext } from '../contract/tool.ts';
import { errorMessage } from '../errors.ts';

/** An upstream's lists, as fetched. */
export interface Lists {
  tools: Tool[];
  resources: Resource[];
  templates: ResourceTemplateDefinition[];
  prompts: Prompt[];
  /** Its Skills (SEP-2640); none when it declares no skills or listing them failed. */
  skills: Skill[];
}

/** Lists are fetched before anything is registered, so a failure registers nothing. */
export async function listEverything(
  connection: UpstreamConnection,
  logger: Logger | undefined,
): Promise<Lists> {
  return {
    tools: await connection.listTools(),
    resources: await connection.listResources(),
    templates: await connection.listResourceTemplates(),
    prompts: await connection.listPrompts(),
    skills: await listSkills(connection, logger),
  };
}

/**
 * The upstream's skills. Skills are an extension beside the catalog: a failing `skills/list`
 * is a warning and no skills, never a failed mirror of the tools.
 */
export async function listSkills(
  connection: UpstreamConnection,
  logger: Logger | undefined,
): Promise<Skill[]> {
  try {
    return await connection.listSkills();
  } catch (error) {
    logger?.warn(
      `upstream '${connection.name}': listing its skills failed, none are mirrored: ${errorMessage(error)}`,
    );
    return [];
  }
}

/**
 * How a handler reaches the upstream for a caller: runs `work` over the connection serving that
 * caller at that moment (the plugin's one connection, or the caller's own with per-user
 * credentials).
 */
export type Route = <T>(
  ctx: RequestExtra,
  work: (connection: UpstreamConnection) => Promise<T>,
) => Promise<T>;

/** Registers every listed entry on `server`; handlers reach the upstream through `route`. */
export function mirror(
  server: PluginServer,
  connection: UpstreamConnection,
  lists: Lists,
  current: Route,
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
  // Skills are served as skills (`upstreamSkills.ts`: the mirror's names, the caller's access),
  // never as plain resources that would pass the upstream's URIs through to every caller.
  const skillFile = skillFileOf(lists.skills);
  for (const resource of lists.resources) {
    if (!skillFile(resource.uri)) mirrorResource(server, resource, current);
  }
  for (const template of lists.templates) {
    if (template.name !== SKILLS_EXTENSION_ID) mirrorTemplate(server, template, current);
  }
  for (const prompt of lists.prompts) mirrorPrompt(server, prompt, current);
}

/** Whether a URI is inside one of `skills` (their folders: the `SKILL.md` URIs' parents). */
function skillFileOf(skills: readonly Skill[]): (uri: string) => boolean {
  const roots = skills.map((skill) => skill.uri.slice(0, skill.uri.lastIndexOf('/') + 1));
  return (uri) => roots.some((root) => uri.startsWith(root));
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

function mirrorTool(server: PluginServer, tool: Tool, current: Route): void {
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
      current(ctx, (upstream) => upstream.callTool(upstreamName, args, forwarding(ctx))),
  );
}

/** Everything of a listed entry except what `registerResource` takes separately. */
function metadataOf<T extends { name: string }>(entry: T, drop: Array<keyof T>) {
  const metadata: Record<string, unknown> = { ...entry };
  for (const key of ['name', ...drop]) delete metadata[key as string];
  return metadata;
}

function mirrorResource(server: PluginServer, resource: Resource, current: Route): void {
  const uri = resource.uri; // as the upstream wrote it, not as URL parsing normalizes it
  server.registerResource(resource.name, uri, metadataOf(resource, ['uri']), (_url, ctx) =>
    current(ctx, (upstream) => upstream.readResource({ uri }, { signal: ctx.signal })),
  );
}

function mirrorTemplate(
  server: PluginServer,
  template: ResourceTemplateDefinition,
  current: Route,
): void {
  server.registerResource(
    template.name,
    new ResourceTemplate(template.uriTemplate, { list: undefined }),
    metadataOf(template, ['uriTemplate']),
    (url, _variables, ctx) =>
      current(ctx, (upstream) => upstream.readResource({ uri: url.href }, { signal: ctx.signal })),
  );
}

function mirrorPrompt(server: PluginServer, prompt: Prompt, current: Route): void {
  const upstreamName = prompt.name;
  // Every field as sent, `arguments` included; the zod shape below only validates calls.
  const config = metadataOf(prompt, []) as PromptConfig;
  const get = (args: Record<string, string> | undefined, ctx: RequestExtra) =>
    current(ctx, (upstream) =>
      upstream.getPrompt(
        args === undefined ? { name: upstreamName } : { name: upstreamName, arguments: args },
        { signal: ctx.signal },
      ),
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
