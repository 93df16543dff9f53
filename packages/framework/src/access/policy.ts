/**
 * Policy: rules over the caller and the tool, written in CEL (`@marcbachmann/cel-js`), that
 * decide whether a principal may see and call a tool — and, with the call's actual arguments,
 * whether this particular call may run.
 *
 * A rule reads `principal` (`id`, `kind`, `subject`, `client`, `scopes`, `groups`, `claims`),
 * `tool` (`name`, `plugin`, `tags`), `view` (the view's name, `""` for the whole catalog) and
 * `args` (the call's arguments). The decision, independent of the rules' order:
 *
 * 1. a `deny` rule that holds denies (it names itself in the message);
 * 2. else an `allow` or `approve` rule that holds allows, or else the policy's `default` decides;
 * 3. an allowed call that an `approve` rule holds for runs only with an approval of exactly that
 *    call (`approvals/`): the `approver` of the rule (an operator over the client, when several
 *    hold) within the shortest `approval_ttl`.
 *
 * A rule that cannot be evaluated (a claim the token lacks, a type mismatch) is false for
 * `allow`, true for `deny`, and for `approve` asks for an approval without allowing anything:
 * it fails closed, and never throws at the caller.
 *
 * Listing (no arguments yet): a rule that reads `args` is undecided unless the rest of it
 * already decides (CEL's `&&`/`||` absorb the unknown side: `"ops" in principal.groups && …` is
 * false for a non-member). An undecided `allow` lists the tool, an undecided `deny` does not
 * hide it: the list shows what some call may reach, and the call itself is decided with its
 * arguments. For a tool no argument rule is about, listing and calling agree exactly.
 *
 * @module
 */
import type { Environment } from '@marcbachmann/cel-js';
import canonicalize from 'canonicalize';
import type { ApproverKind } from '../approvals/types.ts';
import type { Principal } from '../contract/principal.ts';
import { lazyRequire, nodeCrypto } from '../lazy.ts';
import { namesMatcher } from './globs.ts';
import {
  DEFAULT_APPROVAL_TTL_SECONDS,
  type PolicySettings,
  type RuleSettings,
} from './settings.ts';
import { type ToolSubject, tagsOf } from './views.ts';

const cel = lazyRequire<typeof import('@marcbachmann/cel-js')>('@marcbachmann/cel-js');

/** A rule that did not compile: start-up fails naming it; a reload changes nothing. */
export class PolicyError extends Error {
  readonly code = 'POLICY_INVALID';
  constructor(readonly issues: readonly string[]) {
    super(
      issues.length === 1
        ? `invalid policy: ${issues[0]}`
        : `invalid policy (${issues.length} problems):\n  ${issues.join('\n  ')}`,
    );
    this.name = 'PolicyError';
  }
}

/** What a rule came to for one caller and tool: held, did not, undecided, or failed. */
export type RuleState = 'true' | 'false' | 'undecided' | 'error';

/** What an allowed call needs before it runs, when an `approve` rule holds for it. */
export interface ApprovalNeed {
  /** The rule that asks (the first of those asking the strictest approver). */
  readonly rule: string;
  readonly approver: ApproverKind;
  /** How long the approval is waited for, and its grant lives. */
  readonly ttlMs: number;
  /** The policy's version ({@link CompiledPolicy.version}): grants are bound to it. */
  readonly policyVersion: string;
}

export interface CompiledRule {
  readonly name: string;
  readonly effect: 'allow' | 'deny' | 'approve';
  /** `approve` rules: who approves, and for how long. */
  readonly approval?: { readonly approver: ApproverKind; readonly ttlMs: number };
  readonly expression: string;
  readonly description?: string;
  /** Whether the rule reads `args`: only then can it differ between two calls of one tool. */
  readonly readsArguments: boolean;
  /** Whether the rule reads `tool`: if neither, one outcome serves a caller's every tool. */
  readonly readsTool: boolean;
  appliesTo(tool: string): boolean;
  evaluate(input: RuleInput): { state: RuleState; error?: string };
}

/** The variables a rule sees; `args` absent while listing, `tool` while trying a rule per caller. */
export interface RuleInput {
  principal: Record<string, unknown>;
  tool?: Record<string, unknown>;
  view: string;
  args?: Record<string, unknown>;
}

const VARIABLES = ['principal', 'tool', 'args'] as const;

function environments(): {
  full: Environment;
  withoutArgs: Environment;
  withoutTool: Environment;
} {
  const { Environment } = cel();
  const make = (names: readonly string[]) => {
    let env = new Environment({ homogeneousAggregateLiterals: false });
    for (const name of names) env = env.registerVariable(name, 'map');
    return env.registerVariable('view', 'string');
  };
  return {
    full: make(VARIABLES),
    withoutArgs: make(['principal', 'tool']),
    withoutTool: make(['principal', 'args']),
  };
}

const firstLine = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0];

// The outcomes without detail are shared: a call evaluating its argument rules allocates none.
const HELD = Object.freeze({ state: 'true' as const });
const NOT_HELD = Object.freeze({ state: 'false' as const });
const UNDECIDED = Object.freeze({ state: 'undecided' as const });

function compileRule(
  rule: RuleSettings,
  envs: ReturnType<typeof environments>,
): CompiledRule | string {
  const effect = rule.allow !== undefined ? 'allow' : rule.deny !== undefined ? 'deny' : 'approve';
  const expression = (rule.allow ?? rule.deny ?? rule.approve) as string;
  let program: ReturnType<Environment['parse']>;
  try {
    program = envs.full.parse(expression);
  } catch (error) {
    return `rule "${rule.name}": ${firstLine(error)}`;
  }
  const checked = program.check();
  if (!checked.valid) return `rule "${rule.name}": ${firstLine(checked.error)}`;
  if (checked.type !== 'bool' && checked.type !== 'dyn') {
    return `rule "${rule.name}": the expression is a ${checked.type}, not a bool`;
  }
  const readsArguments = !envs.withoutArgs.check(expression).valid;
  const readsTool = !envs.withoutTool.check(expression).valid;
  const applies = rule.tools === undefined ? () => true : namesMatcher(rule.tools);
  return {
    name: rule.name,
    effect,
    expression,
    ...(effect === 'approve'
      ? {
          approval: {
            approver: rule.approver ?? 'client',
            ttlMs: (rule.approval_ttl ?? DEFAULT_APPROVAL_TTL_SECONDS) * 1000,
          },
        }
      : {}),
    ...(rule.description !== undefined ? { description: rule.description } : {}),
    readsArguments,
    readsTool,
    appliesTo: applies,
    evaluate(input) {
      try {
        const value = program(input as unknown as Record<string, unknown>);
        if (typeof value === 'boolean') return value ? HELD : NOT_HELD;
        return { state: 'error', error: `the expression gave ${typeof value}, not a bool` };
      } catch (error) {
        const message = firstLine(error);
        if (input.args === undefined && readsArguments && /Unknown variable: args/.test(message)) {
          return UNDECIDED;
        }
        return { state: 'error', error: message };
      }
    },
  };
}

export interface CompiledPolicy {
  readonly default: 'allow' | 'deny';
  readonly rules: readonly CompiledRule[];
  /** A text of the settings: equal texts, equal policies (a reload that changes nothing). */
  readonly fingerprint: string;
  /**
   * SHA-256 (hex) of the settings' RFC 8785 canonical JSON: grants are bound to it, so a reload
   * that changes the policy voids the approvals given under the old one.
   */
  readonly version: string;
}

/** @throws PolicyError naming every rule that does not compile. */
export function compilePolicy(settings: PolicySettings): CompiledPolicy {
  const envs = environments();
  const problems: string[] = [];
  const rules: CompiledRule[] = [];
  for (const rule of settings.rules) {
    const compiled = compileRule(rule, envs);
    if (typeof compiled === 'string') problems.push(compiled);
    else rules.push(compiled);
  }
  if (problems.length > 0) throw new PolicyError(problems);
  const version = nodeCrypto()
    .createHash('sha256')
    .update(canonicalize(settings) ?? '')
    .digest('hex');
  return { default: settings.default, rules, fingerprint: JSON.stringify(settings), version };
}

/** The CEL value of a principal: every field present, so a rule never trips on a missing one. */
export function principalInput(principal: Principal): Record<string, unknown> {
  return {
    id: principal.id,
    kind: principal.kind,
    subject: principal.subject ?? '',
    client: principal.client ?? '',
    scopes: [...principal.scopes],
    groups: [...principal.groups],
    claims: principal.claims,
  };
}

/** A tool's CEL value per listing of it (a changed tool is a new definition object). */
const toolInputs = new WeakMap<object, Record<string, unknown>>();

export function toolInput(tool: ToolSubject): Record<string, unknown> {
  let input = toolInputs.get(tool.definition);
  if (input === undefined) {
    input = { name: tool.name, plugin: tool.plugin, tags: tagsOf(tool.definition) };
    toolInputs.set(tool.definition, input);
  }
  return input;
}

/** One rule's part in a decision. */
export interface RuleOutcome {
  readonly rule: CompiledRule;
  readonly state: RuleState;
  readonly error?: string;
}

export type Verdict =
  | { allowed: true; by: string; approval?: ApprovalNeed }
  | { allowed: false; by: string; reason: string };

/**
 * Combines the outcomes of the rules about one tool. `listing`: undecided rules count as
 * "may allow" / "may not deny" (see the module comment); else they must not occur.
 */
export function combine(policy: CompiledPolicy, outcomes: readonly RuleOutcome[]): Verdict {
  for (const { rule, state, error } of outcomes) {
    if (rule.effect !== 'deny') continue;
    if (state === 'true') return { allowed: false, by: rule.name, reason: ruleReason(rule) };
    if (state === 'error') {
      return {
        allowed: false,
        by: rule.name,
        reason: `rule "${rule.name}" could not be evaluated (${error}), so it denies`,
      };
    }
  }
  const approval = approvalNeed(policy, outcomes);
  const verdict = allowing(policy, outcomes);
  return verdict.allowed && approval ? { ...verdict, approval } : verdict;
}

/** Step 2: what allows the call (an `allow` rule, an `approve` rule, the default), if anything. */
function allowing(policy: CompiledPolicy, outcomes: readonly RuleOutcome[]): Verdict {
  for (const effect of ['allow', 'approve'] as const) {
    for (const { rule, state } of outcomes) {
      if (rule.effect === effect && (state === 'true' || state === 'undecided')) {
        return { allowed: true, by: rule.name };
      }
    }
  }
  if (policy.default === 'allow') return { allowed: true, by: 'default' };
  return {
    allowed: false,
    by: 'default',
    reason: 'no policy rule allows it (the policy default is deny)',
  };
}

/** Step 3: the approval the `approve` rules that hold (or fail) ask for; an operator wins. */
function approvalNeed(
  policy: CompiledPolicy,
  outcomes: readonly RuleOutcome[],
): ApprovalNeed | undefined {
  let need: ApprovalNeed | undefined;
  for (const { rule, state } of outcomes) {
    if (rule.approval === undefined || state === 'false') continue;
    const { approver, ttlMs } = rule.approval;
    if (need === undefined || (approver === 'operator' && need.approver === 'client')) {
      need = {
        rule: rule.name,
        approver,
        ttlMs: Math.min(ttlMs, need?.ttlMs ?? ttlMs),
        policyVersion: policy.version,
      };
    } else if (ttlMs < need.ttlMs) need = { ...need, ttlMs };
  }
  return need;
}

function ruleReason(rule: CompiledRule): string {
  return `denied by policy rule "${rule.name}"${rule.description ? `: ${rule.description}` : ''}`;
}
