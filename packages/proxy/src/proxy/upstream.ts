/**
 * `plugins:` entries that name another MCP server — `command`/`args`/`env`/`cwd` (stdio) or
 * `url`/`headers` (Streamable HTTP, falling back to SSE) — become plugins mirroring that server's
 * tools, resources and prompts, through the framework's `upstreamPlugin`. Its module owns the
 * connection; the manager disposes of it on unload. `connect_timeout` and `request_timeout`
 * (seconds; defaults 30 and 60) bound the handshake and each forwarded request. Either protocol
 * era is spoken to upstreams (negotiated at the first connect, remembered for the next); a real
 * change of the upstream's lists calls `reload`, which re-registers the mirror.
 *
 * Per-user credentials of an HTTP entry: `${secret:NAME}` in `headers` (NAME may hold
 * `{principal}` or `{subject}`; read from the config's `secrets:` backend), `list_headers` for the
 * load-time listing, and `token_exchange` (RFC 8693) — the framework's `upstreamCredentials.ts`.
 *
 * @module
 */
import {
  type PluginConfig,
  parseSecretsConfig,
  parseTokenExchange,
  parseUpstreamParams,
  type UpstreamCredentialSettings,
  type UpstreamPlugin,
  upstreamPlugin,
} from '@mcpbox/framework';
import type { MirrorSettings } from './entryModule.ts';

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

/**
 * A plugin module mirroring the server the entry names; its `dispose()` closes the connection.
 * Its skills are served under `prefix` (the framework's `upstreamSkills.ts`).
 * `reload(plugin)` should re-register the loaded module (the registry's `reloadPlugin`): it is
 * how a change of the upstream's tools, resources or prompts reaches clients.
 *
 * @throws naming the entry's wrong key, e.g. `plugins.github.args.1: expected a string`.
 */
export function upstreamModule(
  name: string,
  settings: PluginConfig,
  env: Readonly<Record<string, string | undefined>>,
  reload?: (plugin: string) => Promise<unknown>,
  { secrets, prefix, skillOffers }: MirrorSettings = { secrets: undefined },
): UpstreamPlugin {
  const params = parseUpstreamParams(upstreamParamsOf(settings), `plugins.${name}`);
  return upstreamPlugin(name, params, {
    env,
    connectTimeoutMs: seconds(settings, 'connect_timeout', name),
    requestTimeoutMs: seconds(settings, 'request_timeout', name),
    reload,
    credentials: credentialsOf(name, settings, secrets),
    prefix,
    skillOffers,
  });
}

/** `list_headers`, `token_exchange` and the `secrets:` backend, for an HTTP entry. */
function credentialsOf(
  name: string,
  settings: PluginConfig,
  secrets: Record<string, unknown> | undefined,
): UpstreamCredentialSettings | undefined {
  if (settings.url === undefined) return undefined;
  const label = `plugins.${name}`;
  const listHeaders = settings.list_headers;
  if (
    listHeaders !== undefined &&
    (typeof listHeaders !== 'object' ||
      listHeaders === null ||
      Object.values(listHeaders).some((value) => typeof value !== 'string'))
  ) {
    throw new Error(`${label}.list_headers: expected an object of strings`);
  }
  return {
    secrets: parseSecretsConfig(secrets),
    ...(listHeaders !== undefined && { listHeaders: listHeaders as Record<string, string> }),
    ...(settings.token_exchange !== undefined && {
      tokenExchange: parseTokenExchange(settings.token_exchange, `${label}.token_exchange`),
    }),
  };
}

/** `connect_timeout: 10` (seconds) → 10 000 ms; absent → the framework's default. */
function seconds(settings: PluginConfig, key: string, name: string): number | undefined {
  const value = settings[key];
  if (value === undefined) return undefined;
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number !== 'number' || !(number > 0)) {
    throw new Error(
      `plugins.${name}.${key}: expected a number of seconds, got ${JSON.stringify(value)}`,
    );
  }
  return number * 1000;
}
