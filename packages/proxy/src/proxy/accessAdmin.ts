/**
 * The management side of views and policy (the framework's `server.access`): re-reading
 * `views:`, `policy:` and `api_keys:` from the config file without a restart, explaining why a principal may
 * or may not see and call a tool, and the principals this proxy served lately. The operations
 * `reload_policy`, `explain` and `principals` (`operations/table.ts`) and the console's Access
 * page run through it.
 *
 * A reload that fails (the file does not parse, a key is wrong, a rule does not compile)
 * changes nothing: the old views, policy and API keys keep deciding, and the error names what
 * to fix. API keys are reloaded only where they were on at start: turning key authentication on
 * or off changes who may reach the endpoint at all, which the start-up checks decide.
 *
 * @module
 */
import {
  type AccessControl,
  type AccessSettings,
  type ApiKey,
  type ApiKeys,
  type Catalog,
  ConfigError,
  type Explanation,
  errorMessage,
  type KeyChanges,
  type Limiter,
  PolicyError,
  type Principal,
  type PrincipalUsage,
  parseAccessSettings,
  parseApiKeys,
  readConfig,
  type SeenPrincipal,
} from '@mcpbox/framework';
import { principalFor } from './principalQuery.ts';

export interface AccessAdminOptions {
  access: AccessControl;
  catalog: Catalog;
  /** The file `views:` and `policy:` are re-read from; none: reloading says how to get one. */
  configFile: string | undefined;
  /** For `${VAR}` in the file. */
  env: Readonly<Record<string, string | undefined>>;
  /** The server's limits (`limits:`), for where each principal stands; none when not set. */
  limits?: Limiter;
  /** The endpoint's API keys, when `api_keys` turned them on at start: reloaded with the policy. */
  apiKeys?: ApiKeys;
}

/** One principal's budgets in a few words: `rate 3/60 per minute · daily 10/5000`. */
export function usageText(usage: PrincipalUsage): string {
  if (usage.exempt) return 'exempt';
  return usage.budgets
    .map((b) => {
      const scope = b.scope === 'principal' ? '' : ` (${b.scope})`;
      const per = b.period ? ` per ${b.period}` : '';
      return `${b.limit}${scope} ${b.used}/${b.max}${per}`;
    })
    .join(' · ');
}

/** What a reload did: counts and the names of what changed, or why nothing did. */
export type PolicyReload =
  | {
      ok: true;
      file: string;
      views: number;
      rules: number;
      changed: { views: NameChanges; rules: NameChanges; keys?: KeyChanges };
      /** Why `api_keys` in the file were not taken (the server started without keys). */
      keysNote?: string;
    }
  | { ok: false; error: string };

const KEYS_AT_START =
  'api_keys were not reloaded: this server started without API keys (or serves stdio, which takes none); restart it to turn them on';

export interface NameChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

/** Who to explain for, and what: the arguments of the `explain` operation. */
export interface ExplainQuery {
  principal: string;
  groups?: string[];
  claims?: Record<string, unknown>;
  scopes?: string[];
  tool?: string;
  view?: string;
  args?: Record<string, unknown>;
}

export type ExplainAnswer =
  | {
      ok: true;
      /** Claim values stay here: they may be personal, and the answer may be read widely. */
      principal: {
        id: string;
        kind: Principal['kind'];
        groups: string[];
        scopes: string[];
        claimKeys: string[];
      };
      /** Whether the principal's claims came from its last request (`principals`). */
      seen: boolean;
      view: string | null;
      /** With a tool: every rule's part in its decision. */
      explanation?: Explanation;
      /** Without a tool: what the principal's `tools/list` shows through the view. */
      tools?: string[];
    }
  | { ok: false; error: string };

/** What changed between two mappings of named settings. */
function nameChanges(before: Record<string, unknown>, after: Record<string, unknown>): NameChanges {
  const same = (name: string) => JSON.stringify(before[name]) === JSON.stringify(after[name]);
  return {
    added: Object.keys(after).filter((name) => !(name in before)),
    removed: Object.keys(before).filter((name) => !(name in after)),
    changed: Object.keys(after).filter((name) => name in before && !same(name)),
  };
}

const rulesByName = (settings: AccessSettings) =>
  Object.fromEntries((settings.policy?.rules ?? []).map((rule) => [rule.name, rule]));

export class AccessAdmin {
  readonly #options: AccessAdminOptions;
  readonly #reloadListeners = new Set<(reload: PolicyReload, fromCluster: boolean) => void>();

  constructor(options: AccessAdminOptions) {
    this.#options = options;
  }

  get access(): AccessControl {
    return this.#options.access;
  }

  /** Where each principal stands against its limits, as text; undefined without limits. */
  async usage(principals: readonly string[]): Promise<Map<string, string> | undefined> {
    const limits = this.#options.limits;
    if (limits === undefined) return undefined;
    const texts = await Promise.all(
      principals.map(async (id) => [id, usageText(await limits.usage(id))] as const),
    );
    return new Map(texts);
  }

  /** Told of every reload that took effect here (cluster mode shares it). */
  onReload(listener: (reload: PolicyReload, fromCluster: boolean) => void): () => void {
    this.#reloadListeners.add(listener);
    return () => this.#reloadListeners.delete(listener);
  }

  /** Re-reads `views:`, `policy:` and `api_keys:`; nothing changes unless all of it is good. */
  reload(origin: { fromCluster?: boolean } = {}): PolicyReload {
    const { access, configFile, env, catalog, apiKeys } = this.#options;
    if (configFile === undefined) {
      return {
        ok: false,
        error:
          'mcp-proxy was started without a config file (--config): there is no policy to re-read',
      };
    }
    const read = readConfig({ file: configFile, env });
    if (!read.ok) return { ok: false, error: new ConfigError(read.errors).message };
    const before = access.settings;
    let settings: AccessSettings;
    let keys: readonly ApiKey[] | undefined;
    try {
      settings = parseAccessSettings(read.config);
      keys = apiKeys && parseApiKeys(read.config.api_keys);
      access.update(settings);
    } catch (error) {
      if (error instanceof ConfigError || error instanceof PolicyError) {
        return { ok: false, error: `${error.message} (nothing changed)` };
      }
      return { ok: false, error: errorMessage(error) };
    }
    const keyChanges = keys && apiKeys?.replace(keys);
    // What each client may see can have changed: every session is told to list again.
    for (const kind of ['tools', 'resources', 'prompts'] as const) catalog.touched(kind);
    const keysIgnored = apiKeys === undefined && (read.config.api_keys?.length ?? 0) > 0;
    const reload: PolicyReload = {
      ok: true,
      file: configFile,
      views: Object.keys(settings.views).length,
      rules: settings.policy?.rules.length ?? 0,
      changed: {
        views: nameChanges(before.views, settings.views),
        rules: nameChanges(rulesByName(before), rulesByName(settings)),
        ...(keyChanges && { keys: keyChanges }),
      },
      ...(keysIgnored && { keysNote: KEYS_AT_START }),
    };
    for (const listener of this.#reloadListeners) listener(reload, origin.fromCluster === true);
    return reload;
  }

  /** The principals served lately, most recent first. */
  principals(): SeenPrincipal[] {
    return this.#options.access.seen.list();
  }

  /** Why `query.principal` may or may not reach `query.tool`; without a tool, what it lists. */
  explain(query: ExplainQuery): ExplainAnswer {
    const { access, catalog } = this.#options;
    const viewName = query.view || undefined;
    const view = access.view(viewName);
    if (viewName !== undefined && view === undefined) {
      const known = access.viewNames();
      return {
        ok: false,
        error: `no view "${viewName}"; configured views: ${known.join(', ') || '(none)'}`,
      };
    }
    const { principal, seen } = principalFor(query, access.seen);
    const answer = {
      ok: true as const,
      principal: {
        id: principal.id,
        kind: principal.kind,
        groups: [...principal.groups],
        scopes: [...principal.scopes],
        claimKeys: Object.keys(principal.claims).sort(),
      },
      seen,
      view: viewName ?? null,
    };
    if (query.tool === undefined || query.tool === '') {
      const lookup = (name: string) => catalog.getTool(name);
      const tools = access.listTools(principal, viewName, catalog.listTools(), lookup);
      return { ...answer, tools: tools.map((tool) => tool.name) };
    }
    const subject =
      catalog.getTool(view?.catalogName(query.tool) ?? query.tool) ?? catalog.getTool(query.tool);
    if (subject === undefined) {
      return { ok: false, error: `no tool "${query.tool}" is loaded (mcp-proxy tools lists them)` };
    }
    return { ...answer, explanation: access.explain(principal, viewName, subject, query.args) };
  }
}
