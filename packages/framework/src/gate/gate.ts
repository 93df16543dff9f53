/**
 * The TOTP gate: groups of sensitive tools that stay locked until a session proves possession of
 * the group's authenticator with `gate_unlock(group, code)`.
 *
 * - Every group starts locked; nothing outlives the state's store (memory alone, Redis in a
 *   cluster).
 * - Unlocks belong to the caller that presented the code (principal, session or connection; see
 *   `session.ts`); a caller with no lasting identity gets an unlock handle instead
 *   (`handles.ts`). An unlocked group locks again after `timeout` seconds without a protected
 *   call, and each protected call restarts that clock.
 * - Locks are global: `gate_lock(group)` and the kill switch `gate_lock()` revoke every unlock
 *   and handle, because locking is always safe and an operator pulling the switch means all.
 * - Failures and replays are counted per group across callers: 5 consecutive wrong codes lock
 *   the group out, and a code (time step) once accepted is refused afterwards — opening a new
 *   session must not buy an attacker fresh attempts or a second use of a code.
 * - All of that lives in one {@link GateStateStore} (`state/gate.ts`, where its rules are) keyed
 *   by the group's secret, not in this object: reloading or re-creating a plugin's gate resets
 *   nothing. Every decision reads the store first ({@link Gate.sync}); when it cannot be read,
 *   protected calls are refused (fail closed).
 * - Neither a secret nor a code ever reaches a log line, an error text or a metric.
 *
 * @module
 */
import { channel } from 'node:diagnostics_channel';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { createLogger, type Logger } from '../logging/index.ts';
import { type Clock, type SecretBackend, secretBackendFor } from '../secrets/backends.ts';
import type { ClaimAnswer, GroupState } from '../state/gate.ts';
import { callerKeyOf, findCallContext, type GateCallContext } from './caller.ts';
import { checkCode, type GateAnswer } from './codes.ts';
import { type GateGroupSettings, type GateSettings, parseGateConfig } from './config.ts';
import { handleUnlocks, mintHandle } from './handles.ts';
import {
  displayCallerKey,
  formatDuration,
  gateErrorResult,
  handleMessage,
  LOCKOUT,
  MAX_FAILURES,
  reusedMessage,
  shortKey,
  unavailableMessage,
  unlockHint,
} from './messages.ts';
import { type GateStateStore, processGateStore, secretKeyOf } from './store.ts';
import { type GateToolActions, registerGateTools, type ToolRegistrar } from './tools.ts';
import { type GateGroupSnapshot, GroupViews } from './views.ts';

export type { GateAnswer } from './codes.ts';
export { displayCallerKey, formatDuration, gateErrorResult, MAX_FAILURES } from './messages.ts';
export type { GateGroupSnapshot } from './views.ts';

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
  /** Where unlocks, failures and lockouts live; default the process's store. */
  store?: GateStateStore;
}

export class Gate implements GateToolActions {
  readonly settings: GateSettings;
  readonly #backend: SecretBackend | undefined;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #store: GateStateStore;
  /** Each group as of this gate's last read or own change: what `check` and `status` read. */
  readonly #views: GroupViews;

  constructor(settings: GateSettings, options: GateOptions = {}) {
    this.settings = settings;
    this.#logger = options.logger ?? createLogger('mcpbox');
    this.#clock = options.clock ?? Date.now;
    this.#backend = settings.enabled
      ? secretBackendFor(settings, { logger: this.#logger, clock: this.#clock, env: options.env })
      : undefined;
    this.#store = options.store ?? processGateStore;
    this.#views = new GroupViews(this.#store, this.#logger);
  }

  #secretKey(group: GateGroupSettings): string {
    return secretKeyOf(this.settings, group);
  }

  #refresh(settings: GateGroupSettings): Promise<GroupState> {
    return this.#views.refresh(settings.name, this.#secretKey(settings));
  }

  /** Unlocks unused this long are forgotten (`session_idle_timeout`). */
  get #retentionMs(): number {
    return this.settings.sessionIdleTimeoutSeconds * 1000;
  }

  /**
   * Brings this gate's view of `group` (or of every group) up to date, so `check` and `status`
   * see unlocks and locks made by other gates and replicas. When the state cannot be read,
   * `check` refuses the group's calls until a later `sync` succeeds (fail closed).
   */
  async sync(group?: string): Promise<void> {
    const names = group === undefined ? this.groupNames : [group];
    const groups = names.flatMap((name) => {
      const settings = this.settings.groups.get(name);
      return settings ? [[name, this.#secretKey(settings)] as const] : [];
    });
    await this.#views.sync(groups);
  }

  /** Waits for the writes `lock` and `check` started; a warning when one did not land. */
  settled(): Promise<string | undefined> {
    return this.#views.settled();
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

  /** Checks `code` for `group` and, when it is right, unlocks the group for the caller. */
  async unlock(group: string, code: string, ctx?: GateCallContext): Promise<GateAnswer> {
    if (!this.enabled) return { ok: true, message: 'The gate is disabled; nothing to unlock.' };
    const settings = this.settings.groups.get(group);
    if (settings === undefined) return { ok: false, message: this.#unknown(group) };
    try {
      if ((await this.#refresh(settings)).lockedOut) {
        return { ok: false, message: this.#lockedOutMessage(group) };
      }
    } catch (error) {
      return { ok: false, message: unavailableMessage(group, error) };
    }
    const now = this.#clock();
    const checked = await checkCode(this.#backend!, settings, code, now, this.#logger);
    if (checked === 'invalid') return await this.#wrongCode(settings);
    if (!('step' in checked)) return checked;
    return await this.#claim(settings, checked.step, callerKeyOf(ctx), now);
  }

  /** A right code: its step is claimed in the store (once, whichever replica it reached). */
  async #claim(
    settings: GateGroupSettings,
    step: number,
    caller: string | undefined,
    now: number,
  ): Promise<GateAnswer> {
    const group = settings.name;
    let answer: ClaimAnswer;
    try {
      const secretKey = this.#secretKey(settings);
      answer = await this.#store.claimStep(secretKey, step, caller, now, this.#retentionMs);
    } catch (error) {
      return { ok: false, message: unavailableMessage(group, error) };
    }
    await this.#refresh(settings).catch(() => undefined);
    if (answer.claim === 'locked-out') return { ok: false, message: this.#lockedOutMessage(group) };
    if (answer.claim === 'reused') {
      this.#logger.warn(`gate: refused a reused code for group '${group}'`);
      return { ok: false, message: reusedMessage(now) };
    }
    this.#publish('unlock', group);
    const timeout = formatDuration(settings.timeoutSeconds);
    if (caller === undefined) {
      const handle = mintHandle(group, answer, now + settings.timeoutSeconds * 1000);
      this.#logger.info(`gate: group '${group}' unlocked with a handle (caller without a session)`);
      return { ok: true, message: handleMessage(group, timeout, handle) };
    }
    this.#logger.info(`gate: group '${group}' unlocked`, { caller: shortKey(caller) });
    return {
      ok: true,
      message: `Group '${group}' unlocked. Auto-lock after ${timeout} of inactivity.`,
    };
  }

  /** A wrong code, counted in the store: the lockout is decided there. */
  async #wrongCode(settings: GateGroupSettings): Promise<GateAnswer> {
    const group = settings.name;
    let counted: { failures: number; lockedOut: boolean };
    try {
      counted = await this.#store.recordFailure(this.#secretKey(settings), MAX_FAILURES);
    } catch (error) {
      return { ok: false, message: unavailableMessage(group, error) };
    }
    await this.#refresh(settings).catch(() => undefined);
    this.#publish('failure', group);
    if (counted.lockedOut) {
      this.#publish('lockout', group);
      this.#logger.warn(
        `gate: group '${group}' locked out after ${MAX_FAILURES} failed attempts; ${this.#lockout.hint}`,
      );
      return { ok: false, message: this.#lockedOutMessage(group) };
    }
    const left = MAX_FAILURES - counted.failures;
    this.#logger.warn(`gate: wrong code for group '${group}' (${left} attempt(s) left)`);
    return { ok: false, message: `Invalid code. ${left} attempt(s) left.` };
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

  /** Revokes in this gate's view at once and in the store (see `settled`). */
  #revoke(settings: GateGroupSettings): void {
    const view = this.#views.get(settings.name);
    view.unlocked.clear();
    view.lockEpoch++;
    this.#views.write(
      `the lock of group '${settings.name}'`,
      this.#store.revoke(this.#secretKey(settings)),
    );
  }

  /** One line per group, as the caller sees it. */
  status(ctx?: GateCallContext): string {
    if (!this.enabled) return 'The gate is disabled: protected tools run without unlocking.';
    if (this.settings.groups.size === 0) return 'No groups configured.';
    const now = this.#clock();
    const caller = callerKeyOf(ctx);
    return this.groupNames
      .map((name) => {
        const settings = this.settings.groups.get(name)!;
        const state = this.#views.get(name);
        if (state.lockedOut) return `⛔ ${name}: LOCKED OUT (${this.#lockout.hint})`;
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
      const state = this.#views.get(name);
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
   * Whether a protected call may run now, by this gate's view (`sync` first): `undefined` when
   * it may (and its inactivity clock restarts), otherwise the message to answer with.
   */
  check(group: string, ctx?: GateCallContext): string | undefined {
    if (!this.enabled) return undefined;
    const settings = this.settings.groups.get(group);
    if (settings === undefined) return this.#unknown(group);
    const unreachable = this.#views.unreachable(group);
    if (unreachable !== undefined) return this.#blocked(group, unreachable);
    const state = this.#views.get(group);
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
      state.unlocked.set(caller, now);
      const secretKey = this.#secretKey(settings);
      const touched = this.#store.touch(secretKey, caller, now, state, this.#retentionMs);
      this.#views.write(`the use of group '${group}'`, touched);
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
      await gate.sync(group);
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
    this.#views.forget(`session:${sessionId}`);
  }

  /**
   * Milliseconds until the group locks again for this caller (by its stored unlock, or by the
   * handle it presented); undefined when locked.
   */
  #remaining(
    settings: GateGroupSettings,
    state: GroupState,
    caller: string | undefined,
    ctx: GateCallContext | undefined,
    now: number,
  ): number | undefined {
    if (ctx?.gateHandle && handleUnlocks(ctx.gateHandle, settings.name, state, now)) {
      return settings.timeoutSeconds * 1000;
    }
    const last = caller === undefined ? undefined : state.unlocked.get(caller);
    if (last === undefined) return undefined;
    const left = last + settings.timeoutSeconds * 1000 - now;
    return left > 0 ? left : undefined;
  }

  /** A lockout outlives a restart only where the state does. */
  get #lockout() {
    return LOCKOUT[this.#store.scope];
  }

  #lockedOutMessage(group: string): string {
    return this.#lockout.message(group);
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
