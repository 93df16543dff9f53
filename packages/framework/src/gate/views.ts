/**
 * A gate's copy of its groups' state: what the synchronous `check`, `status` and `snapshot`
 * read, brought up to date from the store before each decision (`sync`). The writes the gate
 * started without waiting (a lock, the touch of a protected call) are tracked, so a read never
 * brings back what a lock revoked, and `settled` can say when one did not land.
 *
 * @module
 */
import type { Logger } from '../logging/index.ts';
import type { GateStateStore, GroupState } from '../state/gate.ts';
import { errorText, unavailableMessage } from './messages.ts';

/** A group nobody has used yet: locked, nothing counted. */
const untouched = (): GroupState => ({
  failures: 0,
  lockedOut: false,
  lastUsedStep: -1,
  generation: '',
  lockEpoch: 0,
  unlocked: new Map(),
});

/** One group in `Gate.snapshot`. */
export interface GateGroupSnapshot {
  name: string;
  tools: string[];
  timeoutSeconds: number;
  lockedOut: boolean;
  /** Callers holding an unlock now, and the milliseconds until it lapses without use. */
  unlocked: { caller: string; msLeft: number }[];
}

export class GroupViews {
  readonly #store: GateStateStore;
  readonly #logger: Logger;
  readonly #views = new Map<string, GroupState>();
  /** Groups whose state could not be read at the last sync → why. */
  readonly #unreachable = new Map<string, string>();
  /** Writes under way; each resolves with a warning or undefined. */
  readonly #writes = new Set<Promise<string | undefined>>();

  constructor(store: GateStateStore, logger: Logger) {
    this.#store = store;
    this.#logger = logger;
  }

  /** The group as last seen (a copy the gate may change as it decides). */
  get(group: string): GroupState {
    let view = this.#views.get(group);
    if (!view) {
      view = untouched();
      this.#views.set(group, view);
    }
    return view;
  }

  /** Why the group's state could not be read at the last sync, if it could not. */
  unreachable(group: string): string | undefined {
    return this.#unreachable.get(group);
  }

  /** Reads the group from the store; rejects when it cannot. */
  async refresh(group: string, secretKey: string): Promise<GroupState> {
    const state = await this.#store.read(secretKey);
    this.#views.set(group, state);
    return state;
  }

  /** Refreshes each `[group, secretKey]`, remembering which could not be read. */
  async sync(groups: ReadonlyArray<readonly [string, string]>): Promise<void> {
    await Promise.all(this.#writes);
    await Promise.all(
      groups.map(async ([group, secretKey]) => {
        try {
          await this.refresh(group, secretKey);
          this.#unreachable.delete(group);
        } catch (error) {
          this.#unreachable.set(group, unavailableMessage(group, error));
        }
      }),
    );
  }

  /** Starts a write to the store; a failure is logged and reported by `settled`. */
  write(what: string, write: Promise<void>): void {
    const tracked: Promise<string | undefined> = write.then(
      () => undefined,
      (error) => {
        const warning = `${what} could not reach the other replicas yet (${errorText(error)})`;
        this.#logger.error(`gate: ${warning}`);
        return warning;
      },
    );
    this.#writes.add(tracked);
    void tracked.then(() => this.#writes.delete(tracked));
  }

  /** Waits for the writes under way; resolves with a warning when one did not land. */
  async settled(): Promise<string | undefined> {
    const results = await Promise.all([...this.#writes]);
    return results.find((warning) => warning !== undefined);
  }

  /** Drops `caller`'s unlocks here and in the store. */
  forget(caller: string): void {
    for (const view of this.#views.values()) view.unlocked.delete(caller);
    void this.#store.forgetCaller(caller);
  }
}
