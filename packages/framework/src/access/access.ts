/**
 * `AccessControl`: the one decision of who sees and may call what — the view a request came
 * through, then policy over the principal, the tool and (for a call) its arguments. Every route
 * asks it: `tools/list` and `tools/call` in both eras, `proxy__run`/`proxy__search`, code mode's
 * modules and calls from kernel code (`CatalogView`), another replica with the same settings.
 *
 * Tool-level outcomes are kept per principal, view and tool until the settings or the catalog
 * change, so a call evaluates only the rules that read its arguments, and a listing of
 * thousands of tools is a lookup after the first one.
 *
 * @module
 */
import type { Tool } from '@modelcontextprotocol/server';
import type { Principal } from '../contract/principal.ts';
import {
  type CompiledPolicy,
  combine,
  compilePolicy,
  principalInput,
  type RuleOutcome,
  toolInput,
  type Verdict,
} from './policy.ts';
import type { AccessSettings } from './settings.ts';
import { type ToolSubject, View } from './views.ts';

/** What a caller may do with one tool before its arguments are known. */
interface ToolStanding {
  readonly inView: boolean;
  readonly outcomes: readonly RuleOutcome[];
  /** Undefined when the tool is not in the view. */
  readonly verdict: Verdict | undefined;
}

/** A call's admission: its arguments (the view's fixed ones set), or why it may not run. */
export type Admission =
  | {
      admitted: true;
      args: Record<string, unknown> | undefined;
      /** The policy rule that allowed it (or `default`), when there is a policy. */
      rule?: string;
    }
  | { admitted: false; notInView: true }
  | { admitted: false; notInView: false; rule: string; reason: string };

/** Callers whose standings are kept; the least recently used go first. */
const MAX_CALLERS = 1000;

const principalKeys = new WeakMap<Principal, string>();

/** A text that differs when anything a rule could read of the principal differs. */
function principalKey(principal: Principal): string {
  let key = principalKeys.get(principal);
  if (key === undefined) {
    key = JSON.stringify(principal);
    principalKeys.set(principal, key);
  }
  return key;
}

interface CallerCache {
  readonly principal: Record<string, unknown>;
  readonly standings: Map<string, ToolStanding>;
  listing?: { source: readonly Tool[]; tools: Tool[] };
}

export class AccessControl {
  #views = new Map<string, View>();
  #policy: CompiledPolicy | undefined;
  #settings: AccessSettings = { views: {}, policy: undefined };
  #callers = new Map<string, CallerCache>();

  constructor(settings?: AccessSettings) {
    if (settings) this.update(settings);
  }

  /** Whether anything is configured: without views or policy every check is skipped. */
  get active(): boolean {
    return this.#views.size > 0 || this.#policy !== undefined;
  }

  get settings(): AccessSettings {
    return this.#settings;
  }

  /**
   * Replaces views and policy. Compiles first: a rule that does not compile throws
   * `PolicyError` and nothing changes.
   */
  update(settings: AccessSettings): void {
    const policy = settings.policy ? compilePolicy(settings.policy) : undefined;
    const views = new Map<string, View>();
    for (const [name, view] of Object.entries(settings.views))
      views.set(name, new View(name, view));
    this.#views = views;
    this.#policy = policy;
    this.#settings = settings;
    this.forget();
  }

  /** Drops every kept standing (the catalog changed: tools came, went or changed owner). */
  forget(): void {
    this.#callers.clear();
  }

  viewNames(): string[] {
    return [...this.#views.keys()].sort();
  }

  view(name: string | undefined): View | undefined {
    return name === undefined ? undefined : this.#views.get(name);
  }

  #caller(principal: Principal, view: string | undefined): CallerCache {
    const key = `${view ?? ''}\n${principalKey(principal)}`;
    let cache = this.#callers.get(key);
    if (cache) {
      // Most recently used last, so the first key is the one to evict.
      this.#callers.delete(key);
      this.#callers.set(key, cache);
      return cache;
    }
    cache = { principal: principalInput(principal), standings: new Map() };
    this.#callers.set(key, cache);
    if (this.#callers.size > MAX_CALLERS) {
      this.#callers.delete(this.#callers.keys().next().value as string);
    }
    return cache;
  }

  #standing(cache: CallerCache, viewName: string | undefined, tool: ToolSubject): ToolStanding {
    let standing = cache.standings.get(tool.name);
    if (standing) return standing;
    const view = this.view(viewName);
    const inView = view === undefined || view.includesTool(tool);
    const policy = this.#policy;
    let outcomes: RuleOutcome[] = [];
    let verdict: Verdict | undefined;
    if (inView) {
      if (policy === undefined) verdict = { allowed: true, by: 'no policy' };
      else {
        const input = { principal: cache.principal, tool: toolInput(tool), view: viewName ?? '' };
        outcomes = policy.rules
          .filter((rule) => rule.appliesTo(tool.name))
          .map((rule) => ({ rule, ...rule.evaluate(input) }));
        verdict = combine(policy, outcomes);
      }
    }
    standing = { inView, outcomes, verdict };
    cache.standings.set(tool.name, standing);
    return standing;
  }

  /** Whether the caller may see `tool` (and so call it, unless an argument rule says no). */
  mayList(principal: Principal, view: string | undefined, tool: ToolSubject): boolean {
    if (!this.active) return true;
    return this.#standing(this.#caller(principal, view), view, tool).verdict?.allowed === true;
  }

  /**
   * `tools/list` for the caller: the tools it may reach, as its view presents them. The answer
   * is kept while `source` (the catalog's listing, rebuilt on each change) stays the same.
   */
  listTools(
    principal: Principal,
    viewName: string | undefined,
    source: readonly Tool[],
    lookup: (name: string) => ToolSubject | undefined,
  ): Tool[] {
    if (!this.active) return source as Tool[];
    const cache = this.#caller(principal, viewName);
    if (cache.listing?.source === source) return cache.listing.tools;
    const view = this.view(viewName);
    const tools: Tool[] = [];
    for (const tool of source) {
      const subject = lookup(tool.name);
      if (subject === undefined) continue;
      if (this.#standing(cache, viewName, subject).verdict?.allowed !== true) continue;
      tools.push(view ? view.present(tool) : tool);
    }
    cache.listing = { source, tools };
    return tools;
  }

  /** Decides one call of `tool` (by its catalog name) with its actual arguments. */
  admit(
    principal: Principal,
    viewName: string | undefined,
    tool: ToolSubject,
    args: Record<string, unknown> | undefined,
  ): Admission {
    if (!this.active) return { admitted: true, args };
    const cache = this.#caller(principal, viewName);
    const standing = this.#standing(cache, viewName, tool);
    if (!standing.inView) return { admitted: false, notInView: true };
    const view = this.view(viewName);
    const finalArgs = view ? view.argumentsFor(tool.name, args) : args;
    const verdict = this.#callVerdict(cache, viewName, tool, standing, finalArgs);
    if (verdict.allowed) {
      const rule = this.#policy === undefined ? {} : { rule: verdict.by };
      return { admitted: true, args: finalArgs, ...rule };
    }
    return { admitted: false, notInView: false, rule: verdict.by, reason: verdict.reason };
  }

  #callVerdict(
    cache: CallerCache,
    viewName: string | undefined,
    tool: ToolSubject,
    standing: ToolStanding,
    args: Record<string, unknown> | undefined,
  ): Verdict {
    const policy = this.#policy;
    const verdict = standing.verdict as Verdict;
    if (policy === undefined) return verdict;
    if (!standing.outcomes.some((o) => o.state === 'undecided')) return verdict;
    const input = {
      principal: cache.principal,
      tool: toolInput(tool),
      view: viewName ?? '',
      args: args ?? {},
    };
    return combine(
      policy,
      standing.outcomes.map((o) =>
        o.state === 'undecided' ? { rule: o.rule, ...o.rule.evaluate(input) } : o,
      ),
    );
  }

  /**
   * Every rule's part in the caller's access to `tool` (with `args`, as a call would be decided;
   * without, as the listing is): for `mcp-proxy explain` and the console.
   */
  explain(
    principal: Principal,
    viewName: string | undefined,
    tool: ToolSubject,
    args?: Record<string, unknown>,
  ): Explanation {
    const view = this.view(viewName);
    const inView = view === undefined || view.includesTool(tool);
    const policy = this.#policy;
    const finalArgs = args && view ? view.argumentsFor(tool.name, args) : args;
    const input = {
      principal: principalInput(principal),
      tool: toolInput(tool),
      view: viewName ?? '',
      ...(finalArgs !== undefined ? { args: finalArgs } : {}),
    };
    const outcomes = (policy?.rules ?? [])
      .filter((rule) => rule.appliesTo(tool.name))
      .map((rule) => ({ rule, ...rule.evaluate(input) }));
    const verdict: Verdict = !inView
      ? { allowed: false, by: 'view', reason: `the view "${viewName}" does not include it` }
      : policy
        ? combine(policy, outcomes)
        : { allowed: true, by: 'no policy' };
    return {
      tool: tool.name,
      listedAs: view ? view.exposedName(tool.name) : tool.name,
      view: viewName ?? null,
      inView,
      rules: outcomes.map(({ rule, state, error }) => ({
        name: rule.name,
        effect: rule.effect,
        expression: rule.expression,
        state,
        ...(error !== undefined ? { error } : {}),
      })),
      ...(policy ? { default: policy.default } : {}),
      decided: args === undefined ? 'listing' : 'call',
      allowed: verdict.allowed,
      by: verdict.by,
      ...(verdict.allowed ? {} : { reason: verdict.reason }),
    };
  }
}

/** What {@link AccessControl.explain} says. */
export interface Explanation {
  tool: string;
  listedAs: string;
  view: string | null;
  inView: boolean;
  rules: { name: string; effect: string; expression: string; state: string; error?: string }[];
  default?: 'allow' | 'deny';
  decided: 'listing' | 'call';
  allowed: boolean;
  by: string;
  reason?: string;
}
