/**
 * What an {@link UpstreamConnection} and each call through it can be given, and the defaults a
 * connection fills in. Apart from the class so that its parts (the lifecycle, the SDK client it
 * builds) read the same settings without importing the class.
 *
 * @module
 */
import type { Implementation, Progress } from '@modelcontextprotocol/client';
import { createLogger, type Logger } from '../logging/index.ts';
import type { EnvMap } from './expand.ts';
import type { Askers } from './questions.ts';
import type { VerdictCache } from './verdicts.ts';

export type ListKind = 'tools' | 'resources' | 'prompts';

export interface UpstreamConnectionOptions {
  /** Where `${VAR}` placeholders are looked up, at each connect. Default `process.env`. */
  env?: EnvMap;
  /**
   * HTTP headers resolved elsewhere (per-user credentials), sent with every request over the
   * params' own; never expanded again, so a value's text is sent as it is.
   */
  headers?: Readonly<Record<string, string>>;
  /** Spawn/handshake, era negotiation and `initialize`, in ms. Default 30 000. */
  connectTimeoutMs?: number;
  /** Default per-request timeout in ms (progress notifications restart it). Default 60 000. */
  requestTimeoutMs?: number;
  /** Receives the upstream's stderr lines, its log notifications and our own notes. */
  logger?: Logger;
  /**
   * Called when the upstream announces that its tools, resources or prompts changed (a 2025
   * `list_changed` notification, or one on the 2026 `subscriptions/listen` stream).
   */
  onListChanged?: (kind: ListKind) => void;
  /** How we introduce ourselves to the upstream. Default `{ name: 'mcpbox', version: '0.1.0' }`. */
  clientInfo?: Implementation;
  /** Seconds a stdio upstream's process group gets between SIGTERM and SIGKILL. Default 2. */
  killGraceSeconds?: number;
  /**
   * Where era verdicts are kept; share one between connections to the same upstreams (a pool, a
   * proxy's reloads) so that a new connection object does not probe again. Default: this
   * connection's own.
   */
  verdicts?: VerdictCache;
}

export interface CallOptions extends Askers {
  /** Cancels the call: the upstream is told (`notifications/cancelled`, or the stream closed). */
  signal?: AbortSignal;
  /** Asks the upstream for progress (`_meta.progressToken`) and receives each notification. */
  onprogress?: (progress: Progress) => void;
  /** Overrides `requestTimeoutMs` for this call. */
  timeout?: number;
}

/** The options with every default filled in (the verdict cache is kept apart). */
export type ResolvedOptions = Required<
  Omit<UpstreamConnectionOptions, 'onListChanged' | 'verdicts'>
> &
  Pick<UpstreamConnectionOptions, 'onListChanged'>;

/** Stderr, in the process-wide format, for callers that pass no logger. */
const defaultLogger = createLogger('upstream');

export function resolveOptions(options: UpstreamConnectionOptions): ResolvedOptions {
  return {
    env: options.env ?? process.env,
    headers: options.headers ?? {},
    connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
    requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
    logger: options.logger ?? defaultLogger,
    onListChanged: options.onListChanged,
    clientInfo: options.clientInfo ?? { name: 'mcpbox', version: '0.1.0' },
    killGraceSeconds: options.killGraceSeconds ?? 2,
  };
}
