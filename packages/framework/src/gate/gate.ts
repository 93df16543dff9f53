/**
 * The TOTP gate: groups of sensitive tools that stay locked until a session proves possession of
 * the group's authenticator with `gate_unlock(group, code)`.
 *
 * - Every group starts locked at every start; nothing is persisted.
 * - Unlocks belong to the caller that presented the code (principal, session or connection; see
 *   `session.ts`); a caller with no lasting identity gets an unlock handle instead
 *   (`handles.ts`). An unlocked group locks again after `timeout` seconds without a protected
 *   call, and each protected call restarts that clock.
 * - Locks are global: `gate_lock(group)` and the kill switch `gate_lock()` revoke every unlock
 *   and handle, because locking is always safe and an operator pulling the switch means all.
 * - Failures and replays are counted per group across callers: 5 consecutive wrong codes lock
 *   the group out until restart, and a code (time step) once accepted is refused afterwards —
 *   opening a new session must not buy an attacker fresh attempts or a second use of a code.
 * - All of that lives in a {@link GateStateStore} keyed by the group's secret, not in this
 *   object: reloading or re-creating a plugin's gate resets nothing.
 * - Neither a secret nor a code ever reaches a log line, an error text or a metric.
 *
 * @module
 */
import { channel } from 'node:diagnostics_channel';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { createLogger, type Logger } from '../logging/index.ts';
import {
  type Clock,
  type SecretBackend,
  SecretUnavailableError,
  secretBackendFor,
} from './backends.ts';
import { type GateGroupSettings, type GateSettings, parseGateConfig } from './config.ts';
import { GATE_HANDLE_ARGUMENT, handleUnlocks, mintHandle } from './handles.ts';
import { callerKeyOf, findCallContext, type GateCallContext } from './session.ts';
import {
  type GateStateStore,
  type GroupRecord,
  processGateStore,
  type StepClaim,
} from './store.ts';
import { registerGateTools, type ToolRegistrar } from './tools.ts';
import { checkTotp, stepAt, TOTP_PERIOD_SECONDS } from './totp.ts';

export const MAX_FAILURES = 5;

/** Published on the `mcpbox:gate` diagnostics channel; the metrics module counts them. */
export interface GateEvent {
  event: 'unlock' | 'failure' | 'lockout' | 'blocked';
  group: string;
}
export const GATE_CHANNEL = 'mcpbox:gate';
const gateChannel = channel(GATE_CHANNEL);

export interface GateOptions {
  /** Default: a logger named `mcpbox` on stderr (lines start with `gate:`). */
  logger?: Logger;
  /** Milliseconds since the epoch; default `Date.now`. */
  clock?: Clock;
  /** Environment for the `env` backend; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Where unlocks, failures and lockouts live; default the process-wide store. */
  store?: GateStateStore;
}

/** An answer of the gate tools: the text and whether it is an error. */
export interface GateAnswer {
  ok: boolean;
  message: string;
}

export class Gate {
  readonly settings: GateSettings;
  readonly #backend: SecretBackend | undefined;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #store: GateStateStore;
  /** Shared state: groups whose record could not be read at the last sync → why. */
  readonly #unreachable = new Map<string, string>();
  /** Shared state: writes under way (lock, touch); each resolves with a warning or undefined. */
  readonly #writes = new Set<Promise<string | undefined>>();

  constructor(settings: GateSettings, options: GateOptions = {}) {
    this.settings = settings;
    this.#logger = options.logger ?? createLogger('mcpbox');
    this.#clock = options.clock ?? Date.now;
    this.#backend = settings.enabled
      ? secretBackendFor(settings, { logger: this.#logger, clock: this.#clock, env: options.env })
      : undefined;
    this.#store = options.store ?? processGateStore;
  }

  /** The shared record of a configured group, keyed by where its secret comes from. */
  #record(settings: GateGroupSettings): GroupRecord {
    return this.#store.group(this.#secretKey(settings));
  }

  #secretKey(settings: GateGroupSettings): string {
    const s = this.settings;
    const source =
      s.backend === 'file' ? s.secretFile : s.backend === 'vaultwarden' ? s.vaultwardenUrl : '';
    return `${settings.name}\u0000${s.backend}\u0000${source}\u0000${settings.secretRef}`;
  }

  /** Whether the state is shared with other replicas: then call {@link sync} before deciding. */
  get shared(): boolean {
    return this.#store.shared !== undefined;
  }

  /**
   * Shared state only: brings this process's copy of `group` (or of every group) up to date, so
   * `check` and `status` see unlocks and locks made on other replicas. When the shared state
   * cannot be read, `check` refuses the group's calls until a later `sync` succeeds (fail
   * closed). Resolves at once in memory.
   */
  async sync(group?: string): Promise<void> {
    const shared = this.#store.shared;
    if (!shared) return;
    const names = group === undefined ? this.groupNames : [group];
    await Promise.all(
      names.map(async (name) => {
        const settings = this.settings.groups.get(name);
        if (!settings) return;
        try {
          await shared.refresh(this.#secretKey(settings));
          this.#unreachable.delete(name);
        } catch (error) {
          this.#unreachable.set(name, unreachableMessage(name, error));
        }
      }),
    );
  }

  /**
   * Shared state only: waits for the writes `lock` and `check` started; resolves with a
   * warning when one could not reach the other replicas.
   */
  async settled(): Promise<string | undefined> {
    const writes = [...this.#writes];
    const results = await Promise.all(writes);
    return results.find((warning) => warning !== undefined);
  }

  /** Starts a write to the shared state; a failure is logged and reported by `settled`. */
  #write(what: string, write: Promise<void>): void {
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

  get enabled(): boolean {
    return this.settings.enabled;
  }

  /** Group names, sorted. */
  get groupNames(): string[] {
    return [...this.settings.groups.keys()].sort();
  }

  /** The group whose `tools` list names `tool`, if any. */
  groupOfTool(tool: string): string | undefined {
    for (const group of this.settings.groups.values())
      if (group.tools.includes(tool)) return group.name;
    return undefined;
  }

  /** Checks `code` for `group` and, when it is right, unlocks the group for the caller's session. */
  async unlock(group: string, code: string, ctx?: GateCallContext): Promise<GateAnswer> {
    if (!this.enabled) return { ok: true, message: 'The gate is disabled; nothing to unlock.' };
    const settings = this.settings.groups.get(group);
    if (settings === undefined) return { ok: false, message: this.#unknown(group) };
    const state = this.#record(settings);
    const shared = this.#store.shared;
    const secretKey = this.#secretKey(settings);
    if (shared) {
      try {
        await shared.refresh(secretKey);
      } catch (error) {
        return { ok: false, message: unreachableMessage(group, error) };
      }
    }
    if (state.lockedOut) return { ok: false, message: this.#lockedOutMessage(group) };

    let secret: string;
    try {
      secret = await this.#backend!.secret(settings.secretRef);
    } catch (error) {
      const reason =
        error instanceof SecretUnavailableError ? error.message : 'The secret backend failed.';
      this.#logger.warn(`gate: cannot read the secret of group '${group}': ${reason}`);
      return { ok: false, message: `Cannot unlock group '${group}': ${reason}` };
    }

    // From here to the end nothing awaits, so two concurrent unlocks cannot both use one code.
    const now = this.#clock();
    if (state.lockedOut) return { ok: false, message: this.#lockedOutMessage(group) };
    const check = checkTotp(secret, code, now);
    switch (check.kind) {
      case 'malformed':
        return {
          ok: false,
          message: 'Malformed code: expected the 6 digits your authenticator shows.',
        };
      case 'bad-secret':
        this.#logger.error(`gate: the secret of group '${group}' is not valid base32`);
        return {
          ok: false,
          message: `Cannot unlock group '${group}': its secret is not valid base32.`,
        };
      case 'invalid':
        if (!shared) return this.#failure(group, state);
        try {
          const counted = await shared.recordFailure(secretKey, MAX_FAILURES);
          return this.#failed(group, counted.failures, counted.lockedOut);
        } catch (error) {
          return { ok: false, message: unreachableMessage(group, error) };
        }
      case 'valid':
        break;
    }
    const caller = callerKeyOf(ctx);
    // Shared state: one atomic step in Redis decides, whichever replica the code reached.
    let claim: StepClaim = check.step <= state.lastUsedStep ? 'reused' : 'ok';
    if (shared && claim === 'ok') {
      try {
        claim = await shared.claimStep(secretKey, check.step, caller, now);
      } catch (error) {
        return { ok: false, message: unreachableMessage(group, error) };
      }
    }
    if (claim === 'locked-out') return { ok: false, message: this.#lockedOutMessage(group) };
    if (claim === 'reused') {
      const wait = (stepAt(now) + 1) * TOTP_PERIOD_SECONDS - Math.floor(now / 1000);
      this.#logger.warn(`gate: refused a reused code for group '${group}'`);
      return {
        ok: false,
        message: `This code was already used. Wait for the next code (about ${wait}s).`,
      };
    }
    state.lastUsedStep = check.step;
    state.consecutiveFailures = 0;
    this.#publish('unlock', group);
    const timeout = formatDuration(settings.timeoutSeconds);
    if (caller === undefined) {
      const handle = mintHandle(group, state.lockEpoch, now + settings.timeoutSeconds * 1000);
      this.#logger.info(`gate: group '${group}' unlocked with a handle (caller without a session)`);
      return {
        ok: true,
        message:
          `Group '${group}' unlocked for ${timeout}. This connection has no session, so pass ` +
          `${GATE_HANDLE_ARGUMENT}='${handle}' as an extra argument of every call to a tool in ` +
          `this group. Keep it private: it works for whoever presents it until the group locks.`,
      };
    }
    this.#touch(state, caller, now).unlocked.set(caller, now);
    this.#logger.info(`gate: group '${group}' unlocked`, { caller: shortKey(caller) });
    return {
      ok: true,
      message: `Group '${group}' unlocked. Auto-lock after ${timeout} of inactivity.`,
    };
  }

  /** Locks `group` — or, with `''`, every group — for every caller, voiding every handle. */
  lock(group = ''): GateAnswer {
    if (group === '') {
      for (const settings of this.settings.groups.values()) this.#revoke(settings);
      this.#logger.info('gate: all groups locked');
      return { ok: true, message: 'All groups locked.' };
    }
    const settings = this.settings.groups.get(group);
    if (!settings) return { ok: false, message: this.#unknown(group) };
    this.#revoke(settings);
    this.#logger.info(`gate: group '${group}' locked`);
    return { ok: true, message: `Group '${group}' locked.` };
  }

  /** Revokes here at once and, with shared state, on every replica (see `settled`). */
  #revoke(settings: GateGroupSettings): void {
    revoke(this.#record(settings));
    const shared = this.#store.shared;
    if (shared) {
      this.#write(`the lock of group '${settings.name}'`, shared.revoke(this.#secretKey(settings)));
    }
  }

  /** One line per group, as the caller's session sees it. */
  status(ctx?: GateCallContext): string {
    if (!this.enabled) return 'The gate is disabled: protected tools run without unlocking.';
    if (this.settings.groups.size === 0) return 'No groups configured.';
    const now = this.#clock();
    const caller = callerKeyOf(ctx);
    return this.groupNames
      .map((name) => {
        const settings = this.settings.groups.get(name)!;
        const state = this.#record(settings);
        if (state.lockedOut) return `⛔ ${name}: LOCKED OUT (${this.#resetHint})`;
        const left = this.#remaining(settings, state, caller, ctx, now);
        return left === undefined
          ? `✗ ${name}: LOCKED`
          : `✓ ${name}: UNLOCKED — auto-lock in ${formatDuration(Math.ceil(left / 1000))}`;
      })
      .join('\n');
  }

  /**
   * Every group as an operator's page shows it: its tools, whether it is locked out, and which
   * callers hold an unlock for how much longer. Callers are shortened (`session:1a2b3c4d…`): a
   * full session id would let whoever reads the page act as that session. Reads only.
   */
  snapshot(): GateGroupSnapshot[] {
    const now = this.#clock();
    return this.groupNames.map((name) => {
      const settings = this.settings.groups.get(name)!;
      const state = this.#record(settings);
      const unlocked = [...state.unlocked]
        .map(([caller, last]) => ({
          caller: displayCallerKey(caller),
          msLeft: last + settings.timeoutSeconds * 1000 - now,
        }))
        .filter((u) => u.msLeft > 0);
      return {
        name,
        tools: [...settings.tools],
        timeoutSeconds: settings.timeoutSeconds,
        lockedOut: state.lockedOut,
        unlocked,
      };
    });
  }

  /**
   * Whether a protected call may run now: `undefined` when it may (and its inactivity clock
   * restarts), otherwise the message to answer with.
   */
  check(group: string, ctx?: GateCallContext): string | undefined {
    if (!this.enabled) return undefined;
    const settings = this.settings.groups.get(group);
    if (settings === undefined) return this.#unknown(group);
    const unreachable = this.#unreachable.get(group);
    if (unreachable !== undefined) return this.#blocked(group, unreachable);
    const state = this.#record(settings);
    if (state.lockedOut) return this.#blocked(group, this.#lockedOutMessage(group));
    const now = this.#clock();
    const caller = callerKeyOf(ctx);
    if (this.#remaining(settings, state, caller, ctx, now) === undefined) {
      const expired = caller !== undefined && state.unlocked.delete(caller);
      const why = expired
        ? `Group '${group}' locked again after ${formatDuration(settings.timeoutSeconds)} of inactivity.`
        : `Group '${group}' is locked.`;
      return this.#blocked(group, `${why} ${unlockHint(group, caller === undefined)}`);
    }
    if (caller !== undefined && state.unlocked.has(caller)) {
      this.#touch(state, caller, now).unlocked.set(caller, now);
      const shared = this.#store.shared;
      if (shared) {
        const touched = shared.touch(this.#secretKey(settings), caller, now, state.lockEpoch);
        this.#write(`the use of group '${group}'`, touched);
      }
    }
    return undefined;
  }

  /**
   * Wraps a tool handler — sync or async, with or without an input schema — so it runs only
   * while `group` is unlocked for the calling session; otherwise it answers with an `isError`
   * result saying how to unlock.
   *
   * @throws Error at wrap time when the gate is enabled and `group` is not configured.
   */
  protect<Args extends unknown[], R>(
    group: string,
    handler: (...args: Args) => R | Promise<R>,
  ): (...args: Args) => Promise<R | CallToolResult> {
    if (this.enabled && !this.settings.groups.has(group)) {
      throw new Error(`gate.protect: ${this.#unknown(group)}`);
    }
    const gate = this;
    return async function gateProtected(...args: Args) {
      if (gate.shared) await gate.sync(group);
      const blocked = gate.check(group, findCallContext(args));
      if (blocked !== undefined) return gateErrorResult(blocked);
      return await handler(...args);
    };
  }

  /** Registers `gate_unlock`, `gate_lock` and `gate_status` on `server` (none when disabled). */
  registerTools(server: ToolRegistrar): void {
    registerGateTools(this, server);
  }

  /** Drops the unlocks of a closed session. */
  forgetSession(sessionId: string): void {
    this.#store.forgetCaller(`session:${sessionId}`);
  }

  #failure(group: string, state: GroupRecord): GateAnswer {
    state.consecutiveFailures++;
    const lockedOut = state.consecutiveFailures >= MAX_FAILURES;
    if (lockedOut) {
      state.lockedOut = true;
      revoke(state);
    }
    return this.#failed(group, state.consecutiveFailures, lockedOut);
  }

  /** The answer to a wrong code, counted (here or in the shared state) as the `failures`-th. */
  #failed(group: string, failures: number, lockedOut: boolean): GateAnswer {
    this.#publish('failure', group);
    if (lockedOut) {
      this.#publish('lockout', group);
      this.#logger.warn(
        `gate: group '${group}' locked out after ${MAX_FAILURES} failed attempts; ${this.#resetHint}`,
      );
      return { ok: false, message: this.#lockedOutMessage(group) };
    }
    const left = MAX_FAILURES - failures;
    this.#logger.warn(`gate: wrong code for group '${group}' (${left} attempt(s) left)`);
    return { ok: false, message: `Invalid code. ${left} attempt(s) left.` };
  }

  /**
   * Milliseconds until the group locks again for this caller (by its stored unlock, or by the
   * handle it presented); undefined when locked.
   */
  #remaining(
    settings: GateGroupSettings,
    state: GroupRecord,
    caller: string | undefined,
    ctx: GateCallContext | undefined,
    now: number,
  ): number | undefined {
    if (ctx?.gateHandle && handleUnlocks(ctx.gateHandle, settings.name, state.lockEpoch, now)) {
      return settings.timeoutSeconds * 1000;
    }
    const last = caller === undefined ? undefined : state.unlocked.get(caller);
    if (last === undefined) return undefined;
    const left = last + settings.timeoutSeconds * 1000 - now;
    return left > 0 ? left : undefined;
  }

  /** Marks the caller seen and forgets callers silent for longer than the idle timeout. */
  #touch(state: GroupRecord, caller: string, now: number): GroupRecord {
    const idleMs = this.settings.sessionIdleTimeoutSeconds * 1000;
    for (const [key, seen] of state.lastSeen) {
      if (now - seen > idleMs) {
        state.lastSeen.delete(key);
        state.unlocked.delete(key);
      }
    }
    state.lastSeen.set(caller, now);
    return state;
  }

  /** Shared state outlives a restart of this process: the hint says what resets a lockout. */
  get #resetHint(): string {
    return this.#store.shared
      ? "reset by deleting the cluster's gate keys in Redis"
      : 'restart to reset';
  }

  #lockedOutMessage(group: string): string {
    return this.#store.shared
      ? `Group '${group}' is locked out after ${MAX_FAILURES} failed attempts, on every replica. An operator resets it by deleting the cluster's gate keys in Redis.`
      : lockedOutMessage(group);
  }

  #blocked(group: string, message: string): string {
    this.#publish('blocked', group);
    this.#logger.info(`gate: blocked a call to locked group '${group}'`);
    return message;
  }

  #unknown(group: string): string {
    const known = this.groupNames;
    return `Unknown group '${group}'. ${known.length ? `Known groups: ${known.join(', ')}.` : 'No groups are configured.'}`;
  }

  #publish(event: GateEvent['event'], group: string): void {
    if (gateChannel.hasSubscribers) gateChannel.publish({ event, group } satisfies GateEvent);
  }
}

/** Creates a gate from the `gate:` config mapping (undefined → a disabled gate). */
export function createGate(config: unknown, options: GateOptions = {}): Gate {
  return new Gate(parseGateConfig(config), options);
}

export function gateErrorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

function unlockHint(group: string, withHandle: boolean): string {
  const unlock = `Call gate_unlock(group='${group}', code='<6-digit code from your authenticator>') first`;
  return withHandle
    ? `${unlock}, then pass the ${GATE_HANDLE_ARGUMENT} it returns as an extra argument of this call.`
    : `${unlock}.`;
}

/** Voids every unlock and handle of a group. */
function revoke(state: GroupRecord): void {
  state.unlocked.clear();
  state.lockEpoch++;
}

function lockedOutMessage(group: string): string {
  return `Group '${group}' is locked out after ${MAX_FAILURES} failed attempts. Restart the server to reset.`;
}

/** One group in {@link Gate.snapshot}. */
export interface GateGroupSnapshot {
  name: string;
  tools: string[];
  timeoutSeconds: number;
  lockedOut: boolean;
  /** Callers holding an unlock now, and the milliseconds until it lapses without use. */
  unlocked: { caller: string; msLeft: number }[];
}

/** `session:1a2b3c4d…`: the kind of caller and enough of its id to tell callers apart. */
export function displayCallerKey(key: string): string {
  const colon = key.indexOf(':');
  const kind = colon < 0 ? '' : key.slice(0, colon + 1);
  const id = key.slice(colon + 1);
  return id.length > 8 ? `${kind}${id.slice(0, 8)}…` : key;
}

function unreachableMessage(group: string, error: unknown): string {
  return (
    `Group '${group}' is unavailable: the gate's shared state cannot be reached ` +
    `(${errorText(error)}). Protected calls are refused until it is back; try again shortly.`
  );
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function shortKey(key: string): string {
  return key.length > 20 ? `${key.slice(0, 20)}…` : key;
}

/** `2h`, `5m`, `1m 30s`, `45s`. */
export function formatDuration(totalSeconds: number): string {
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = Math.floor(totalSeconds % 60);
  const parts = [h ? `${h}h` : '', m ? `${m}m` : '', s ? `${s}s` : ''].filter(Boolean);
  return parts.length ? parts.join(' ') : '0s';
}
