/**
 * The `limits:` section of the configuration, validated with zod (built on the first parse: a
 * server without limits does not pay for the schemas). Every message names the key to fix.
 *
 * ```yaml
 * limits:
 *   per_principal: { rate: 60/minute, concurrent: 4, daily: 5000 }
 *   tools:                         # the first rule matching a call applies
 *     - match: "warehouse__*"      # tool names or globs (or `plugin: warehouse`)
 *       rate: 10/minute            # this rule's own budget per principal, in calls
 *       cost: 5                    # each call spends 5 of the per-principal rate and daily budgets
 *   exempt: ["local:*"]            # principal ids (or globs) never limited
 * ```
 *
 * @module
 */
import { z } from 'zod';
import { ConfigError } from '../errors.ts';

/** The periods a rate is counted over, and their length in seconds. */
export const RATE_PERIODS = { second: 1, minute: 60, hour: 3600, day: 86_400 } as const;
export type RatePeriod = keyof typeof RATE_PERIODS;

/** `60/minute`: at most `max` per `period`. */
export interface Rate {
  max: number;
  period: RatePeriod;
}

/** Budgets of one principal: each absent one is unlimited. */
export interface Budgets {
  rate?: Rate;
  /** Calls running at once. */
  concurrent?: number;
  /** Per UTC calendar day. */
  daily?: number;
}

/** A rule for some tools: its own budgets per principal (in calls), and what a call costs. */
export interface ToolRule extends Budgets {
  /** Tool names or globs. */
  match?: string[];
  /** Plugin names: every tool of theirs. */
  plugin?: string[];
  /** What one call spends of the per-principal `rate` and `daily` budgets. Default 1. */
  cost: number;
  /** How messages and metrics name the rule: its `match`, else `plugin:<names>`. */
  label: string;
}

export interface LimitSettings {
  per_principal: Budgets;
  tools: ToolRule[];
  /** Principal ids or globs (`*` spans anything) that no limit applies to. */
  exempt: string[];
}

const RATE = /^\s*(\d+)\s*\/\s*(second|minute|hour|day)s?\s*$/;

function buildSchemas() {
  const count = (what: string) =>
    z
      .number({ error: `expected a whole number of ${what} (1 or more)` })
      .int()
      .min(1);
  const rate = z.string({ error: 'expected a rate like 60/minute' }).transform((text, ctx) => {
    const m = RATE.exec(text);
    if (!m || Number(m[1]) < 1) {
      ctx.addIssue({
        code: 'custom',
        message: `"${text}" is not a rate: write <count>/<second|minute|hour|day>, e.g. 60/minute`,
      });
      return z.NEVER;
    }
    return { max: Number(m[1]), period: m[2] as RatePeriod };
  });
  const budgetShape = {
    rate: rate.optional(),
    concurrent: count('calls').optional(),
    daily: count('calls').optional(),
  };
  const names = z
    .union([z.string().min(1), z.array(z.string().min(1))], {
      error: 'expected a name, a glob or a list of them',
    })
    .transform((v) => (typeof v === 'string' ? [v] : v));
  const unknownKeys = (expected: string, otherwise: string) => (issue: z.core.$ZodRawIssue) =>
    issue.code === 'unrecognized_keys'
      ? `unknown ${(issue as { keys: string[] }).keys.join(', ')}: expected ${expected}`
      : otherwise;
  const perPrincipal = z
    .object(budgetShape, {
      error: unknownKeys(
        'rate, concurrent, daily',
        'expected a mapping of rate, concurrent, daily',
      ),
    })
    .strict();
  const rule = z
    .object(
      {
        match: names.optional(),
        plugin: names.optional(),
        ...budgetShape,
        cost: z.number({ error: 'expected a whole number (0 or more)' }).int().min(0).default(1),
      },
      {
        error: unknownKeys(
          'match, plugin, rate, concurrent, daily, cost',
          'expected a rule: a mapping with match or plugin',
        ),
      },
    )
    .strict()
    .refine((r) => r.match !== undefined || r.plugin !== undefined, {
      error: 'a rule names its tools: match (tool names or globs) or plugin',
    });
  return z
    .object(
      {
        per_principal: perPrincipal.default({}),
        tools: z.array(rule, { error: 'expected a list of rules' }).default([]),
        exempt: names.default([]),
      },
      {
        error: unknownKeys(
          'per_principal, tools, exempt',
          'expected a mapping with per_principal, tools, exempt',
        ),
      },
    )
    .strict();
}

let schema: ReturnType<typeof buildSchemas> | undefined;

/**
 * Reads `limits` as written; undefined when absent (no limits: nothing is counted).
 *
 * @throws ConfigError naming each bad key (`limits.tools.0.rate: "ten/minute" is not a rate …`).
 */
export function parseLimitSettings(written: unknown): LimitSettings | undefined {
  if (written === undefined || written === null) return undefined;
  schema ??= buildSchemas();
  const parsed = schema.safeParse(written);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map(
        (issue) => `${['limits', ...issue.path.map(String)].join('.')}: ${issue.message}`,
      ),
    );
  }
  const { per_principal, tools, exempt } = parsed.data;
  return {
    per_principal,
    exempt,
    tools: tools.map((rule) => ({
      ...rule,
      label: rule.match?.join(',') ?? `plugin:${rule.plugin?.join(',')}`,
    })),
  };
}

/** `60 calls per minute`, as messages say it. */
export function describeRate(rate: Rate): string {
  return `${rate.max} call${rate.max === 1 ? '' : 's'} per ${rate.period}`;
}
