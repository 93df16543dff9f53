/**
 * Where the gate keeps its state, apart from any one `Gate` object: a plugin that creates its
 * gate in `register()` gets a new `Gate` on every reload, and reloading must not buy an attacker
 * five fresh attempts, a second use of a code, or anyone's unlock. State is keyed by the group's
 * secret (backend and reference), so every gate guarding the same secret shares one record —
 * whichever plugin instance created it.
 *
 * In memory and process-wide by default. Replicas of a cluster share it through Redis
 * (`cluster/gateStore.ts`): then the `GroupRecord` is this process's copy, refreshed before
 * every decision, and the operations that must be atomic across replicas (a code's step, a
 * failure, a lock) go through {@link SharedGateState}.
 *
 * @module
 */

export interface GroupRecord {
  consecutiveFailures: number;
  lockedOut: boolean;
  /** The newest TOTP step accepted; codes of this step or older are refused (RFC 6238 §5.2). */
  lastUsedStep: number;
  /** Bumped by every lock: unlock handles minted before it stop working. */
  lockEpoch: number;
  /** Callers (see `callerKeyOf`) → time of the unlock or of the last protected call. */
  unlocked: Map<string, number>;
  /** Callers → time they were last seen, to forget callers that went silent. */
  lastSeen: Map<string, number>;
}

export interface GateStateStore {
  /** The record of the group guarded by `secretKey`, created locked on first use. */
  group(secretKey: string): GroupRecord;
  /** Drops one caller's unlocks everywhere (its session or connection closed). */
  forgetCaller(caller: string): void;
  /** Present when the state is shared with other processes; absent in memory. */
  readonly shared?: SharedGateState;
}

/** What a code's step did to the shared record. */
export type StepClaim = 'ok' | 'reused' | 'locked-out';

/**
 * The shared side of a {@link GateStateStore}: each method is atomic across replicas and
 * updates this process's copy of the record. Each rejects when the shared state cannot be
 * reached; the gate then refuses (fails closed).
 */
export interface SharedGateState {
  /** Reloads the process's copy of the group's record. */
  refresh(secretKey: string): Promise<void>;
  /**
   * Accepts TOTP step `step` unless the group is locked out or a step this new was used; on
   * success resets the failure count and records `caller`'s unlock at `now`.
   */
  claimStep(
    secretKey: string,
    step: number,
    caller: string | undefined,
    now: number,
  ): Promise<StepClaim>;
  /** Counts a wrong code; at `max` locks the group out and revokes every unlock. */
  recordFailure(secretKey: string, max: number): Promise<{ failures: number; lockedOut: boolean }>;
  /** Revokes every unlock of the group and voids its handles (a new lock epoch). */
  revoke(secretKey: string): Promise<void>;
  /** Restarts `caller`'s inactivity clock, if its unlock still stands in this lock epoch. */
  touch(secretKey: string, caller: string, now: number, epoch: number): Promise<void>;
}

export class InMemoryGateStateStore implements GateStateStore {
  readonly #groups = new Map<string, GroupRecord>();

  group(secretKey: string): GroupRecord {
    let record = this.#groups.get(secretKey);
    if (!record) {
      record = {
        consecutiveFailures: 0,
        lockedOut: false,
        lastUsedStep: -1,
        lockEpoch: 0,
        unlocked: new Map(),
        lastSeen: new Map(),
      };
      this.#groups.set(secretKey, record);
    }
    return record;
  }

  forgetCaller(caller: string): void {
    for (const record of this.#groups.values()) {
      record.unlocked.delete(caller);
      record.lastSeen.delete(caller);
    }
  }
}

let processStore: GateStateStore = new InMemoryGateStateStore();

/**
 * The store every gate of this process uses unless given another: in memory, or the cluster's
 * once {@link shareProcessGateStore} installed it (gates made before follow along).
 */
export const processGateStore: GateStateStore = {
  group: (secretKey) => processStore.group(secretKey),
  forgetCaller: (caller) => processStore.forgetCaller(caller),
  get shared() {
    return processStore.shared;
  },
};

/** Cluster mode: every gate of this process keeps its state in `store` from now on. */
export function shareProcessGateStore(store: GateStateStore): void {
  processStore = store;
}
