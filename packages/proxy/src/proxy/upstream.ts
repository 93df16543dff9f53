/**
 * `plugins:` entries that name another MCP server — `command`/`args`/`env`/`cwd` (stdio) or
 * `url`/`headers` (Streamable HTTP, falling back to SSE) — become plugins mirroring that server's
 * tools, resources and prompts, through the framework's `upstreamPlugin`. Its module owns the
 * connection; the manager closes it on unload.
 *
 * @module
 */
import type { PluginConfig, PluginModule } from '@mcpbox/framework';

const STDIO_KEYS = ['command', 'args', 'env', 'cwd'] as const;
const HTTP_KEYS = ['url', 'headers'] as const;

/** True for an entry that names another MCP server rather than plugin code. */
export function isUpstreamEntry(settings: { command?: unknown; url?: unknown }): boolean {
  return settings.command !== undefined || settings.url !== undefined;
}

/** The connection keys of an entry (placeholders kept: they are expanded at connect time). */
export function upstreamParamsOf(settings: PluginConfig): Record<string, unknown> {
  const keys = settings.command !== undefined ? STDIO_KEYS : HTTP_KEYS;
  const params: Record<string, unknown> = {};
  for (const key of keys) if (settings[key] !== undefined) params[key] = settings[key];
  return params;
}

type UpstreamPluginFactory = (
  name: string,
  params: unknown,
  options?: Record<string, unknown>,
) => PluginModule & { close?: () => Promise<void> };

let factory: Promise<UpstreamPluginFactory> | undefined;

/** The framework's `upstreamPlugin`, imported on first use (most proxies mirror nothing). */
async function upstreamPluginFactory(): Promise<UpstreamPluginFactory> {
  factory ??= import(
    new URL('../../../framework/src/plugins/upstream.ts', import.meta.url).href
  ).then((m: { upstreamPlugin: UpstreamPluginFactory }) => m.upstreamPlugin);
  return factory;
}

/** A plugin module mirroring the server the entry names. */
export async function upstreamModule(
  name: string,
  settings: PluginConfig,
  env: Readonly<Record<string, string | undefined>>,
): Promise<PluginModule & { close?: () => Promise<void> }> {
  const upstreamPlugin = await upstreamPluginFactory();
  return upstreamPlugin(name, upstreamParamsOf(settings), { env });
}
