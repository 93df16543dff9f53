/**
 * Views (virtual servers): named selections over the one catalog, each served at
 * `/mcp/<name>` and over stdio with `--view <name>`. A view decides which tools, resources and
 * prompts exist for a caller that came through it; policy (policy.ts) then decides which of
 * them a given principal may see and call.
 *
 * Selection: a view with no `plugins`, `tools`, `tags`, `resources` or `prompts` shows the whole
 * catalog. Otherwise a tool is in it when its plugin is listed, its name matches `tools` or one
 * of its tags is in `tags`; a resource when its plugin is listed or its URI matches `resources`;
 * a prompt when its plugin is listed or its name matches `prompts`.
 *
 * Presentation (names, descriptions, fixed arguments) is this view's alone: the catalog and
 * every other route keep the catalog's names.
 *
 * @module
 */
import type { Tool } from '@modelcontextprotocol/server';
import { namesMatcher } from './globs.ts';
import type { ViewSettings } from './settings.ts';

/** Where a tool's tags live in its listing. */
export const TAGS_META_KEY = 'io.mcpbox/tags';

/** What a view and a policy rule read of a tool. */
export interface ToolSubject {
  readonly name: string;
  readonly plugin: string;
  readonly definition: Tool;
}

/** The tags a tool declares in `_meta["io.mcpbox/tags"]`. */
export function tagsOf(tool: Tool): string[] {
  const tags = tool._meta?.[TAGS_META_KEY];
  return Array.isArray(tags) ? tags.filter((t): t is string => typeof t === 'string') : [];
}

export class View {
  readonly name: string;
  readonly settings: ViewSettings;
  readonly #everything: boolean;
  readonly #plugins: ReadonlySet<string>;
  readonly #tools: (name: string) => boolean;
  readonly #tags: ReadonlySet<string>;
  readonly #resources: (uri: string) => boolean;
  readonly #prompts: (name: string) => boolean;
  /** Exposed name → catalog name. */
  readonly #renamed = new Map<string, string>();

  constructor(name: string, settings: ViewSettings) {
    this.name = name;
    this.settings = settings;
    const { plugins, tools, tags, resources, prompts } = settings;
    this.#everything = [plugins, tools, tags, resources, prompts].every((s) => s === undefined);
    this.#plugins = new Set(plugins ?? []);
    this.#tools = namesMatcher(tools);
    this.#tags = new Set(tags ?? []);
    this.#resources = namesMatcher(resources);
    this.#prompts = namesMatcher(prompts);
    for (const [catalogName, exposed] of Object.entries(settings.rename ?? {})) {
      this.#renamed.set(exposed, catalogName);
    }
  }

  includesTool(tool: ToolSubject): boolean {
    if (this.#everything || this.#plugins.has(tool.plugin) || this.#tools(tool.name)) return true;
    if (this.#tags.size === 0) return false;
    return tagsOf(tool.definition).some((tag) => this.#tags.has(tag));
  }

  includesResource(uri: string, plugin: string): boolean {
    return this.#everything || this.#plugins.has(plugin) || this.#resources(uri);
  }

  includesPrompt(name: string, plugin: string): boolean {
    return this.#everything || this.#plugins.has(plugin) || this.#prompts(name);
  }

  /** The name this view lists a catalog tool by. */
  exposedName(catalogName: string): string {
    return this.settings.rename?.[catalogName] ?? catalogName;
  }

  /**
   * The catalog name of a tool called by `exposed` through this view; a catalog name that the
   * view renamed is not callable by that name here (it is `undefined`).
   */
  catalogName(exposed: string): string | undefined {
    const renamed = this.#renamed.get(exposed);
    if (renamed !== undefined) return renamed;
    return this.settings.rename?.[exposed] === undefined ? exposed : undefined;
  }

  /** The tool as this view lists it: renamed, its description replaced, fixed arguments hidden. */
  present(tool: Tool): Tool {
    const name = this.exposedName(tool.name);
    const description =
      this.settings.descriptions?.[tool.name] ?? this.settings.descriptions?.[name];
    const fixed = this.settings.fixed_arguments?.[tool.name];
    if (name === tool.name && description === undefined && fixed === undefined) return tool;
    return {
      ...tool,
      name,
      ...(description !== undefined ? { description } : {}),
      ...(fixed !== undefined ? { inputSchema: withoutArguments(tool.inputSchema, fixed) } : {}),
    };
  }

  /** The arguments of a call through this view: the fixed ones set over what the caller sent. */
  argumentsFor(
    catalogName: string,
    args: Record<string, unknown> | undefined,
  ): Record<string, unknown> | undefined {
    const fixed = this.settings.fixed_arguments?.[catalogName];
    return fixed === undefined ? args : { ...args, ...fixed };
  }
}

/** A schema without the named properties (the caller cannot set them). */
function withoutArguments(
  schema: Tool['inputSchema'],
  fixed: Record<string, unknown>,
): Tool['inputSchema'] {
  const properties = { ...(schema.properties ?? {}) };
  for (const key of Object.keys(fixed)) delete properties[key];
  const required = schema.required?.filter((key) => !(key in fixed));
  return { ...schema, properties, ...(required ? { required } : {}) };
}

/** What a caller asking for a view that is not configured is told: the views there are. */
export function unknownViewMessage(name: string, known: readonly string[]): string {
  const views =
    known.length > 0
      ? `the views are ${known.join(', ')}`
      : 'no views are configured (views: in the config file)';
  return `no view named "${name}": ${views}`;
}
