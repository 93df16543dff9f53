/**
 * Where the TOTP gate keeps its state, apart from any one `Gate` object: a plugin that creates
 * its gate in `register()` gets a new `Gate` on every reload, and reloading must not buy an
 * attacker five fresh attempts, a second use of a code, or anyone's unlock. State is keyed by a
 * hash of the group's secret location (backend and reference), so every gate guarding the same
 * secret shares one record — whichever plugin instance, or replica, created it.
 *
 * The rules live here, once, over a {@link RecordStore} (memory alone, Redis in a cluster):
 * a code's time step is accepted once and only forward (RFC 6238 §5.2), wrong codes count to a
 * lockout, a lock or lockout starts a new lock epoch that voids every unlock and handle of the
 * group. Each decision is one atomic `update` of the group's record, so two replicas given the
 * same code at the same moment accept it once. An unlock names the record's generation and
 * epoch: a lock made anywhere, or the record deleted (an operator's reset), voids it, and a
 * late touch cannot revive it. A replica refuses a copy of the record older than one it saw.
 *
 * @module
 */
import { nodeCrypto } from '../lazy.ts';
import { type RecordStore, type StateScope, UnverifiedRecordError } from './records.ts';

/** The group's record as stored. */
interface GroupRecord {
  /** Drawn when the record is created; unlocks and handles name it. */
  generation: string;
  /** Bumped by every write, so an older copy put back is recognised. */
  version: number;
  failures: number;
  lockedOut: boolean;
  /** The newest TOTP step accepted; codes of this step or older are refused. */
  lastUsedStep: number;
  /** Bumped by every lock and lockout. */
  lockEpoch: number;
}

/** One caller's unlock as stored: valid only in the generation and epoch it names. */
interface UnlockEntry {
  generation: string;
  epoch: number;
  /** The unlock, or the last protected call: ms since the epoch. */
  at: number;
}

/** A group as the gate sees it. */
export interface GroupState {
  failures: number;
  lockedOut: boolean;
  lastUsedStep: number;
  /** `''` until the group's record exists. */
  generation: string;
  lockEpoch: number;
  /** Callers (see `callerKeyOf`) whose unlock stands → time of the unlock or last use. */
  unlocked: Map<string, number>;
}

/** What a code's step did. */
export type StepClaim = 'ok' | 'reused' | 'locked-out';

export interface ClaimAnswer {
  claim: StepClaim;
  /** The record's generation and epoch the claim was made in (for handles). */
  generation: string;
  lockEpoch: number;
}

type Decision<T> = { record?: GroupRecord; result: T };
type Decided<T> = { result: T; written?: GroupRecord };

export class GateStateStore {
  readonly #records: RecordStore;
  /** Newest record version seen per record key. */
  readonly #seen = new Map<string, { generation: string; version: number }>();
  /** Groups this process has used, so a closed session's unlocks are dropped from each. */
  readonly #used = new Set<string>();

  constructor(records: RecordStore) {
    this.#records = records;
  }

  /** Where the state reaches: a lockout outlives a restart only in a cluster. */
  get scope(): StateScope {
    return this.#records.scope;
  }

  /** The group guarded by `secretKey` as it stands; rejects when its state cannot be read. */
  async read(secretKey: string): Promise<GroupState> {
    const [recordKey, unlocksKey] = this.#keys(secretKey);
    const [text, entries] = await Promise.all([
      this.#records.get(recordKey),
      this.#records.entries(unlocksKey),
    ]);
    const record = this.#parse(recordKey, text);
    const unlocked = new Map<string, number>();
    for (const [caller, value] of entries) {
      const entry = parseEntry(value);
      if (entry && record && !record.lockedOut && standsIn(entry, record)) {
        unlocked.set(caller, entry.at);
      }
    }
    return {
      failures: record?.failures ?? 0,
      lockedOut: record?.lockedOut ?? false,
      lastUsedStep: record?.lastUsedStep ?? -1,
      generation: record?.generation ?? '',
      lockEpoch: record?.lockEpoch ?? 0,
      unlocked,
    };
  }

  /**
   * Accepts TOTP step `step` unless the group is locked out or a step this new was used; on
   * success the failure count restarts and `caller` (if any) holds an unlock from `now`.
   * Unlocks unused for `retentionMs` are forgotten.
   */
  async claimStep(
    secretKey: string,
    step: number,
    caller: string | undefined,
    now: number,
    retentionMs: number,
  ): Promise<ClaimAnswer> {
    const [recordKey, unlocksKey] = this.#keys(secretKey);
    const answer = await this.#decide(recordKey, (record): Decision<ClaimAnswer> => {
      const at = { generation: record.generation, lockEpoch: record.lockEpoch };
      if (record.lockedOut) return { result: { claim: 'locked-out', ...at } };
      if (step <= record.lastUsedStep) return { result: { claim: 'reused', ...at } };
      return {
        record: { ...record, lastUsedStep: step, failures: 0 },
        result: { claim: 'ok', ...at },
      };
    });
    if (answer.claim === 'ok' && caller !== undefined) {
      await this.touch(secretKey, caller, now, answer, retentionMs);
      await this.#forgetIdle(unlocksKey, now - retentionMs);
    }
    return answer;
  }

  /** Counts a wrong code; at `max` in a row the group is locked out and every unlock voided. */
  async recordFailure(
    secretKey: string,
    max: number,
  ): Promise<{ failures: number; lockedOut: boolean }> {
    const [recordKey, unlocksKey] = this.#keys(secretKey);
    const counted = await this.#decide(recordKey, (record) => {
      if (record.lockedOut) return { result: { failures: record.failures, lockedOut: true } };
      const failures = record.failures + 1;
      const lockedOut = failures >= max;
      const lockEpoch = record.lockEpoch + (lockedOut ? 1 : 0);
      return {
        record: { ...record, failures, lockedOut, lockEpoch },
        result: { failures, lockedOut },
      };
    });
    if (counted.lockedOut) await this.#records.delete(unlocksKey);
    return counted;
  }

  /** Voids every unlock and handle of the group (a new lock epoch). */
  async revoke(secretKey: string): Promise<void> {
    const [recordKey, unlocksKey] = this.#keys(secretKey);
    await this.#decide(recordKey, (record) => ({
      record: { ...record, lockEpoch: record.lockEpoch + 1 },
      result: undefined,
    }));
    await this.#records.delete(unlocksKey);
  }

  /**
   * Restarts `caller`'s inactivity clock at `now`, for the unlock it holds in `at`'s generation
   * and epoch: after a lock anywhere the entry written names an old epoch, so it unlocks nothing.
   */
  async touch(
    secretKey: string,
    caller: string,
    now: number,
    at: { generation: string; lockEpoch: number },
    retentionMs: number,
  ): Promise<void> {
    const entry: UnlockEntry = { generation: at.generation, epoch: at.lockEpoch, at: now };
    await this.#records.setEntry(
      this.#keys(secretKey)[1],
      caller,
      JSON.stringify(entry),
      retentionMs,
    );
  }

  /** Drops one caller's unlocks from every group used here (its session or connection closed). */
  async forgetCaller(caller: string): Promise<void> {
    await Promise.all(
      [...this.#used].map((secretKey) =>
        // Best effort: an unlock left behind expires with its group's unlocks.
        this.#records.deleteEntry(this.#keys(secretKey)[1], caller).catch(() => undefined),
      ),
    );
  }

  /** One atomic read-decide-write of a group's record (created on its first write). */
  async #decide<T>(recordKey: string, decide: (record: GroupRecord) => Decision<T>): Promise<T> {
    const { result, written } = await this.#records.update<Decided<T>>(recordKey, (text) => {
      const current = this.#parse(recordKey, text) ?? freshRecord();
      const decision = decide(current);
      if (!decision.record) return { result: { result: decision.result } };
      const next = { ...decision.record, version: current.version + 1 };
      return { value: JSON.stringify(next), result: { result: decision.result, written: next } };
    });
    if (written) this.#saw(recordKey, written);
    return result;
  }

  #parse(recordKey: string, text: string | undefined): GroupRecord | undefined {
    if (text === undefined) {
      // Deleted (an operator's reset): a new generation starts; nothing of the old one stands.
      this.#seen.delete(recordKey);
      return undefined;
    }
    let record: GroupRecord;
    try {
      record = JSON.parse(text) as GroupRecord;
    } catch {
      throw new UnverifiedRecordError(recordKey, 'it is not a gate record');
    }
    const seen = this.#seen.get(recordKey);
    if (seen && seen.generation === record.generation && record.version < seen.version) {
      throw new UnverifiedRecordError(recordKey, 'an older copy of it was put back');
    }
    this.#saw(recordKey, record);
    return record;
  }

  #saw(recordKey: string, record: GroupRecord): void {
    const seen = this.#seen.get(recordKey);
    if (!seen || seen.generation !== record.generation || seen.version < record.version) {
      this.#seen.set(recordKey, { generation: record.generation, version: record.version });
    }
  }

  async #forgetIdle(unlocksKey: string, before: number): Promise<void> {
    const entries = await this.#records.entries(unlocksKey);
    for (const [caller, value] of entries) {
      const entry = parseEntry(value);
      if (!entry || entry.at < before) await this.#records.deleteEntry(unlocksKey, caller);
    }
  }

  /** The record's key and the unlocks' key; the secret's location is hashed, never stored. */
  #keys(secretKey: string): [string, string] {
    this.#used.add(secretKey);
    const id = nodeCrypto().createHash('sha256').update(secretKey).digest('hex').slice(0, 32);
    return [`gate:${id}:record`, `gate:${id}:unlocked`];
  }
}

function freshRecord(): GroupRecord {
  return {
    generation: nodeCrypto().randomBytes(9).toString('base64url'),
    version: 0,
    failures: 0,
    lockedOut: false,
    lastUsedStep: -1,
    lockEpoch: 0,
  };
}

function parseEntry(value: string): UnlockEntry | undefined {
  try {
    const entry = JSON.parse(value) as UnlockEntry;
    return typeof entry?.at === 'number' ? entry : undefined;
  } catch {
    return undefined;
  }
}

function standsIn(entry: UnlockEntry, record: GroupRecord): boolean {
  return entry.generation === record.generation && entry.epoch === record.lockEpoch;
}
