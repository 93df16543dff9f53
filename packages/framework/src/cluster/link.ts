/**
 * `ClusterLink`: one replica's connection to the cluster's Redis — a command connection and a
 * subscriber connection (a subscribed Redis connection can do nothing else), keys and channels
 * under the cluster's prefix, health for `/health/ready`, and reconnection with backoff.
 *
 * While Redis is away, commands fail at once instead of queueing (a replica keeps serving from
 * what it holds; nothing waits on a dead socket), the loss is logged once, and when Redis comes
 * back the link says so and tells its users (`onRestored`) to re-read the shared state: Redis
 * may have restarted empty, or changes were published while this replica could not hear them.
 *
 * The link also holds the cluster's keys (derived from `cluster.secret`, see `state/keys.ts`)
 * and its {@link RedisRecordStore}, through which every shared state reads and writes, signed.
 *
 * ioredis is imported only here, and this module only when a cluster is configured.
 *
 * @module
 */

import { hostname } from 'node:os';
import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import type { ClusterStatus, PluginClusterLink } from '../contract/cluster.ts';
import { nodeCrypto } from '../lazy.ts';
import { createLogger, type Logger } from '../logging/index.ts';
import { type KeyRing, secretKeyRing } from '../state/keys.ts';
import { RedisRecordStore } from './redisRecords.ts';
import {
  CLUSTER_SECRET_VARIABLE,
  type ClusterSettings,
  redactRedisUrl,
  redisUrlRisk,
} from './settings.ts';

export type { ClusterStatus };

export interface ClusterLinkOptions {
  logger?: Logger;
  /** This replica's name in Redis (errors, status). Default `<host>:<pid>:<random>`. */
  replicaId?: string;
  /** Milliseconds the first connection may take. Default 5000. */
  connectTimeoutMs?: number;
  /** Where `MCP_CLUSTER_SECRET` is read when the settings have no secret. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** The cluster is configured in a way it cannot run: no usable secret. */
export class ClusterConfigError extends Error {
  readonly code = 'CLUSTER_MISCONFIGURED';
  constructor(message: string) {
    super(message);
    this.name = 'ClusterConfigError';
  }
}

/** Redis could not be reached at start. */
export class ClusterUnavailableError extends Error {
  readonly code = 'CLUSTER_UNAVAILABLE';
  constructor(message: string) {
    super(message);
    this.name = 'ClusterUnavailableError';
  }
}

export class ClusterLink implements PluginClusterLink {
  readonly settings: ClusterSettings;
  readonly replicaId: string;
  /** Commands (keys, scripts, publish). */
  readonly redis: RedisClient;
  /** The cluster's keys, derived from its secret: the same on every replica, never in Redis. */
  readonly keys: KeyRing;
  /** Shared state, signed: what every state store of the cluster reads and writes. */
  readonly records: RedisRecordStore;
  readonly #subscriber: RedisClient;
  readonly #logger: Logger;
  readonly #handlers = new Map<string, Set<(message: string) => void>>();
  readonly #restoredListeners = new Set<() => void>();
  #lost: string | undefined;
  #closed = false;

  private constructor(
    settings: ClusterSettings,
    connections: { redis: RedisClient; subscriber: RedisClient; keys: KeyRing },
    options: ClusterLinkOptions,
  ) {
    const { redis, subscriber } = connections;
    this.settings = settings;
    this.redis = redis;
    this.keys = connections.keys;
    this.#subscriber = subscriber;
    this.#logger = options.logger ?? createLogger('cluster');
    this.records = new RedisRecordStore(this, this.keys.key('records'), this.#logger);
    this.replicaId =
      options.replicaId ??
      `${hostname()}:${process.pid}:${nodeCrypto().randomBytes(3).toString('hex')}`;
    subscriber.on('message', (channel: string, message: string) => {
      for (const handler of this.#handlers.get(channel) ?? []) {
        try {
          handler(message);
        } catch (error) {
          this.#logger.warn(`cluster: a handler of ${channel} failed: ${String(error)}`);
        }
      }
    });
    for (const connection of [redis, subscriber]) {
      connection.on('error', (error: Error) => this.#markLost(error.message));
      connection.on('close', () => this.#markLost('connection closed'));
      connection.on('ready', () => this.#markUp());
    }
  }

  /**
   * Connects both connections, or throws {@link ClusterUnavailableError} naming the URL (never
   * its password) and what to do; {@link ClusterConfigError} first when no usable secret is set.
   */
  static async connect(
    settings: ClusterSettings,
    options: ClusterLinkOptions = {},
  ): Promise<ClusterLink> {
    const keys = clusterKeys(settings, options.env ?? process.env);
    const risk = redisUrlRisk(settings.redisUrl);
    if (risk) (options.logger ?? createLogger('cluster')).warn(risk);
    const { Redis } = await import('ioredis');
    const common: RedisOptions = {
      lazyConnect: true,
      // Fail commands at once while Redis is away: the replica serves from local state.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: options.connectTimeoutMs ?? 5000,
      // Backoff: 100 ms, 200 ms, … up to 2 s between attempts, for as long as it takes.
      retryStrategy: (times: number) => Math.min(times * 100, 2000),
    };
    const redis = new Redis(settings.redisUrl, { ...common, connectionName: 'mcpbox' });
    const subscriber = new Redis(settings.redisUrl, {
      ...common,
      connectionName: 'mcpbox-sub',
      // The subscriber queues its (re)subscriptions until connected.
      enableOfflineQueue: true,
    });
    // Errors before the first connection are reported by connect() below, not as events.
    const swallow = () => undefined;
    redis.on('error', swallow);
    subscriber.on('error', swallow);
    try {
      await Promise.all([redis.connect(), subscriber.connect()]);
    } catch (error) {
      redis.disconnect();
      subscriber.disconnect();
      const where = redactRedisUrl(settings.redisUrl);
      throw new ClusterUnavailableError(
        `cannot reach the cluster's Redis at ${where} (${errorText(error)}) — start Redis there, ` +
          'fix cluster.redis_url (or MCP_REDIS_URL), or set cluster.fallback: local to run as a ' +
          'single process without shared state',
      );
    }
    redis.off('error', swallow);
    subscriber.off('error', swallow);
    return new ClusterLink(settings, { redis, subscriber, keys }, options);
  }

  /** `<prefix>:<parts…>`: every key and channel of this cluster. */
  key(...parts: string[]): string {
    return [this.settings.name, ...parts].join(':');
  }

  status(): ClusterStatus {
    if (this.#closed) return { connected: false, error: 'cluster link closed' };
    if (this.#lost !== undefined || this.redis.status !== 'ready') {
      return {
        connected: false,
        error: `Redis at ${redactRedisUrl(this.settings.redisUrl)} unreachable (${this.#lost ?? this.redis.status}); serving local state, reconnecting`,
      };
    }
    return { connected: true };
  }

  /** Delivers messages of `channel` (under the prefix). Returns an unsubscriber. */
  async subscribe(channel: string, handler: (message: string) => void): Promise<() => void> {
    const full = this.key(channel);
    let handlers = this.#handlers.get(full);
    if (!handlers) {
      handlers = new Set();
      this.#handlers.set(full, handlers);
      await this.#subscriber.subscribe(full);
    }
    handlers.add(handler);
    return () => {
      handlers.delete(handler);
      if (handlers.size === 0) {
        this.#handlers.delete(full);
        void this.#subscriber.unsubscribe(full).catch(() => undefined);
      }
    };
  }

  /** Publishes on `channel` (under the prefix); rejects while Redis is away. */
  async publish(channel: string, message: string): Promise<void> {
    await this.redis.publish(this.key(channel), message);
  }

  /** Called each time Redis comes back after a loss. Returns a remover. */
  onRestored(listener: () => void): () => void {
    this.#restoredListeners.add(listener);
    return () => this.#restoredListeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#restoredListeners.clear();
    await Promise.allSettled([this.redis.quit(), this.#subscriber.quit()]);
    this.redis.disconnect();
    this.#subscriber.disconnect();
  }

  #markLost(reason: string): void {
    if (this.#closed || this.#lost !== undefined) return;
    this.#lost = reason;
    this.#logger.warn(
      `cluster: lost Redis at ${redactRedisUrl(this.settings.redisUrl)} (${reason}); ` +
        'serving local state and reconnecting — shared changes wait until it is back',
    );
  }

  #markUp(): void {
    if (this.#closed || this.#lost === undefined) return;
    if (this.redis.status !== 'ready' || this.#subscriber.status !== 'ready') return;
    this.#lost = undefined;
    this.#logger.info(
      `cluster: Redis at ${redactRedisUrl(this.settings.redisUrl)} is back; re-reading shared state`,
    );
    for (const listener of this.#restoredListeners) {
      try {
        listener();
      } catch (error) {
        this.#logger.warn(`cluster: re-reading after reconnect failed: ${String(error)}`);
      }
    }
  }
}

/** The keys of the cluster's secret, or a {@link ClusterConfigError} saying what to set. */
function clusterKeys(
  settings: ClusterSettings,
  env: Readonly<Record<string, string | undefined>>,
): KeyRing {
  const secret = settings.secret || env[CLUSTER_SECRET_VARIABLE];
  if (!secret) {
    throw new ClusterConfigError(
      `cluster mode needs a secret shared by every replica: set cluster.secret (or ${CLUSTER_SECRET_VARIABLE}) ` +
        'to the same random value on each, e.g. the output of: openssl rand -base64 32. The ' +
        "cluster's records are signed with it, so whoever can write Redis cannot forge an unlock " +
        'or a token',
    );
  }
  try {
    return secretKeyRing(secret);
  } catch (error) {
    throw new ClusterConfigError(
      `cluster.secret (or ${CLUSTER_SECRET_VARIABLE}): ${errorText(error)}`,
    );
  }
}

function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message || 'connection refused';
}
