/**
 * The TOTP gate's state shared by the replicas of a cluster: per group (keyed by a hash of where
 * its secret comes from) a Redis hash with the failure count, lockout, newest used step and
 * lock epoch, and a hash of callers' unlocks. Every decision that must not race between
 * replicas — a code's step, a wrong code, a touch after a lock — is one Lua script, so two
 * replicas given the same code at the same moment accept it once. Each process keeps a copy
 * of the records it uses (`group()`, what the synchronous gate reads), refreshed before every
 * decision. When Redis is away every operation rejects and the gate refuses protected calls.
 *
 * @module
 */

import {
  type GateStateStore,
  type GroupRecord,
  InMemoryGateStateStore,
  type SharedGateState,
  type StepClaim,
} from '../gate/store.ts';
import { nodeCrypto } from '../lazy.ts';
import type { ClusterLink } from './link.ts';

const CLAIM = `
if redis.call('hget', KEYS[1], 'lockedOut') == '1' then return 'locked-out' end
local last = tonumber(redis.call('hget', KEYS[1], 'lastUsedStep') or '-1')
if tonumber(ARGV[1]) <= last then return 'reused' end
redis.call('hset', KEYS[1], 'lastUsedStep', ARGV[1], 'failures', 0)
if ARGV[2] ~= '' then
  redis.call('hset', KEYS[2], ARGV[2], ARGV[3])
  redis.call('pexpire', KEYS[2], ARGV[4])
end
return 'ok'`;

const FAIL = `
if redis.call('hget', KEYS[1], 'lockedOut') == '1' then
  return {tonumber(redis.call('hget', KEYS[1], 'failures') or '0'), 1}
end
local failures = redis.call('hincrby', KEYS[1], 'failures', 1)
if failures >= tonumber(ARGV[1]) then
  redis.call('hset', KEYS[1], 'lockedOut', '1')
  redis.call('hincrby', KEYS[1], 'lockEpoch', 1)
  redis.call('del', KEYS[2])
  return {failures, 1}
end
return {failures, 0}`;

// Only an unlock that still stands in the caller's lock epoch is touched: a lock made on another
// replica in between must not be undone by a late touch.
const TOUCH = `
if (redis.call('hget', KEYS[1], 'lockEpoch') or '0') ~= ARGV[3] then return 0 end
if redis.call('hexists', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('hset', KEYS[2], ARGV[1], ARGV[2])
redis.call('pexpire', KEYS[2], ARGV[4])
return 1`;

export interface RedisGateStateStoreOptions {
  /**
   * Milliseconds an unlock hash outlives its last write, so callers gone for good do not stay
   * in Redis forever. Default 24 h (longer than any sensible group timeout).
   */
  unlockRetentionMs?: number;
}

/** The process's copies live in the in-memory store it extends; Redis holds the truth. */
export class RedisGateStateStore
  extends InMemoryGateStateStore
  implements GateStateStore, SharedGateState
{
  readonly #link: ClusterLink;
  /** Groups this process has used, so a closed session's unlocks are dropped from each. */
  readonly #secretKeys = new Set<string>();
  readonly #retention: number;

  constructor(link: ClusterLink, options: RedisGateStateStoreOptions = {}) {
    super();
    this.#link = link;
    this.#retention = options.unlockRetentionMs ?? 24 * 3600 * 1000;
  }

  get shared(): SharedGateState {
    return this;
  }

  override group(secretKey: string): GroupRecord {
    this.#secretKeys.add(secretKey);
    return super.group(secretKey);
  }

  override forgetCaller(caller: string): void {
    super.forgetCaller(caller);
    // Sessions and connections are this replica's own; best effort, the retention cleans up.
    for (const secretKey of this.#secretKeys) {
      void this.#link.redis.hdel(this.#keys(secretKey)[1], caller).catch(() => undefined);
    }
  }

  async refresh(secretKey: string): Promise<void> {
    const [recordKey, unlockedKey] = this.#keys(secretKey);
    const replies = await this.#link.redis.multi().hgetall(recordKey).hgetall(unlockedKey).exec();
    const fields = (replies?.[0]?.[1] ?? {}) as Record<string, string>;
    const unlocked = (replies?.[1]?.[1] ?? {}) as Record<string, string>;
    const record = this.group(secretKey);
    record.consecutiveFailures = Number(fields.failures ?? 0);
    record.lockedOut = fields.lockedOut === '1';
    record.lastUsedStep = Number(fields.lastUsedStep ?? -1);
    record.lockEpoch = Number(fields.lockEpoch ?? 0);
    record.unlocked = new Map(Object.entries(unlocked).map(([caller, at]) => [caller, Number(at)]));
  }

  async claimStep(
    secretKey: string,
    step: number,
    caller: string | undefined,
    now: number,
  ): Promise<StepClaim> {
    const claim = (await this.#link.redis.eval(
      CLAIM,
      2,
      ...this.#keys(secretKey),
      step,
      caller ?? '',
      now,
      this.#retention,
    )) as StepClaim;
    const record = this.group(secretKey);
    if (claim === 'ok') {
      record.lastUsedStep = step;
      record.consecutiveFailures = 0;
      if (caller !== undefined) record.unlocked.set(caller, now);
    } else if (claim === 'locked-out') record.lockedOut = true;
    return claim;
  }

  async recordFailure(
    secretKey: string,
    max: number,
  ): Promise<{ failures: number; lockedOut: boolean }> {
    const [failures, lockedOut] = (await this.#link.redis.eval(
      FAIL,
      2,
      ...this.#keys(secretKey),
      max,
    )) as [number, number];
    const record = this.group(secretKey);
    record.consecutiveFailures = failures;
    if (lockedOut === 1 && !record.lockedOut) {
      record.lockedOut = true;
      record.lockEpoch++;
      record.unlocked.clear();
    }
    return { failures, lockedOut: lockedOut === 1 };
  }

  async revoke(secretKey: string): Promise<void> {
    const [recordKey, unlockedKey] = this.#keys(secretKey);
    const replies = await this.#link.redis
      .multi()
      .hincrby(recordKey, 'lockEpoch', 1)
      .del(unlockedKey)
      .exec();
    const epoch = Number(replies?.[0]?.[1]);
    const record = this.group(secretKey);
    if (Number.isFinite(epoch)) record.lockEpoch = Math.max(record.lockEpoch, epoch);
  }

  async touch(secretKey: string, caller: string, now: number, epoch: number): Promise<void> {
    await this.#link.redis.eval(
      TOUCH,
      2,
      ...this.#keys(secretKey),
      caller,
      now,
      epoch,
      this.#retention,
    );
  }

  /** The record's hash and the unlocks' hash; the secret's location is hashed, never stored. */
  #keys(secretKey: string): [string, string] {
    const id = nodeCrypto().createHash('sha256').update(secretKey).digest('hex').slice(0, 32);
    return [this.#link.key('gate', id), this.#link.key('gate', id, 'unlocked')];
  }
}
