/**
 * Where limits count, behind one seam: counters (rate-limiter-flexible: `RateLimiterMemory` for
 * one process, `RateLimiterRedis` on the cluster's ioredis connection for replicas, so every
 * replica spends from one budget and a restart forgets nothing) and concurrency leases (over the
 * process's or the cluster's `RecordStore`, see `state/leases.ts`).
 *
 * While Redis is away each Redis counter answers from an in-memory insurance counter of the same
 * size: a replica goes on limiting on its own instead of failing every call, and shares again
 * once Redis is back. Counters are plain integers in Redis, not signed records: whoever can
 * write Redis could reset them (as they could delete any record), but can forge no identity.
 *
 * @module
 */
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisConnection } from '../cluster/redisRecords.ts';
import type { Logger } from '../contract/logger.ts';
import type { RecordStore, StateScope } from '../contract/records.ts';
import { lazyRequire } from '../lazy.ts';
import { LeaseStore } from '../state/leases.ts';
import { MemoryRecordStore } from '../state/memoryRecords.ts';
import { Limiter } from './limiter.ts';
import type { LimitSettings } from './settings.ts';

const flexible = lazyRequire<typeof import('rate-limiter-flexible')>('rate-limiter-flexible');

export interface LimitStore {
  /** How far the counts reach: one process (lost at restart) or the cluster. */
  readonly scope: StateScope;
  /** A counter of `points` per `durationSec` (a fixed window from its first use), per key. */
  counter(name: string, points: number, durationSec: number): RateLimiterAbstract;
  /** Concurrency slots. */
  readonly leases: LeaseStore;
}

const LEASES = 'limits:running';

/** Counts in this process only. */
export function memoryLimitStore(): LimitStore {
  return {
    scope: 'process',
    counter: (name, points, duration) =>
      new (flexible().RateLimiterMemory)({ keyPrefix: `limits:${name}`, points, duration }),
    leases: new LeaseStore(new MemoryRecordStore(), LEASES),
  };
}

/** Counts in the cluster's Redis (the link's command connection and its signed records). */
export function clusterLimitStore(link: RedisConnection & { records: RecordStore }): LimitStore {
  return {
    scope: 'cluster',
    counter: (name, points, duration) => {
      const { RateLimiterMemory, RateLimiterRedis } = flexible();
      return new RateLimiterRedis({
        storeClient: link.redis,
        keyPrefix: link.key('limits', name),
        points,
        duration,
        // The link fails commands at once while Redis is away: count here until it is back.
        insuranceLimiter: new RateLimiterMemory({ keyPrefix: `limits:${name}`, points, duration }),
      });
    },
    leases: new LeaseStore(link.records, LEASES),
  };
}

/** The callers' budgets, when configured (`limits:`). */
export function openLimiter(
  settings: LimitSettings | undefined,
  cluster: (RedisConnection & { records: RecordStore }) | undefined,
  logger: Logger,
): Limiter | undefined {
  if (!settings) return undefined;
  // Limits count in the cluster's Redis when there is one, so every replica spends one budget.
  const store = cluster ? clusterLimitStore(cluster) : memoryLimitStore();
  return new Limiter(settings, store, { logger });
}
