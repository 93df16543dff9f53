/**
 * {@link RecordStore} in the cluster's Redis: every record and every message carries an
 * HMAC-SHA256 under a key derived from `cluster.secret` (never stored in Redis), bound to the
 * record's full key and entry, so nothing written by whoever can write Redis — a forged
 * record, a genuine one moved to another key or caller, an unsigned message — is ever used.
 * Reading a record that does not verify fails ({@link UnverifiedRecordError}); a map entry or a
 * message that does not verify is skipped; each is logged once.
 *
 * `update` is optimistic: read, decide, then write only if the record is still what was read
 * (one small compare-and-set script), else decide again on the newer value. The rules of each
 * state stay in TypeScript, in one place (`state/`), and no script knows them.
 *
 * @module
 */
import type { Redis as RedisClient } from 'ioredis';
import { nodeCrypto } from '../lazy.ts';
import type { Logger } from '../logging/index.ts';
import { macMatches } from '../macs.ts';
import {
  type RecordChange,
  type RecordStore,
  type StateScope,
  UnverifiedRecordError,
} from '../state/records.ts';

/** What the store needs of the cluster link. */
export interface RedisConnection {
  readonly redis: RedisClient;
  /** `<cluster>:<parts…>`: every key and channel of this cluster. */
  key(...parts: string[]): string;
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, handler: (message: string) => void): Promise<() => void>;
}

// Writes ARGV[2] (with a lifetime of ARGV[3] ms, if any) only while the record is still ARGV[1]
// ('' for absent: a signed value is never empty).
const COMPARE_AND_SET = `
local current = redis.call('get', KEYS[1])
if current == false then current = '' end
if current ~= ARGV[1] then return 0 end
if ARGV[3] == '' then redis.call('set', KEYS[1], ARGV[2])
else redis.call('set', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
return 1`;

/** Attempts of an `update` before it gives up (only under a storm of writers to one record). */
const MAX_ATTEMPTS = 64;

export class RedisRecordStore implements RecordStore {
  readonly scope: StateScope = 'cluster';
  readonly #connection: RedisConnection;
  readonly #key: Buffer;
  readonly #logger: Logger;
  /** Keys already reported as refused (bounded), so a forged record is logged once. */
  readonly #reported = new Set<string>();

  constructor(connection: RedisConnection, macKey: Buffer, logger: Logger) {
    this.#connection = connection;
    this.#key = macKey;
    this.#logger = logger;
  }

  async get(key: string): Promise<string | undefined> {
    const full = this.#full(key);
    const raw = await this.#connection.redis.get(full);
    return raw === null ? undefined : this.#open(full, '', raw);
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    const full = this.#full(key);
    const sealed = this.#seal(full, '', value);
    if (ttlMs === undefined) await this.#connection.redis.set(full, sealed);
    else await this.#connection.redis.set(full, sealed, 'PX', Math.max(1, Math.ceil(ttlMs)));
  }

  async delete(key: string): Promise<void> {
    await this.#connection.redis.del(this.#full(key));
  }

  async update<T>(
    key: string,
    change: (current: string | undefined) => RecordChange<T>,
    ttlMs?: number,
  ): Promise<T> {
    const full = this.#full(key);
    const redis = this.#connection.redis;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const raw = await redis.get(full);
      const decided = change(raw === null ? undefined : this.#open(full, '', raw));
      if (decided.value === undefined) return decided.result;
      const sealed = this.#seal(full, '', decided.value);
      const ttl = ttlMs === undefined ? '' : String(Math.max(1, Math.ceil(ttlMs)));
      if ((await redis.eval(COMPARE_AND_SET, 1, full, raw ?? '', sealed, ttl)) === 1) {
        return decided.result;
      }
    }
    throw new Error(
      `the shared record '${full}' kept changing; gave up after ${MAX_ATTEMPTS} tries`,
    );
  }

  async entries(key: string): Promise<Map<string, string>> {
    const full = this.#full(key);
    const raw = await this.#connection.redis.hgetall(full);
    const entries = new Map<string, string>();
    for (const [field, value] of Object.entries(raw)) {
      try {
        entries.set(field, this.#open(full, field, value));
      } catch {
        // Refused and reported by #open: as if it were not there.
      }
    }
    return entries;
  }

  async setEntry(key: string, field: string, value: string, ttlMs?: number): Promise<void> {
    const full = this.#full(key);
    const write = this.#connection.redis.multi().hset(full, field, this.#seal(full, field, value));
    if (ttlMs !== undefined) write.pexpire(full, Math.max(1, Math.ceil(ttlMs)));
    await write.exec();
  }

  async deleteEntry(key: string, field: string): Promise<void> {
    await this.#connection.redis.hdel(this.#full(key), field);
  }

  async publish(channel: string, message: string): Promise<void> {
    const where = `channel:${this.#connection.key(channel)}`;
    await this.#connection.publish(channel, this.#seal(where, '', message));
  }

  subscribe(channel: string, listener: (message: string) => void): Promise<() => void> {
    const where = `channel:${this.#connection.key(channel)}`;
    return this.#connection.subscribe(channel, (raw) => {
      let message: string;
      try {
        message = this.#open(where, '', raw);
      } catch {
        return; // refused and reported by #open
      }
      listener(message);
    });
  }

  #full(key: string): string {
    return this.#connection.key(key);
  }

  #mac(where: string, field: string, value: string): Buffer {
    return nodeCrypto()
      .createHmac('sha256', this.#key)
      .update(`${where}\n${field}\n`)
      .update(value)
      .digest();
  }

  /** `<mac>.<value>`: the MAC (base64url, no dots) binds the value to its key and entry. */
  #seal(where: string, field: string, value: string): string {
    return `${this.#mac(where, field, value).toString('base64url')}.${value}`;
  }

  /** The value of a sealed text, or {@link UnverifiedRecordError} (constant-time check). */
  #open(where: string, field: string, sealed: string): string {
    const dot = sealed.indexOf('.');
    const value = dot < 0 ? '' : sealed.slice(dot + 1);
    if (dot >= 0 && macMatches(sealed.slice(0, dot), this.#mac(where, field, value))) {
      return value;
    }
    // An entry's field may be a caller's session: never in a log line.
    const name = field === '' ? where : `an entry of ${where}`;
    const error = new UnverifiedRecordError(name);
    if (!this.#reported.has(name) && this.#reported.size < 1000) {
      this.#reported.add(name);
      this.#logger.warn(`cluster: ${error.message}`);
    }
    throw error;
  }
}
