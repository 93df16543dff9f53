/**
 * The `views:` and `policy:` sections of the configuration, validated with zod (built on the
 * first parse: a server without them does not pay for the schemas). Every message names the
 * view or rule it is about.
 *
 * ```yaml
 * views:
 *   support:                      # served at /mcp/support (and `--view support` over stdio)
 *     plugins: [tickets]          # all of a plugin's tools, resources and prompts
 *     tools: ["kb__search*"]      # tool names or globs
 *     tags: [support]             # tools whose _meta["io.mcpbox/tags"] has one of these
 *     rename: { kb__search_articles: search_kb }
 *     descriptions: { search_kb: "Search the support knowledge base" }
 *     fixed_arguments: { search_kb: { space: support } }
 * policy:
 *   default: deny                 # when no rule allows (default: deny once a policy is written)
 *   rules:
 *     - name: support-team
 *       allow: '"support" in principal.groups'
 *     - name: own-projects
 *       tools: ["warehouse__*"]
 *       deny: '!(args.project in principal.claims.projects)'
 *     - name: big-refunds         # allowed, but a human approves each such call, once
 *       tools: ["billing__refund"]
 *       approve: 'args.amount > 100'
 *       approver: operator        # or client (the caller's user, by elicitation); default client
 *       approval_ttl: 300         # seconds a call waits and a grant lives; default 300
 * ```
 *
 * @module
 */
import { z } from 'zod';
import { ConfigError } from '../errors.ts';

export interface ViewSettings {
  description?: string;
  plugins?: string[];
  tools?: string[];
  tags?: string[];
  resources?: string[];
  prompts?: string[];
  /** Catalog name → the name this view lists and calls it by. */
  rename?: Record<string, string>;
  /** Catalog name → the description this view shows. */
  descriptions?: Record<string, string>;
  /** Catalog name → arguments set on every call through this view, hidden from its schema. */
  fixed_arguments?: Record<string, Record<string, unknown>>;
}

export interface RuleSettings {
  name: string;
  description?: string;
  /** Tool names or globs the rule is about; every tool when absent. */
  tools?: string[];
  allow?: string;
  deny?: string;
  /** Allows the call only with an approval of exactly that call (see `approvals/`). */
  approve?: string;
  /** Who approves (`approve` rules): the caller's client (default) or an operator. */
  approver?: 'client' | 'operator';
  /** Seconds an approval is waited for and a grant lives (`approve` rules); default 300. */
  approval_ttl?: number;
}

/** How long an approval is waited for and a grant lives, unless a rule says. */
export const DEFAULT_APPROVAL_TTL_SECONDS = 300;

export interface PolicySettings {
  default: 'allow' | 'deny';
  rules: RuleSettings[];
}

export interface AccessSettings {
  views: Record<string, ViewSettings>;
  /** Undefined: no policy, every caller may call every tool of the view it came through. */
  policy: PolicySettings | undefined;
}

/** A view's name is a path segment: `/mcp/<name>`. */
export const VIEW_NAME = /^[A-Za-z0-9][\w.-]{0,63}$/;

function buildSchemas() {
  const names = z.array(z.string().min(1), { error: 'expected a list of names or globs' });
  const strings = z.record(z.string(), z.string(), {
    error: 'expected a mapping of names to text',
  });
  const view = z
    .object(
      {
        description: z.string().optional(),
        plugins: names.optional(),
        tools: names.optional(),
        tags: names.optional(),
        resources: names.optional(),
        prompts: names.optional(),
        rename: strings.optional(),
        descriptions: strings.optional(),
        fixed_arguments: z
          .record(z.string(), z.record(z.string(), z.unknown()), {
            error: 'expected a mapping of tool names to argument mappings',
          })
          .optional(),
      },
      {
        error: (issue) =>
          issue.code === 'unrecognized_keys'
            ? `unknown ${issue.keys.join(', ')}: expected plugins, tools, tags, resources, prompts, rename, descriptions, fixed_arguments, description`
            : 'expected a mapping of view settings',
      },
    )
    .strict();
  const rule = z
    .object(
      {
        name: z.string({ error: 'every rule needs a name' }).min(1),
        description: z.string().optional(),
        tools: names.optional(),
        allow: z.string().min(1).optional(),
        deny: z.string().min(1).optional(),
        approve: z.string().min(1).optional(),
        approver: z
          .enum(['client', 'operator'], { error: 'expected client or operator' })
          .optional(),
        approval_ttl: z
          .number({ error: 'expected seconds (a positive number)' })
          .positive({ error: 'expected seconds (a positive number)' })
          .max(86_400, { error: 'at most 86400 seconds (a day)' })
          .optional(),
      },
      {
        error: (issue) =>
          issue.code === 'unrecognized_keys'
            ? `unknown ${issue.keys.join(', ')}: expected name, description, tools, allow, deny or approve (with approver, approval_ttl)`
            : 'expected a rule: a mapping with name and allow, deny or approve',
      },
    )
    .strict()
    .refine((r) => [r.allow, r.deny, r.approve].filter((e) => e !== undefined).length === 1, {
      error: 'a rule has exactly one of allow, deny or approve (a CEL expression)',
    })
    .refine((r) => r.approve !== undefined || (r.approver ?? r.approval_ttl) === undefined, {
      error: 'approver and approval_ttl belong to an approve rule',
    });
  const policy = z
    .object(
      {
        default: z.enum(['allow', 'deny'], { error: 'expected allow or deny' }).default('deny'),
        rules: z.array(rule, { error: 'expected a list of rules' }).default([]),
      },
      { error: 'expected a mapping with default and rules' },
    )
    .strict();
  return {
    views: z.record(
      z.string(),
      z.preprocess((v) => v ?? {}, view),
      {
        error: 'expected a mapping of view names to settings',
      },
    ),
    policy,
  };
}

let schemas: ReturnType<typeof buildSchemas> | undefined;

function issuesOf(section: string, error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const where = [section, ...issue.path.map(String)].join('.');
    return `${where}: ${issue.message}`;
  });
}

/**
 * Reads `views` and `policy` as written (undefined when absent).
 *
 * @throws ConfigError naming each bad key (`views.support.tools: expected a list …`), a view
 *   name that cannot be a path segment, or two rules of one name.
 */
export function parseAccessSettings(written: {
  views?: unknown;
  policy?: unknown;
}): AccessSettings {
  schemas ??= buildSchemas();
  const problems: string[] = [];
  let views: Record<string, ViewSettings> = {};
  if (written.views !== undefined && written.views !== null) {
    const parsed = schemas.views.safeParse(written.views);
    if (parsed.success) views = parsed.data as Record<string, ViewSettings>;
    else problems.push(...issuesOf('views', parsed.error));
    for (const name of Object.keys(views)) {
      if (!VIEW_NAME.test(name)) {
        problems.push(
          `views.${name}: a view's name is its path (/mcp/<name>): letters, digits, _ . - (at most 64)`,
        );
      }
    }
  }
  let policy: PolicySettings | undefined;
  if (written.policy !== undefined && written.policy !== null) {
    const parsed = schemas.policy.safeParse(written.policy);
    if (parsed.success) policy = parsed.data as PolicySettings;
    else problems.push(...issuesOf('policy', parsed.error));
    const seen = new Set<string>();
    for (const rule of policy?.rules ?? []) {
      if (seen.has(rule.name)) problems.push(`policy.rules: two rules are named "${rule.name}"`);
      seen.add(rule.name);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { views, policy };
}
