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
  type ApprovalNeed,
  type CompiledPolicy,
  type CompiledRule,
  combine,
  compilePolicy,
  principalInput,
  type RuleInput,
  type RuleOutcome,
  type RuleState,
  toolInput,
  type Verdict,
} from './policy.ts';
import { PrincipalsSeen } from './seen.ts';
import type { AccessSettings } from './settings.ts';
import { type ToolSubject, View } from './views.ts';

export { unknownViewMessage } from './views.ts';

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
      /** An `approve` rule holds: the call runs only with an approval of exactly this call. */
      approval?: ApprovalNeed;
    }
  | { admitted: false; notInView: true }
  | { admitted: false; notInView: false; rule: string; reason: string };

/**
 * The outcome of a rule for a caller whatever the tool, kept per caller; undefined when it
 * depends on the tool. A rule that reads `tool` is tried without it first: CEL's `&&`/`||`
 * absorb the missing side (`"ops" in principal.groups && tool.plugin == "db"` is false for a
 * non-member), so most rules are decided once per caller rather than once per tool.
 */
function toolless(cache: CallerCache, rule: CompiledRule): Outcome | undefined {
  if (cache.toolless.has(rule)) return cache.toolless.get(rule);
  const outcome = rule.evaluate({ principal: cache.principal, view: cache.view });
  const decided = !(
    outcome.state === 'error' && /Unknown variable: tool/.test(outcome.error ?? '')
  );
  cache.toolless.set(rule, decided ? outcome : undefined);
  return decided ? outcome : undefined;
}

type Outcome = { state: RuleState; error?: string };

const NOT_IN_VIEW: ToolStanding = { inView: false, outcomes: [], verdict: undefined };
const ALLOWED: Verdict = { allowed: true, by: 'no policy' };
const NO_POLICY: ToolStanding = { inView: true, outcomes: [], verdict: ALLOWED };

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
  /** Outcomes of the rules that read neither `tool` nor `args`: the same for every tool. */
  readonly toolless: Map<CompiledRule, Outcome | undefined>;
  /** Standings shared by the tools with one set of rules, all decided per caller. */
  readonly byRules: Map<readonly CompiledRule[], ToolStanding>;
  /** The view's name as rules read it (`""` for the whole catalog). */
  readonly view: string;
  listing?: { source: readonly Tool[]; tools: Tool[] };
}

export class AccessControl {
  #views = new Map<string, View>();
  #policy: CompiledPolicy | undefined;
  #settings: AccessSettings = { views: {}, policy: undefined };
  #callers = new Map<string, CallerCache>();
  /** Tool name → the rules about it (their `tools:` patterns match it). */
  readonly #applicable = new Map<string, readonly CompiledRule[]>();
  /** The rule lists of #applicable, one per set of rules (by their names). */
  readonly #ruleSets = new Map<string, readonly CompiledRule[]>();
  /** Whom this server served lately (fed by sessions and the dispatcher, policy or not). */
  readonly seen = new PrincipalsSeen();

  constructor(settings?: AccessSettings) {
    if (settings) this.update(settings);
  }

  /** Whether anything is configured: without views or policy every check is skipped. */
  get active(): boolean {
    return this.#views.size > 0 || this.#policy !== undefined;
  }

  /**
   * Whether a request through `viewName` needs deciding: always for a named view (one a reload
   * removed selects nothing), else when anything is configured.
   */
  decides(viewName: string | undefined): boolean {
    return viewName !== undefined || this.active;
  }

  /**
   * Whether `viewName` selects what `test` asks of a view: everything without a view; nothing
   * through a view that no longer exists (a stdio connection outliving a reload fails closed).
   */
  selects(viewName: string | undefined, test: (view: View) => boolean): boolean {
    if (viewName === undefined) return true;
    const view = this.#views.get(viewName);
    return view !== undefined && test(view);
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
    this.#applicable.clear();
    this.#ruleSets.clear();
  }

  /** The rules about a tool, by its name: the same for every caller until a change. */
  #rulesAbout(policy: CompiledPolicy, name: string): readonly CompiledRule[] {
    let rules = this.#applicable.get(name);
    if (rules === undefined) {
      const about = policy.rules.filter((rule) => rule.appliesTo(name));
      // One list per set of rules, so tools alike share a caller's standing (#standing).
      const key = about.map((rule) => rule.name).join('\n');
      rules = this.#ruleSets.get(key) ?? about;
      this.#ruleSets.set(key, rules);
      this.#applicable.set(name, rules);
    }
    return rules;
  }

  /** Every rule's outcome for the caller and the tool, before arguments are known. */
  #toolOutcomes(
    cache: CallerCache,
    viewName: string | undefined,
    tool: ToolSubject,
    rules: readonly CompiledRule[],
  ): RuleOutcome[] {
    let input: RuleInput | undefined;
    const inputFor = () => {
      input ??= { principal: cache.principal, tool: toolInput(tool), view: viewName ?? '' };
      return input;
    };
    return rules.map((rule) => {
      const once = rule.readsArguments && rule.readsTool ? undefined : toolless(cache, rule);
      return { rule, ...(once ?? rule.evaluate(inputFor())) };
    });
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
    cache = {
      principal: principalInput(principal),
      standings: new Map(),
      toolless: new Map(),
      byRules: new Map(),
      view: view ?? '',
    };
    this.#callers.set(key, cache);
    if (this.#callers.size > MAX_CALLERS) {
      this.#callers.delete(this.#callers.keys().next().value as string);
    }
    return cache;
  }

  #standing(cache: CallerCache, viewName: string | undefined, tool: ToolSubject): ToolStanding {
    let standing = cache.standings.get(tool.name);
    if (standing) return standing;
    const inView = this.selects(viewName, (view) => view.includesTool(tool));
    const policy = this.#policy;
    if (!inView) standing = NOT_IN_VIEW;
    else if (policy === undefined) standing = NO_POLICY;
    else {
      const rules = this.#rulesAbout(policy, tool.name);
      // Tools whose rules are all decided per caller share one standing: a listing of
      // thousands of tools evaluates and allocates per set of rules, not per tool.
      standing = cache.byRules.get(rules);
      if (standing === undefined) {
        const outcomes = this.#toolOutcomes(cache, viewName, tool, rules);
        standing = { inView, outcomes, verdict: combine(policy, outcomes) };
        if (rules.every((rule) => cache.toolless.get(rule) !== undefined)) {
          cache.byRules.set(rules, standing);
        }
      }
    }
    cache.standings.set(tool.name, standing);
    return standing;
  }

  /** Whether the caller may see `tool` (and so call it, unless an argument rule says no). */
  mayList(principal: Principal, view: string | undefined, tool: ToolSubject): boolean {
    if (!this.decides(view)) return true;
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
    if (!this.decides(viewName)) return source as Tool[];
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
    if (!this.decides(viewName)) return { admitted: true, args };
    const cache = this.#caller(principal, viewName);
    const standing = this.#standing(cache, viewName, tool);
    if (!standing.inView) return { admitted: false, notInView: true };
    const view = this.view(viewName);
    const finalArgs = view ? view.argumentsFor(tool.name, args) : args;
    const verdict = this.#callVerdict(cache, viewName, tool, standing, finalArgs);
    if (verdict.allowed) {
      const rule = this.#policy === undefined ? {} : { rule: verdict.by };
      const approval = verdict.approval ? { approval: verdict.approval } : {};
      return { admitted: true, args: finalArgs, ...rule, ...approval };
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
    const inView = this.selects(viewName, (v) => v.includesTool(tool));
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
      ...(verdict.allowed && verdict.approval
        ? { approval: { rule: verdict.approval.rule, approver: verdict.approval.approver } }
        : {}),
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
  /** Allowed only with an approval: the rule asking, and who approves. */
  approval?: { rule: string; approver: string };
}
