/**
 * The two shapes of configuration: {@link WrittenConfig} is what a user writes (YAML file,
 * environment, command line — every key optional), {@link Config} is the complete, resolved
 * object the rest of the framework reads (defaults filled in, paths absolute).
 *
 * @module
 */

import { CODE_MODES, type CodeMode } from '../catalog/toolListing.ts';
import type { ClusterSettings, WrittenClusterConfig } from '../cluster/settings.ts';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from '../logging/logger.ts';
import type { PinMode } from '../pins/types.ts';
import type { OtelConfig } from '../telemetry/settings.ts';

// Each concern defines its own settings' values; the configuration names them here too.
export { CODE_MODES, type CodeMode, LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel };

/** `http` is Streamable HTTP at `/mcp`; `sse` is the legacy `/sse` + `/messages` pair. */
export const TRANSPORTS = ['stdio', 'http', 'sse'] as const;
export type TransportKind = (typeof TRANSPORTS)[number];

/**
 * One entry of `plugins:`. A local or npm plugin uses `path`; another MCP server used as a
 * plugin uses `command`/`args`/`env`/`cwd` (stdio) or `url`/`headers` (HTTP). Any other key is
 * kept as-is and handed to the plugin's `register(server, config)`.
 */
export interface PluginEntry {
  /** `false` keeps the entry in the file but does not load it. Default `true`. */
  enabled?: boolean;
  /** Tool-name prefix (proxy); `false` turns `auto_prefix` off for this plugin. */
  prefix?: string | false;
  /** A file, folder or npm specifier to load instead of looking the name up. */
  path?: string;
  description?: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  /** Every tool of this plugin carries the deferred-loading hint in `tools/list`. */
  defer_loading?: boolean;
  /** How this plugin's (or mirrored server's) definitions are pinned; default `pins.mode`. */
  pin?: PinMode;
  /** An HTTP API as tools: `{spec, base_url, include, exclude, auth, operations…}` (openapi/settings.ts). */
  openapi?: unknown;
  [pluginSpecific: string]: unknown;
}

/** What a configuration file (or the environment, or the command line) may say. */
export interface WrittenConfig {
  /** Name announced to MCP clients. Default `MCP Server` (programs may pick their own). */
  server_name?: string;
  /** Version announced to MCP clients. Default `0.1.0`. */
  version?: string;
  /** Instructions sent to clients at initialization. Default empty. */
  instructions?: string;
  /** `debug`, `info`, `warning` or `error` (any case). Default `info`. */
  log_level?: LogLevel;
  /** `text` (for people, default) or `json` (one object per line). Both go to stderr. */
  log_format?: LogFormat;
  /** Address to bind. Default `127.0.0.1`: only this machine can connect. */
  host?: string;
  /** MCP HTTP port. Default 12201. */
  port?: number;
  /** Health server port. Default `port + 1`, computed after command-line overrides. */
  health_port?: number;
  /**
   * Address the health server binds. Default `127.0.0.1`, whatever `host` says: its endpoints
   * (`/metrics`, `/health/plugins`) have no authentication.
   */
  health_host?: string;
  /** `stdio` (default), `http` (also written `streamable-http`) or `sse`. */
  transport?: TransportKind;
  /** Streamable HTTP without session ids. Default `false`. */
  stateless?: boolean;
  /** 2025 sessions keep recent SSE events for `Last-Event-ID` resumption. Default `true`. */
  resumable_streams?: boolean;
  /** Seconds a 2025 HTTP session may stay silent before it is closed. Default 1800; 0 never. */
  session_idle_timeout?: number;
  /** Open 2025 HTTP and legacy SSE sessions at most; a new one past it gets 503. Default 1000; 0 no cap. */
  max_sessions?: number;
  /** Open sessions of one caller (principal, else address); past it 429. Default 100; 0 no cap. */
  max_sessions_per_caller?: number;
  /** Open 2026 `subscriptions/listen` streams over HTTP at most. Default 512; 0 no cap. */
  max_listens?: number;
  /** Open listen streams of one caller (over stdio: the connection). Default 32; 0 no cap. */
  max_listens_per_caller?: number;
  /** Largest stdio message in bytes; a larger one is refused and skipped. Default 64 MiB. */
  max_message_size?: number;
  /**
   * Serve HTTP on an address beyond loopback without authentication, on purpose. Default
   * `false`: such a start is refused.
   */
  allow_unauthenticated?: boolean;
  /**
   * OAuth token introspection for HTTP transports. Default: on when `oauth_server_url` or
   * `oauth_public_url` is set; on with a URL missing is a start-up error.
   */
  oauth_enabled?: boolean;
  oauth_server_url?: string;
  oauth_public_url?: string;
  /** Seconds a verified token stays cached. Default 28800 (8 h); 0 disables the cache. */
  oauth_cache_ttl?: number;
  oauth_required_scopes?: string[];
  /** Service accounts: `{name, sha256, groups, claims, scopes}` each (see `auth/apiKeys.ts`). */
  api_keys?: unknown[];
  /** mcp-proxy management API port. Default 12299. */
  management_port?: number;
  /** Bearer token for the management API; unset means no authentication. */
  management_token?: string;
  /** mcp-proxy: the web console on the management port. Default true (`--no-console`). */
  management_console?: boolean;
  auto_prefix?: boolean;
  dynamic_dispatch?: boolean;
  /** `off` (default), `on` or `both` (also `MCP_CODE_MODE`, `--code-mode`); see {@link CodeMode}. */
  code_mode?: CodeMode;
  /**
   * Tools whose `tools/list` entries carry the deferred-loading hint `_meta.defer_loading`:
   * plugin names, tool names, or globs matched against `tool` and `plugin.tool`. Default `[]`.
   */
  defer_loading?: string[];
  /** mcp-proxy: plugins loaded at start-up. */
  autoload?: string[];
  /** mcp-factory: plugins loaded at start-up (wins over `autoload`). */
  plugins_load?: string[];
  plugins?: Record<string, PluginEntry>;
  /** Extra directories searched for plugins. */
  plugin_dirs?: string[];
  /** Per-plugin config files live in `<dir>/<plugin>/config.yaml`. Default `~/mcp_plugins`. */
  plugin_config_dir?: string;
  /**
   * A folder of skill folders (each with a `SKILL.md`) served as Skills (SEP-2640) and watched:
   * a change reaches clients as `resources/list_changed`. Default: none.
   */
  skills_dir?: string;
  /** Directory of the JSON-lines tool-call log. Default `~/.mcp_proxy/logs`. */
  tool_log_dir?: string;
  /**
   * The audit trail: every tool call's decision (allowed, denied and by which rule) appended to
   * this hash-chained JSON-lines file (`mcp-proxy audit verify FILE`). Default: off.
   */
  audit_log?: string;
  /**
   * Extra names whose values the tool-call logs never show, as regular expressions matched
   * case-insensitively (`password`, `token`, `api_key`, … are built in). Default `[]`.
   */
  redact_keys?: string[];
  /** Extra regular expressions; every match in a logged value is replaced. Default `[]`. */
  redact_values?: string[];
  /** Also redact long random-looking strings in the logs (best effort). Default `true`. */
  redact_heuristics?: boolean;
  /** TOTP gate settings, validated by the gate module. */
  gate?: Record<string, unknown>;
  /** Virtual servers: named views over the catalog at `/mcp/<name>` (see `access/settings.ts`). */
  views?: Record<string, unknown>;
  /** Rules deciding who may see and call which tools (see `access/policy.ts`). */
  policy?: Record<string, unknown>;
  /** Over stdio: serve this view instead of the whole catalog. */
  view?: string;
  /** Rate limits, daily quotas and concurrency caps per principal (see `limits/settings.ts`). */
  limits?: Record<string, unknown>;
  /** Large tool results kept server-side, the model given a preview (`results/settings.ts`). */
  result_preview?: Record<string, unknown> | false | null;
  /** Where `${secret:NAME}` in a mirrored server's headers is read (see `secrets/settings.ts`). */
  secrets?: Record<string, unknown>;
  /** Serve Prometheus metrics on the health server. Default `false`. */
  metrics?: boolean;
  /** Cluster mode: replicas share state through Redis (also `MCP_REDIS_URL`). Default off. */
  cluster?: WrittenClusterConfig;
  /**
   * OpenTelemetry traces over OTLP/HTTP (also the standard `OTEL_EXPORTER_OTLP_ENDPOINT`,
   * `OTEL_SERVICE_NAME`). Default off.
   */
  otel?: OtelConfig;
  /**
   * Pinned definitions: each plugin's and mirrored server's tool and prompt definitions are
   * pinned on first sight; a changed or new one is quarantined (`strict`, the default once the
   * section is present), pinned with a warning (`warn`), or not pinned (`off`, also when the
   * section is absent). `file`: where a server alone keeps them (default `~/.mcp_pins.json`);
   * in cluster mode they live in the cluster's Redis.
   */
  pins?: { mode?: PinMode; file?: string };
}

/** The resolved configuration: every key present, paths absolute. */
export interface Config {
  server_name: string;
  version: string;
  instructions: string;
  log_level: LogLevel;
  log_format: LogFormat;
  host: string;
  port: number;
  health_port: number;
  health_host: string;
  transport: TransportKind;
  stateless: boolean;
  resumable_streams: boolean;
  session_idle_timeout: number;
  max_sessions: number;
  max_sessions_per_caller: number;
  max_listens: number;
  max_listens_per_caller: number;
  max_message_size: number;
  allow_unauthenticated: boolean;
  /** Resolved: as written, else whether either OAuth URL is set. */
  oauth_enabled: boolean;
  oauth_server_url: string | undefined;
  oauth_public_url: string | undefined;
  oauth_cache_ttl: number;
  oauth_required_scopes: string[];
  /** As written; parsed where security is built. */
  api_keys: unknown[] | undefined;
  management_port: number;
  management_token: string | undefined;
  management_console: boolean;
  auto_prefix: boolean;
  dynamic_dispatch: boolean;
  code_mode: CodeMode;
  /** As written; plugins with `defer_loading: true` are added where the listing is built. */
  defer_loading: string[];
  autoload: string[];
  plugins_load: string[];
  plugins: Record<string, PluginEntry>;
  plugin_dirs: string[];
  plugin_config_dir: string;
  skills_dir: string | undefined;
  tool_log_dir: string;
  audit_log: string | undefined;
  redact_keys: string[];
  redact_values: string[];
  redact_heuristics: boolean;
  gate: Record<string, unknown> | undefined;
  views: Record<string, unknown> | undefined;
  policy: Record<string, unknown> | undefined;
  view: string | undefined;
  limits: Record<string, unknown> | undefined;
  result_preview: Record<string, unknown> | false | null | undefined;
  secrets: Record<string, unknown> | undefined;
  metrics: boolean;
  /** Cluster mode, when configured (`cluster.redis_url` or `MCP_REDIS_URL`). */
  cluster: ClusterSettings | undefined;
  /** `pins:` with the file made absolute; undefined when absent (nothing pinned by default). */
  pins: { mode: PinMode; file: string } | undefined;
  /** As written; the OTEL_* variables are read where tracing starts (`createServer`). */
  otel: OtelConfig | undefined;
  /** Absolute path of the file this was read from, if any (for messages). */
  config_file: string | undefined;
}

/** Values a program's command line may set; `undefined` means "flag not given". */
export type ConfigOverrides = { [K in keyof WrittenConfig]?: WrittenConfig[K] | undefined };
