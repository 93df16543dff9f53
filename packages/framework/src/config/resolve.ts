/**
 * Turns validated written layers into a complete {@link Config}: later layers win key by key,
 * defaults fill the rest, `health_port` follows `port` unless someone set it.
 *
 * @module
 */
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { Config, WrittenConfig } from './types.ts';

export const DEFAULTS = {
  server_name: 'MCP Server',
  version: '0.1.0',
  instructions: '',
  log_level: 'info',
  log_format: 'text',
  host: '127.0.0.1',
  port: 12201,
  transport: 'stdio',
  stateless: false,
  resumable_streams: true,
  session_idle_timeout: 1800,
  max_sessions: 1000,
  max_sessions_per_caller: 100,
  max_listens: 512,
  max_listens_per_caller: 32,
  max_message_size: 64 * 1024 * 1024,
  allow_unauthenticated: false,
  oauth_cache_ttl: 28800,
  management_port: 12299,
  management_console: true,
  auto_prefix: false,
  dynamic_dispatch: false,
  code_mode: 'off',
  metrics: false,
} as const satisfies WrittenConfig;

export function homeDirectory(env: Readonly<Record<string, string | undefined>>): string {
  return env.HOME || homedir();
}

/** `~/x` → home; a relative path → against `baseDir` (the config file's folder, or the cwd). */
export function absolutePath(path: string, baseDir: string, home: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return isAbsolute(path) ? path : resolve(baseDir, path);
}

/**
 * Makes the path-valued keys of one layer absolute, so a relative `plugin_dirs` entry in a
 * config file means "next to the file", wherever the program was started.
 * A plugin `path` is touched only when it is clearly a file path (`./`, `../`, `~/`), because
 * anything else may be an npm specifier.
 */
export function absolutePaths(layer: WrittenConfig, baseDir: string, home: string): WrittenConfig {
  const out: WrittenConfig = { ...layer };
  if (layer.plugin_dirs)
    out.plugin_dirs = layer.plugin_dirs.map((d) => absolutePath(d, baseDir, home));
  if (layer.plugin_config_dir)
    out.plugin_config_dir = absolutePath(layer.plugin_config_dir, baseDir, home);
  if (layer.skills_dir) out.skills_dir = absolutePath(layer.skills_dir, baseDir, home);
  if (layer.tool_log_dir) out.tool_log_dir = absolutePath(layer.tool_log_dir, baseDir, home);
  if (layer.audit_log) out.audit_log = absolutePath(layer.audit_log, baseDir, home);
  if (layer.pins?.file)
    out.pins = { ...layer.pins, file: absolutePath(layer.pins.file, baseDir, home) };
  if (layer.plugins) {
    out.plugins = Object.fromEntries(
      Object.entries(layer.plugins).map(([name, entry]) => {
        const path = entry.path;
        const looksLikeFile = path !== undefined && /^(\.\.?|~)(\/|$)/.test(path);
        return [
          name,
          looksLikeFile ? { ...entry, path: absolutePath(path, baseDir, home) } : entry,
        ];
      }),
    );
  }
  return out;
}

/** Later layers win, key by key (a `plugins:` map is replaced whole, like any other key). */
export function mergeLayers(layers: readonly WrittenConfig[]): WrittenConfig {
  const merged: Record<string, unknown> = {};
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) if (value !== undefined) merged[key] = value;
  }
  return merged as WrittenConfig;
}

export function resolveConfig(
  written: WrittenConfig,
  context: { home: string; configFile: string | undefined },
): Config {
  const w = { ...DEFAULTS, ...written };
  return {
    server_name: w.server_name,
    version: w.version,
    instructions: w.instructions,
    log_level: w.log_level,
    log_format: w.log_format,
    host: w.host,
    port: w.port,
    // The health server sits next to the MCP port unless told otherwise; computed here, after
    // every layer (including --http), so `--http 8000` gives 8001.
    health_port: written.health_port ?? (w.port === 0 ? 0 : Math.min(w.port + 1, 65535)),
    // Loopback unless configured otherwise: /metrics and /health/plugins have no authentication.
    health_host: written.health_host ?? '127.0.0.1',
    transport: w.transport,
    stateless: w.stateless,
    resumable_streams: w.resumable_streams,
    session_idle_timeout: w.session_idle_timeout,
    max_sessions: w.max_sessions,
    max_sessions_per_caller: w.max_sessions_per_caller,
    max_listens: w.max_listens,
    max_listens_per_caller: w.max_listens_per_caller,
    max_message_size: w.max_message_size,
    allow_unauthenticated: w.allow_unauthenticated,
    // Setting a URL asks for OAuth; createOAuth then refuses to start with the other missing.
    oauth_enabled:
      written.oauth_enabled ??
      (written.oauth_server_url !== undefined || written.oauth_public_url !== undefined),
    oauth_server_url: written.oauth_server_url,
    oauth_public_url: written.oauth_public_url,
    oauth_cache_ttl: w.oauth_cache_ttl,
    oauth_required_scopes: written.oauth_required_scopes ?? [],
    api_keys: written.api_keys,
    management_port: w.management_port,
    management_token: written.management_token,
    management_console: w.management_console,
    auto_prefix: w.auto_prefix,
    dynamic_dispatch: w.dynamic_dispatch,
    code_mode: w.code_mode,
    defer_loading: written.defer_loading ?? [],
    autoload: written.autoload ?? [],
    plugins_load: written.plugins_load ?? [],
    plugins: written.plugins ?? {},
    plugin_dirs: written.plugin_dirs ?? [],
    plugin_config_dir: written.plugin_config_dir ?? join(context.home, 'mcp_plugins'),
    skills_dir: written.skills_dir,
    tool_log_dir: written.tool_log_dir ?? join(context.home, '.mcp_proxy', 'logs'),
    audit_log: written.audit_log,
    redact_keys: written.redact_keys ?? [],
    redact_values: written.redact_values ?? [],
    redact_heuristics: written.redact_heuristics ?? true,
    gate: written.gate,
    views: written.views,
    policy: written.policy,
    view: written.view,
    limits: written.limits,
    result_preview: written.result_preview,
    secrets: written.secrets,
    metrics: w.metrics,
    cluster: written.cluster
      ? {
          redisUrl: written.cluster.redis_url,
          name: written.cluster.name ?? 'mcpbox',
          fallback: written.cluster.fallback ?? 'none',
          ...(written.cluster.secret ? { secret: written.cluster.secret } : {}),
        }
      : undefined,
    otel: written.otel,
    // Present (even empty) pins strictly; a plugin's own `pin:` works without the section too.
    pins:
      written.pins || Object.values(written.plugins ?? {}).some((entry) => entry?.pin)
        ? {
            mode: written.pins?.mode ?? (written.pins ? 'strict' : 'off'),
            file: written.pins?.file ?? join(context.home, '.mcp_pins.json'),
          }
        : undefined,
    config_file: context.configFile,
  };
}
