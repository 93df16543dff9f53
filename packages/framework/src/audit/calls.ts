/**
 * A tool call's record in the audit trail, and the audit log a configuration asks for.
 *
 * @module
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Logger } from '../contract/logger.ts';
import { ConfigError } from '../errors.ts';
import type { ToolCallOutcome } from '../metrics/metrics.ts';
import type { InterceptedCall } from '../security.ts';
import { AuditLog } from './log.ts';
import {
  AUDIT_META_KEY,
  type AuditDecision,
  type AuditRecord,
  argsDigest,
  recordId,
} from './record.ts';

/**
 * Records the call's decision in the audit trail, when there is one: a policy refusal is
 * `denied` by its rule, a validator's or the gate's refusal `rejected`, a call that ran
 * `allowed` (with the policy rule that allowed it) or `error`. The arguments are recorded only
 * as their digest.
 */
export function auditCall(
  audit: AuditLog | undefined,
  call: InterceptedCall,
  args: Record<string, unknown>,
  outcome: ToolCallOutcome,
  rejectedBy?: string,
): AuditRecord | undefined {
  if (audit === undefined) return undefined;
  const decision: AuditDecision =
    call.refusal !== undefined ? 'denied' : outcome === 'ok' ? 'allowed' : outcome;
  return audit.record({
    kind: 'call',
    principal: call.ctx.principal?.id,
    view: call.ctx.view,
    tool: call.tool,
    plugin: call.plugin,
    args_sha256: argsDigest(args),
    decision,
    rule: rejectedBy ?? call.policyRule,
  });
}

/** `result` naming its audit record in `_meta["io.mcpbox/audit"]` (a copy: results may be shared). */
export function withAuditId(
  result: CallToolResult,
  record: AuditRecord | undefined,
): CallToolResult {
  if (record === undefined) return result;
  return { ...result, _meta: { ...result._meta, [AUDIT_META_KEY]: recordId(record) } };
}

/** The audit log at `path` (resuming its chain), if configured; one that cannot be opened is a config error. */
export function openAuditLog(path: string | undefined, logger: Logger): AuditLog | undefined {
  if (path === undefined) return undefined;
  try {
    return new AuditLog({ path, logger });
  } catch (error) {
    throw new ConfigError([
      `audit_log: cannot open ${path} (${error instanceof Error ? error.message : String(error)})`,
    ]);
  }
}
