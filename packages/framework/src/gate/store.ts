/**
 * Where the gate keeps its state, apart from any one `Gate` object: a plugin that creates its
 * gate in `register()` gets a new `Gate` on every reload, and reloading must not buy an attacker
 * five fresh attempts, a second use of a code, or anyone's unlock. State is keyed by the group's
 * secret (backend and reference), so every gate guarding the same secret shares one record —
 * whichever plugin instance created it.
 *
 * In memory, process-wide; the interface is the seam for a shared store (Redis) later.
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

/** The store every gate of this process uses unless given another. */
export const processGateStore: GateStateStore = new InMemoryGateStateStore();
