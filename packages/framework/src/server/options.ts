/**
 * What a server is told: the options `createServer` takes, read from the config file or given in
 * code, and the small derivations the transports need from them. Kept apart from the assembly so
 * that the option surface reads on its own.
 *
 * @module
 */
import type { Express, RequestHandler } from 'express';
import { type AccessSettings, parseAccessSettings } from '../access/settings.ts';
import type { ClusterLink } from '../cluster/link.ts';
import type { CodeMode, Config, TransportKind } from '../config/types.ts';
import type { Logger } from '../contract/logger.ts';
import type { ProxyCommands } from '../contract/plugin.ts';
import { type LimitSettings, parseLimitSettings } from '../limits/settings.ts';
import type { PinSettings } from '../pins/index.ts';
import { parseResultPreview, type ResultPreviewSettings } from '../results/settings.ts';
import type { OtelConfig } from '../telemetry/index.ts';
import type { ListenLimits } from '../transports/listenLimits.ts';

export interface ServerOptions {
  /** Announced to clients. Default `mcpbox`. */
  name?: string;
  /** Default `0.1.0`. */
  version?: string;
  /** Sent to clients at initialization. */
  instructions?: string;
  /**
   * `stdio` (default); `http` serves Streamable HTTP at `/mcp` and legacy SSE at `/sse` +
   * `/messages`; `sse` serves only the legacy pair.
   */
  transport?: TransportKind;
  /** Default `127.0.0.1`: only this machine can connect. */
  host?: string;
  /** Default 0: any free port (the bound URL comes back from `start()`). */
  port?: number;
  /**
   * Streamable HTTP without session ids: a fresh SDK server per request. Default `false`.
   * Requests from server to client mid-call (sampling, elicitation) need a session and do not
   * work stateless: the client's answer arrives in another request, at another server.
   */
  stateless?: boolean;
  /**
   * Keep each 2025 session's recent SSE events so a client resumes a broken stream with
   * `Last-Event-ID` (and gets `retry:` priming events). Default `true`. Off saves the SDK's
   * priming-event round on every streamed response (~1.4 ms per call here, measured).
   */
  resumableStreams?: boolean;
  /** Seconds a 2025 HTTP session may stay silent before it is closed; default 1800, 0 never. */
  sessionIdleTimeout?: number;
  /** Open 2025 HTTP and legacy SSE sessions at most (503 past it); default 1000, 0 no cap. */
  maxSessions?: number;
  /** Open sessions per caller (principal, else address; 429 past it); default 100, 0 no cap. */
  maxSessionsPerCaller?: number;
  /** Open 2026 `subscriptions/listen` streams over HTTP at most; default 512, 0 no cap. */
  maxListens?: number;
  /** Open listen streams per caller (over stdio: the connection); default 32, 0 no cap. */
  maxListensPerCaller?: number;
  /** Largest stdio message in bytes; default 64 MiB. */
  maxMessageBytes?: number;
  /** Host names accepted in `Host`/`Origin`; default the loopback names for a loopback bind. */
  allowedHosts?: string[];
  /** Runs before the MCP routes (e.g. OAuth bearer checks). */
  httpMiddleware?: RequestHandler[];
  /** Adds routes (e.g. `/.well-known/…`) to the HTTP app. */
  configureApp?: (app: Express) => void;
  logger?: Logger;
  /** Directories searched for plugins, in order. */
  pluginDirs?: string[];
  /** Handed to plugins as `server.proxy`; set by `mcp-proxy` only. */
  proxy?: ProxyCommands;
  /**
   * `on`: `tools/list` shows only the `code_mode` plugin's tools and those of
   * `listedInCodeMode`; every tool stays callable. `both`/`off` (default): every tool.
   */
  codeMode?: CodeMode;
  /** Plugins whose tools stay listed with `codeMode: 'on'` (mcp-proxy: its `proxy__*` tools). */
  listedInCodeMode?: string[];
  /**
   * Tools listed with the deferred-loading hint `_meta.defer_loading: true`: plugin names, tool
   * names, or globs over `tool` and `plugin.tool`.
   */
  deferLoading?: string[];
  /**
   * Key sealing 2026 `requestState` (HMAC); default a random key per process. Replicas behind
   * one load balancer share one (cluster mode), so a round trip may land on any of them.
   */
  requestStateKey?: string;
  /** Cluster mode: the link to the cluster's Redis, handed to plugins as `server.cluster`. */
  cluster?: ClusterLink;
  /**
   * OpenTelemetry traces over OTLP/HTTP; without an endpoint here or in `OTEL_EXPORTER_OTLP_*`,
   * off (and the SDK never loaded).
   */
  otel?: OtelConfig;
  /** Views (virtual servers) and policy; none by default: every caller sees the whole catalog. */
  access?: AccessSettings;
  /** Over stdio: the view the connection is served (a name in `access.views`). */
  view?: string;
  /** Rate limits, daily quotas and concurrency caps per principal; none by default. */
  limits?: LimitSettings;
  /**
   * Pinned definitions (`pins:`): each loaded plugin's and mirrored server's tool and prompt
   * definitions pinned on first sight, changed and new ones quarantined until approved. None:
   * nothing is pinned, unless a plugin's own `pin:` setting asks.
   */
  pins?: PinSettings;
  /** Results too large for the model kept server-side, with a preview (`result_preview:`). */
  resultPreview?: ResultPreviewSettings;
}

/** Maps the resolved config file (snake_case) to server options. */
export function serverOptionsFromConfig(config: Config): ServerOptions {
  return {
    name: config.server_name,
    version: config.version,
    instructions: config.instructions,
    transport: config.transport,
    host: config.host,
    port: config.port,
    stateless: config.stateless,
    resumableStreams: config.resumable_streams,
    sessionIdleTimeout: config.session_idle_timeout,
    maxSessions: config.max_sessions,
    maxSessionsPerCaller: config.max_sessions_per_caller,
    maxListens: config.max_listens,
    maxListensPerCaller: config.max_listens_per_caller,
    maxMessageBytes: config.max_message_size,
    pluginDirs: config.plugin_dirs,
    codeMode: config.code_mode,
    deferLoading: [
      ...config.defer_loading,
      ...Object.entries(config.plugins)
        .filter(([, entry]) => entry.defer_loading === true)
        .map(([name]) => name),
    ],
    otel: config.otel,
    access: parseAccessSettings(config),
    view: config.view,
    limits: parseLimitSettings(config.limits),
    pins: config.pins,
    resultPreview: parseResultPreview(config.result_preview),
  };
}

/** The caps on 2026 listen streams, as the stdio and Streamable HTTP transports take them. */
export function listenLimitsOf(options: ServerOptions): ListenLimits {
  return { maxListens: options.maxListens, maxListensPerCaller: options.maxListensPerCaller };
}

function isConfig(value: ServerOptions | Config): value is Config {
  return 'server_name' in value;
}

/** The options a server runs with: the config file's (or the options given), then `overrides`. */
export function resolveServerOptions(
  input: ServerOptions | Config,
  overrides: ServerOptions,
): ServerOptions {
  return {
    ...(isConfig(input) ? serverOptionsFromConfig(input) : input),
    ...overrides,
  };
}
