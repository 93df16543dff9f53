/**
 * Security and observability around a server: API keys and OAuth in front of the HTTP endpoint,
 * a gate for tools named in `gate.groups.*.tools`, pre-call validation, tool-call logs, the
 * audit trail and metrics. One interceptor wraps every tool call — plugin tools, mirrored upstream tools and
 * calls dispatched through `proxy__run` alike — so nothing skips the validator, the gate, the
 * log, the audit trail or the counters.
 *
 * Two steps, because the HTTP middleware must exist before the server and the interceptor needs
 * the server:
 *
 * @example
 * ```ts
 * const security = createSecurity(config, {
 *   toolLogger: new JsonlToolLogger({ dir: config.tool_log_dir, redaction: config }),
 * });
 * const server = createServer(config, security.httpOptions);
 * security.install(server);
 * health.addRoute('/metrics', security.metrics!.handler); // when config.metrics
 * security.setPreCallValidator((tool, params) => (JSON.stringify(params).length > 100_000 ? 'Input too large' : null));
 * ```
 *
 * @module
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { auditCall, openAuditLog, withAuditId } from './audit/calls.ts';
import type { AuditLog } from './audit/log.ts';
import type { AuditTrail } from './audit/trail.ts';
import { ApiKeys, apiKeyMiddleware, parseApiKeys } from './auth/apiKeys.ts';
import {
  type AppLike,
  createOAuth,
  type HttpMiddleware,
  type OAuth,
  type OAuthConfig,
} from './auth/oauth.ts';
import { principalKeyOf } from './auth/principal.ts';
import type { Principal } from './contract/principal.ts';
import { ConfigError } from './errors.ts';
import type { GateCallContext } from './gate/caller.ts';
import { createGate, type Gate } from './gate/gate.ts';
import type { ToolRegistrar } from './gate/tools.ts';
import { createLogger, type Logger } from './logging/index.ts';
import { ServerMetrics, type ToolCallOutcome } from './metrics/metrics.ts';
import { type RedactionSettings, Redactor } from './toollog/redact.ts';
import type { ToolLogger } from './toollog/types.ts';

/**
 * The configuration keys security reads (a subset of the framework's `Config`). The `redact_*`
 * keys apply to security's own log lines; give them to the tool logger too (`redaction: config`).
 */
export interface SecurityConfig extends OAuthConfig, RedactionSettings {
  gate?: Record<string, unknown> | undefined;
  metrics?: boolean;
  /** The audit trail's file (`audit/`); none by default. */
  audit_log?: string | undefined;
  /** The file the configuration came from; problems are reported as `<file>: <key>: …`. */
  config_file?: string | undefined;
}

/**
 * Decides whether a tool call may run: a reason (non-empty string) rejects it with an `isError`
 * result `Rejected: <reason>`; `null`/`undefined` lets it run. A validator that throws rejects
 * too: a broken safety check must not wave calls through.
 */
export type PreCallValidator = (
  tool: string,
  params: Record<string, unknown>,
) => string | null | undefined | Promise<string | null | undefined>;

/**
 * What a call's context says about the caller: the gate's view, what authentication put in
 * `authInfo` (the SDK's `AuthInfo`), and the principal the session decided from it.
 */
export type CallerContext = GateCallContext & {
  authInfo?: { clientId?: string; extra?: Record<string, unknown> };
  principal?: Principal;
  view?: string | undefined;
};

/** One tool call as the server's interceptors see it. */
export interface InterceptedCall {
  readonly tool: string;
  readonly plugin: string;
  args: Record<string, unknown> | undefined;
  readonly ctx: CallerContext;
  /** `code` for a call made from code (code mode), recorded in the tool-call log. */
  readonly via?: 'code';
  /** Why access control refused the call (it is logged and counted, not run). */
  readonly refusal?: string;
  /** The policy rule that allowed or refused the call, when a policy is configured. */
  readonly policyRule?: string;
}

/**
 * Who made a call, for the log: the principal's id (`sub:alice`, `key:ci-bot`, `local:root`);
 * nothing for an anonymous caller; never a token or key.
 */
export function principalOf(ctx: CallerContext): string | undefined {
  const principal = ctx.principal;
  if (principal !== undefined) return principal.kind === 'anonymous' ? undefined : principal.id;
  return principalKeyOf(ctx.authInfo ?? ctx.http?.authInfo);
}

/** What `install` needs from the server (`McpboxServer` has it). */
export interface SecurityTarget extends ToolRegistrar {
  addToolCallInterceptor(
    interceptor: (
      call: InterceptedCall,
      next: () => Promise<CallToolResult>,
    ) => Promise<CallToolResult>,
  ): () => void;
  readonly sessions?: { readonly size: number };
  readonly stats?: { readonly sessions_reaped: number; readonly sessions_refused: number };
  /** Where the server's other decisions (pins, approvals, operations) are recorded. */
  readonly audit?: AuditTrail;
}

export interface SecurityOptions {
  /** Default: a logger named `security`. */
  logger?: Logger;
  /** Where every call is logged (e.g. a `JsonlToolLogger`); none by default. */
  toolLogger?: ToolLogger;
  /** The pre-call validator; none by default. */
  validator?: PreCallValidator;
  /** Metrics; default: a `ServerMetrics` when `config.metrics` is true. */
  metrics?: ServerMetrics;
  /** Milliseconds since the epoch, for OAuth's cache and the gate. */
  clock?: () => number;
}

export interface Security {
  /** Spread into `createServer(config, …)`: API-key and OAuth middleware, the metadata route. */
  readonly httpOptions: {
    httpMiddleware?: HttpMiddleware[];
    configureApp?: (app: AppLike) => void;
  };
  readonly oauth: OAuth | undefined;
  /**
   * The API keys the HTTP endpoint authenticates with, when `api_keys` turned them on at start
   * (replaceable while serving); none over stdio or without keys.
   */
  readonly apiKeys: ApiKeys | undefined;
  /** The server-level gate from `config.gate`, when configured and enabled. */
  readonly gate: Gate | undefined;
  readonly metrics: ServerMetrics | undefined;
  /** The audit trail (`audit_log`), when configured: every call's decision is recorded in it. */
  readonly audit: AuditLog | undefined;
  /** Adds the interceptor (and the gate tools) to `server`. Returns a remover. */
  install(server: SecurityTarget): () => void;
  setPreCallValidator(validator: PreCallValidator | undefined): void;
  /** Replaces the tool-call logger (e.g. `factory__log on`); `undefined` stops logging. */
  setToolLogger(toolLogger: ToolLogger | undefined): void;
  readonly toolLogger: ToolLogger | undefined;
  /** Flushes and closes the tool logger and the audit log, and stops the metrics listeners. */
  close(): Promise<void>;
}

const rejected = (reason: string): CallToolResult => ({
  content: [{ type: 'text', text: `Rejected: ${reason}` }],
  isError: true,
});

/** What the interceptor reads at each call: both may be replaced while the server runs. */
interface CallHooks {
  validator: PreCallValidator | undefined;
  toolLogger: ToolLogger | undefined;
}

/** What the interceptor works with. */
interface InterceptorParts {
  readonly logger: Logger;
  readonly redactor: Redactor;
  readonly gate: Gate | undefined;
  readonly metrics: ServerMetrics | undefined;
  readonly audit: AuditLog | undefined;
  readonly hooks: CallHooks;
}

/** The validator's reason to reject `call`, if any; one that throws rejects it too. */
async function validate(
  validator: PreCallValidator,
  call: InterceptedCall,
  { logger, redactor }: InterceptorParts,
): Promise<string | undefined> {
  try {
    const reason = await validator(call.tool, call.args ?? {});
    return typeof reason === 'string' && reason !== '' ? reason : undefined;
  } catch (error) {
    logger.error(`pre-call validator failed on ${call.tool}; the call is rejected`, {
      error: redactor.text(error instanceof Error ? error.message : String(error)),
    });
    return 'the pre-call validator failed';
  }
}

/** The one interceptor: validator, gate, then the call; every call counted, logged, audited. */
function interceptorFor(parts: InterceptorParts) {
  const { logger, redactor, gate, metrics, audit, hooks } = parts;
  return async function intercept(
    call: InterceptedCall,
    next: () => Promise<CallToolResult>,
  ): Promise<CallToolResult> {
    // The global `performance` loads node:perf_hooks on its first use, here; imported, its eight
    // modules were loaded by every start-up (~8 M instructions before the first answer).
    const started = performance.now();
    const args = call.args ?? {};
    let outcome: ToolCallOutcome = 'error';
    /** What rejected the call before it ran, for the audit trail. */
    let rejectedBy: string | undefined;
    let result: CallToolResult | undefined;
    let thrown: unknown;
    try {
      if (call.refusal !== undefined) {
        logger.info(`tool call refused: ${call.tool}`, {
          plugin: call.plugin,
          reason: call.refusal,
        });
        outcome = 'rejected';
        result = await next();
        return withAuditId(result, auditCall(audit, call, args, outcome));
      }
      // Without a validator there is nothing to wait for: no await (a microtask turn) per call.
      const validator = hooks.validator;
      const reason = validator === undefined ? undefined : await validate(validator, call, parts);
      const group = reason === undefined ? gate?.groupOfTool(call.tool) : undefined;
      // The gate's state is read fresh before deciding (memory or the cluster's Redis alike).
      if (group !== undefined) await gate!.sync(group);
      const blocked = group === undefined ? undefined : gate!.check(group, call.ctx);
      if (reason !== undefined) {
        logger.info(`tool call rejected: ${call.tool}`, {
          plugin: call.plugin,
          reason: redactor.text(reason),
        });
        outcome = 'rejected';
        rejectedBy = 'validator';
        result = rejected(reason);
      } else if (blocked !== undefined) {
        outcome = 'rejected';
        rejectedBy = `gate:${group}`;
        result = { content: [{ type: 'text', text: blocked }], isError: true };
      } else {
        result = await next();
        outcome = result.isError ? 'error' : 'ok';
      }
      return withAuditId(result, auditCall(audit, call, args, outcome, rejectedBy));
    } catch (error) {
      thrown = error;
      auditCall(audit, call, args, 'error');
      throw error;
    } finally {
      const seconds = (performance.now() - started) / 1000;
      metrics?.recordToolCall({ tool: call.tool, plugin: call.plugin, outcome, seconds });
      // Raw here; the logger redacts while it writes, off this call's path.
      hooks.toolLogger?.logCall(call.tool, args, result ?? thrown, outcome === 'ok', {
        outcome,
        plugin: call.plugin,
        sessionId: call.ctx.sessionId,
        principal: principalOf(call.ctx),
        durationMs: seconds * 1000,
        via: call.via,
      });
    }
  };
}

export function createSecurity(config: SecurityConfig, options: SecurityOptions = {}): Security {
  const logger = options.logger ?? createLogger('security');
  const { apiKeys, oauth, configuredGate, audit } = namingTheFile(config.config_file, () => ({
    apiKeys: parseApiKeys(config.api_keys),
    oauth: createOAuth(config, logger, { clock: options.clock }),
    configuredGate: createGate(config.gate, { logger, clock: options.clock }),
    audit: openAuditLog(config.audit_log, logger),
  }));
  const gate = configuredGate.enabled ? configuredGate : undefined;
  const metrics = options.metrics ?? (config.metrics ? new ServerMetrics() : undefined);
  // A validator's reason or error may quote the arguments it judged.
  const redactor = Redactor.for(config);
  const hooks: CallHooks = { validator: options.validator, toolLogger: options.toolLogger };
  const intercept = interceptorFor({ logger, redactor, gate, metrics, audit, hooks });

  const keyRing =
    config.transport === 'stdio' || apiKeys.length === 0 ? undefined : new ApiKeys(apiKeys);
  const httpMiddleware = authentication(config, keyRing, oauth, logger);

  return {
    httpOptions: {
      ...(httpMiddleware ? { httpMiddleware } : {}),
      ...(oauth ? { configureApp: oauth.configureApp } : {}),
    },
    oauth,
    apiKeys: keyRing,
    gate,
    metrics,
    audit,
    install(server) {
      gate?.registerTools(server);
      if (metrics && server.sessions) {
        const sessions = server.sessions;
        metrics.trackSessions(() => sessions.size);
      }
      const stats = server.stats;
      if (metrics && stats) {
        metrics.trackSessionLifecycle(() => ({
          reaped: stats.sessions_reaped,
          refused: stats.sessions_refused,
        }));
      }
      const detachAudit = audit && server.audit?.attach(audit);
      const removeInterceptor = server.addToolCallInterceptor(intercept);
      return () => {
        removeInterceptor();
        detachAudit?.();
      };
    },
    setPreCallValidator(next) {
      hooks.validator = next;
    },
    setToolLogger(next) {
      const previous = hooks.toolLogger;
      hooks.toolLogger = next;
      if (previous && previous !== next) void previous.close();
    },
    get toolLogger() {
      return hooks.toolLogger;
    },
    async close() {
      await Promise.all([hooks.toolLogger?.close(), audit?.close()]);
      metrics?.close();
    },
  };
}

/** The middleware in front of the MCP paths: API keys first, then OAuth; none without either. */
function authentication(
  config: SecurityConfig,
  keys: ApiKeys | undefined,
  oauth: OAuth | undefined,
  logger: Logger,
): HttpMiddleware[] | undefined {
  if (keys === undefined) return oauth?.middleware;
  logger.info(
    `API keys: ${keys.size} service account${keys.size === 1 ? '' : 's'} (${keys.names.map((name) => `key:${name}`).join(', ')})${oauth ? '; other tokens go to OAuth' : ''}`,
  );
  return [
    apiKeyMiddleware(keys, {
      requiredScopes: config.oauth_required_scopes,
      oauth: oauth?.middleware,
    }),
  ];
}

/** Runs `build`, prefixing each configuration problem with the file it came from. */
function namingTheFile<T>(file: string | undefined, build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (file !== undefined && error instanceof ConfigError) {
      throw new ConfigError(error.issues.map((issue) => `${file}: ${issue}`));
    }
    throw error;
  }
}
