/**
 * `Limiter`: whether one principal's call may run now under `limits:` — its rate and daily
 * budgets (each call spending its rule's `cost`), the first matching tool rule's own budgets,
 * and the calls it has running. Keyed by the principal's id, never a session: reopening a
 * session (or opening ten) changes nothing. Counts live in a {@link LimitStore} (one process, or
 * the cluster's Redis: every replica spends from one budget, and a restart forgets nothing).
 *
 * A refused call costs nothing: what it spent of other budgets is given back. A nested call —
 * made by a running tool for the same caller (`proxy__run`, code mode's calls from kernel code) —
 * spends rate and daily budgets but takes no concurrency slot: the call running it holds one.
 *
 * Per-principal usage is published on {@link LIMITS_CHANNEL} for the metrics (only while limits
 * are configured, so principal ids reach metric labels only then).
 *
 * @module
 */
import { channel } from 'node:diagnostics_channel';
import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { namesMatcher } from '../access/globs.ts';
import type { Logger } from '../contract/logger.ts';
import type { LimitKind, LimitRefusal } from './errors.ts';
import { type Budgets, type LimitSettings, RATE_PERIODS, type ToolRule } from './settings.ts';
import type { LimitStore } from './store.ts';

export const LIMITS_CHANNEL = 'mcpbox:limits';
const limitsChannel = channel(LIMITS_CHANNEL);

/** What {@link LIMITS_CHANNEL} carries for each call a limit saw. */
export interface LimitEvent {
  principal: string;
  /** Admitted calls spend `cost` of the principal's budgets; refused ones spend nothing. */
  outcome: 'admitted' | 'refused';
  cost: number;
  limit?: LimitKind;
}

/** A call as the limiter sees it. */
export interface LimitedCall {
  principal: string;
  tool: string;
  plugin: string;
  /** Made by a running call of the same caller: it takes no concurrency slot. */
  nested: boolean;
}

export type LimitDecision =
  | { admitted: true; release(): void }
  | { admitted: false; refusal: LimitRefusal };

/** One budget of a principal as it stands (for the console). */
export interface BudgetUsage {
  limit: LimitKind;
  scope: string;
  used: number;
  max: number;
  period?: keyof typeof RATE_PERIODS;
  /** Until the count starts again (rate, daily); absent for concurrency and unused budgets. */
  resetsInMs?: number;
}

export interface PrincipalUsage {
  principal: string;
  exempt: boolean;
  /** `process`: counts of this process since it started; `cluster`: shared, kept in Redis. */
  scope: 'process' | 'cluster';
  budgets: BudgetUsage[];
}

export interface LimiterOptions {
  clock?: () => number;
  /** How long a concurrency slot outlives a replica that died holding it. Default 60 s. */
  leaseMs?: number;
  logger?: Logger;
}

const DAY_MS = 86_400_000;

/** One set of budgets (the principal's, or a rule's) with its counters. */
interface Scope {
  /** `principal` or `tools.<index>`: where its counts are kept. */
  id: string;
  /** How messages name it: `principal`, or the rule's match. */
  name: string;
  budgets: Budgets;
  rate?: RateLimiterAbstract;
  daily?: RateLimiterAbstract;
}

/** One spend made for a call, to give back if the call is refused. */
interface Spend {
  counter: RateLimiterAbstract;
  key: string;
  points: number;
}

const isRes = (value: unknown): value is RateLimiterRes =>
  typeof (value as RateLimiterRes | null)?.msBeforeNext === 'number';

export class Limiter {
  readonly settings: LimitSettings;
  readonly #store: LimitStore;
  readonly #clock: () => number;
  readonly #leaseMs: number;
  readonly #logger: Logger | undefined;
  readonly #principal: Scope;
  readonly #rules: Array<{
    rule: ToolRule;
    scope: Scope;
    matches: (t: string, p: string) => boolean;
  }>;
  readonly #exempt: RegExp | undefined;
  #warnedAt = Number.NEGATIVE_INFINITY;

  constructor(settings: LimitSettings, store: LimitStore, options: LimiterOptions = {}) {
    this.settings = settings;
    this.#store = store;
    this.#clock = options.clock ?? Date.now;
    this.#leaseMs = options.leaseMs ?? 60_000;
    this.#logger = options.logger;
    this.#principal = this.#scope('principal', 'principal', settings.per_principal);
    this.#rules = settings.tools.map((rule, i) => {
      const tools = namesMatcher(rule.match);
      const plugins = namesMatcher(rule.plugin);
      return {
        rule,
        scope: this.#scope(`tools.${i}`, rule.label, rule),
        matches: (tool: string, plugin: string) => tools(tool) || plugins(plugin),
      };
    });
    this.#exempt = principalGlobs(settings.exempt);
  }

  /** Whether no limit applies to `principal`. */
  exempt(principal: string): boolean {
    return this.#exempt?.test(principal) ?? false;
  }

  /** Spends the call's budgets and takes its slots, or says which limit refuses it. */
  async admit(call: LimitedCall): Promise<LimitDecision> {
    if (this.exempt(call.principal)) return { admitted: true, release: () => undefined };
    const matched = this.#rules.find((r) => r.matches(call.tool, call.plugin));
    const cost = matched?.rule.cost ?? 1;
    const spends: Spend[] = [];
    const refusals: LimitRefusal[] = [];
    const spend = async (scope: Scope, kind: 'rate' | 'daily', points: number) => {
      const counter = scope[kind];
      if (counter === undefined || points === 0) return;
      const key = this.#counterKey(kind, call.principal);
      try {
        await counter.consume(key, points);
        spends.push({ counter, key, points });
      } catch (error) {
        if (!isRes(error)) return this.#storeFailed(error);
        spends.push({ counter, key, points });
        const max = kind === 'rate' ? scope.budgets.rate!.max : scope.budgets.daily!;
        refusals.push({
          limit: kind,
          scope: scope.name,
          principal: call.principal,
          max,
          ...(kind === 'rate' ? { period: scope.budgets.rate!.period } : {}),
          retryAfterMs: kind === 'rate' ? error.msBeforeNext : this.#untilMidnight(),
          ...(points > 1 && scope === this.#principal ? { cost: points } : {}),
        });
      }
    };
    const scopes = matched ? [this.#principal, matched.scope] : [this.#principal];
    await Promise.all(
      scopes.flatMap((scope) => {
        const points = scope === this.#principal ? cost : 1;
        return [spend(scope, 'rate', points), spend(scope, 'daily', points)];
      }),
    );
    let decision: LimitDecision;
    if (refusals.length > 0) {
      decision = { admitted: false, refusal: latest(refusals) };
    } else {
      decision = call.nested
        ? { admitted: true, release: () => undefined }
        : await this.#takeSlots(call.principal, scopes);
    }
    if (!decision.admitted) await this.#giveBack(spends);
    this.#publish(call.principal, decision, cost);
    return decision;
  }

  /** Where `principal` stands against every configured budget. */
  async usage(principal: string): Promise<PrincipalUsage> {
    const now = this.#clock();
    const budgets: BudgetUsage[] = [];
    for (const scope of [this.#principal, ...this.#rules.map((r) => r.scope)]) {
      const { rate, daily, concurrent } = scope.budgets;
      for (const kind of ['rate', 'daily'] as const) {
        const counter = scope[kind];
        if (counter === undefined) continue;
        const res = await counter.get(this.#counterKey(kind, principal)).catch(() => null);
        budgets.push({
          limit: kind,
          scope: scope.name,
          used: res?.consumedPoints ?? 0,
          max: kind === 'rate' ? rate!.max : daily!,
          ...(kind === 'rate' ? { period: rate!.period } : {}),
          ...(res
            ? { resetsInMs: kind === 'rate' ? res.msBeforeNext : this.#untilMidnight() }
            : {}),
        });
      }
      if (concurrent !== undefined) {
        const used = await this.#store.leases
          .held(slotKey(scope.id, principal), now)
          .catch(() => 0);
        budgets.push({ limit: 'concurrent', scope: scope.name, used, max: concurrent });
      }
    }
    return { principal, exempt: this.exempt(principal), scope: this.#store.scope, budgets };
  }

  #scope(id: string, name: string, budgets: Budgets): Scope {
    const { rate, daily } = budgets;
    return {
      id,
      name,
      budgets,
      rate: rate && this.#store.counter(`${id}:rate`, rate.max, RATE_PERIODS[rate.period]),
      // A calendar day (UTC): the key names the day; its lifetime only tidies up.
      daily: daily === undefined ? undefined : this.#store.counter(`${id}:daily`, daily, 90_000),
    };
  }

  #counterKey(kind: 'rate' | 'daily', principal: string): string {
    if (kind === 'rate') return principal;
    return `${new Date(this.#clock()).toISOString().slice(0, 10)}:${principal}`;
  }

  #untilMidnight(): number {
    const now = this.#clock();
    return DAY_MS - (now % DAY_MS);
  }

  /** One concurrency slot of each scope with a cap, renewed while the call runs. */
  async #takeSlots(principal: string, scopes: Scope[]): Promise<LimitDecision> {
    const leases = this.#store.leases;
    const held: Array<{ key: string; id: string }> = [];
    const releaseAll = () => {
      const now = this.#clock();
      for (const { key, id } of held) {
        leases.release(key, id, now, this.#leaseMs).catch((e) => this.#storeFailed(e));
      }
    };
    for (const scope of scopes) {
      const max = scope.budgets.concurrent;
      if (max === undefined) continue;
      const key = slotKey(scope.id, principal);
      let id: string | undefined;
      try {
        id = await leases.acquire(key, max, this.#clock(), this.#leaseMs);
      } catch (error) {
        this.#storeFailed(error);
        continue;
      }
      if (id === undefined) {
        releaseAll();
        const refusal: LimitRefusal = {
          limit: 'concurrent',
          scope: scope.name,
          principal,
          max,
          retryAfterMs: 1000,
        };
        return { admitted: false, refusal };
      }
      held.push({ key, id });
    }
    if (held.length === 0) return { admitted: true, release: () => undefined };
    const renew = setInterval(() => {
      const now = this.#clock();
      for (const { key, id } of held) {
        leases.renew(key, id, now, this.#leaseMs).catch((e) => this.#storeFailed(e));
      }
    }, this.#leaseMs / 3);
    renew.unref();
    let released = false;
    return {
      admitted: true,
      release: () => {
        if (released) return;
        released = true;
        clearInterval(renew);
        releaseAll();
      },
    };
  }

  async #giveBack(spends: Spend[]): Promise<void> {
    await Promise.all(
      spends.map(({ counter, key, points }) =>
        counter.reward(key, points).catch((e) => this.#storeFailed(e)),
      ),
    );
  }

  /** The store could not count (Redis away without insurance, a slot store error): let it pass. */
  #storeFailed(error: unknown): void {
    // Once a minute at most: while Redis is away every call would say it.
    const now = this.#clock();
    if (now - this.#warnedAt < 60_000) return;
    this.#warnedAt = now;
    this.#logger?.warn(
      `limits: could not count a call (${error instanceof Error ? error.message : String(error)}); it was let through`,
    );
  }

  #publish(principal: string, decision: LimitDecision, cost: number): void {
    if (!limitsChannel.hasSubscribers) return;
    const event: LimitEvent = decision.admitted
      ? { principal, outcome: 'admitted', cost }
      : { principal, outcome: 'refused', cost, limit: decision.refusal.limit };
    limitsChannel.publish(event);
  }
}

function slotKey(scope: string, principal: string): string {
  return `${scope}:${principal}`;
}

/** The refusal that lasts longest: the call cannot run before it ends. */
function latest(refusals: LimitRefusal[]): LimitRefusal {
  return refusals.reduce((a, b) => (b.retryAfterMs > a.retryAfterMs ? b : a));
}

/** Principal id globs: `*` spans any characters (ids hold `:` and `/`). */
function principalGlobs(globs: readonly string[]): RegExp | undefined {
  if (globs.length === 0) return undefined;
  const pattern = (glob: string) =>
    glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*');
  return new RegExp(`^(?:${globs.map(pattern).join('|')})$`);
}
