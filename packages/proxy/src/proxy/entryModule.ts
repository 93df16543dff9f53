/**
 * `plugins:` entries whose module the config itself describes, rather than code found by name or
 * `path`: another MCP server (`command`/`url`, upstream.ts) or an HTTP API with an OpenAPI
 * document (`openapi:`, the framework's `openapiPlugin`). The one place mcp-proxy and
 * mcp-factory ask which kind an entry is and build its module.
 *
 * @module
 */
import {
  openapiPlugin,
  type PluginConfig,
  type PluginModule,
  type SkillOffers,
} from '@mcpbox/framework';
import { isUpstreamEntry, upstreamModule } from './upstream.ts';

export type EntryKind = 'plugin' | 'upstream' | 'openapi';

/** What a mirrored server's module takes beside its entry. */
export interface MirrorSettings {
  secrets: Record<string, unknown> | undefined;
  prefix?: string | false;
  skillOffers?: SkillOffers;
}

/** What an entry is: a mirrored MCP server, an OpenAPI API, or plugin code. */
export function entryKind(settings: {
  command?: unknown;
  url?: unknown;
  openapi?: unknown;
}): EntryKind {
  if (settings.openapi !== undefined) return 'openapi';
  return isUpstreamEntry(settings) ? 'upstream' : 'plugin';
}

/**
 * The module of an entry the config describes, or undefined for plugin code. Its `dispose()`
 * (a connection to close, credentials to forget) is for whoever unloads it.
 *
 * @param reload re-registers the loaded plugin (a mirrored server's list changed).
 * @param mirror for a mirrored server: the `secrets:` backend, the plugin's prefix (its skills get
 *   it too) and where its skills are served.
 * @throws naming the entry's wrong key.
 */
export function entryModule(
  name: string,
  settings: PluginConfig,
  env: Readonly<Record<string, string | undefined>>,
  reload: (plugin: string) => Promise<unknown>,
  mirror: MirrorSettings,
): PluginModule | undefined {
  const { secrets } = mirror;
  switch (entryKind(settings)) {
    case 'openapi':
      return openapiPlugin(name, settings.openapi, { env, secrets });
    case 'upstream':
      return upstreamModule(name, settings, env, reload, mirror);
    case 'plugin':
      return undefined;
  }
}
