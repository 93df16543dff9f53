/**
 * Which catalog tools code mode offers to kernel code, and where each one lives in Python:
 * `from mcptools.<package> import <module>`, one package per plugin or mirrored server.
 *
 * Left out: code mode's own tools and every `execute_ipython_cell`/`execute_code` (code calling
 * the kernel again would recurse), `proxy__*` (loading and unloading stay with the client), and
 * app-only tools (MCP Apps `visibility: ["app"]`, such as the viewer's `view_frame_page`): hidden
 * from the model, so not offered to the model's code or its searches either.
 * A plugin whose package name is taken by a server registered with `register_mcp_server` keeps
 * out too: that registration already owns `mcptools.<name>`.
 *
 * Module names come from `renderPackage`, the one renderer, so what `search_tools` prints is
 * what the generated package declares.
 *
 * @module
 */
import { type CatalogToolInfo, isAppOnly } from '@mcpbox/framework';
import type { Tool } from '@modelcontextprotocol/server';
import { toIdentifier } from '../mcptools/pythonSource.ts';
import { type RenderedPackage, renderPackage } from '../mcptools/renderPackage.ts';

/** Tools that run code themselves: not callable from code. */
const EXECUTE_TOOLS = /(^|_)(execute_ipython_cell|execute_code)$/;

export interface CatalogPackage {
  /** The plugin (or mirrored server) name: what the tool server routes the calls by. */
  plugin: string;
  /** The rendered Python package (`mcptools.<rendered.package>`). */
  rendered: RenderedPackage;
  tools: Tool[];
}

/** Where one tool is: its package and module, and how to import it. */
export interface ToolLocation {
  plugin: string;
  package: string;
  module: string;
  tool: Tool;
  /** `from mcptools.<package> import <module>` */
  importLine: string;
}

export class CatalogLayout {
  readonly packages: ReadonlyMap<string, CatalogPackage>;
  readonly #byTool = new Map<string, ToolLocation>();

  constructor(packages: Map<string, CatalogPackage>) {
    this.packages = packages;
    for (const pkg of packages.values()) {
      pkg.rendered.tools.forEach((generated, i) => {
        const name = pkg.rendered.package;
        this.#byTool.set(generated.name, {
          plugin: pkg.plugin,
          package: name,
          module: generated.module,
          tool: pkg.tools[i]!,
          importLine: `from mcptools.${name} import ${generated.module}`,
        });
      });
    }
  }

  /** Where `toolName` lives, if code may call it. */
  locate(toolName: string): ToolLocation | undefined {
    return this.#byTool.get(toolName);
  }

  /** The plugin names whose tools code may call. */
  plugins(): string[] {
    return [...this.packages.values()].map((p) => p.plugin);
  }

  get toolCount(): number {
    return this.#byTool.size;
  }
}

export interface LayoutOptions {
  /** Code mode's own plugin name: its tools are left out. */
  self: string;
  /** Package names taken by registered servers. */
  taken: ReadonlySet<string>;
  /** Told about a plugin that cannot have a package (its name is taken). */
  onSkipped?: (plugin: string, reason: string) => void;
}

/** Whether code may call `tool` of `plugin`. */
export function callableFromCode(plugin: string, tool: Tool, self: string): boolean {
  return (
    plugin !== self &&
    !EXECUTE_TOOLS.test(tool.name) &&
    !tool.name.startsWith('proxy__') &&
    !isAppOnly(tool)
  );
}

/** Groups the catalog's callable tools by plugin and renders each plugin's package. */
export function layoutCatalog(
  tools: readonly CatalogToolInfo[],
  { self, taken, onSkipped }: LayoutOptions,
): CatalogLayout {
  const byPlugin = new Map<string, Tool[]>();
  for (const { plugin, tool } of tools) {
    if (!callableFromCode(plugin, tool, self)) continue;
    const list = byPlugin.get(plugin) ?? [];
    list.push(tool);
    byPlugin.set(plugin, list);
  }
  const packages = new Map<string, CatalogPackage>();
  for (const [plugin, list] of [...byPlugin].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const name = toIdentifier(plugin, { fallback: 'server' });
    if (taken.has(name)) {
      onSkipped?.(
        plugin,
        `mcptools.${name} belongs to a server registered with register_mcp_server`,
      );
      continue;
    }
    const other = packages.get(name);
    if (other) {
      onSkipped?.(plugin, `its Python name mcptools.${name} is taken by plugin '${other.plugin}'`);
      continue;
    }
    packages.set(name, { plugin, rendered: renderPackage(plugin, list), tools: list });
  }
  return new CatalogLayout(packages);
}
