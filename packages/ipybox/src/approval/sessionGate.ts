/**
 * The approval gate of one caller's code: a kernel session's (Python) or a JavaScript caller's
 * (`codemode/js/`). One construction for both, so a call from either language is decided by the
 * same policy, timeout, privileged-tool rule and grant book.
 *
 * @module
 */
import { type AuditRecorder, type Logger, processGrants } from '@mcpbox/framework';
import type { IpyboxSettings } from '../settings.ts';
import { ApprovalGate, type ApprovalPolicy } from './approvalGate.ts';
import type { ToolCall } from './approvalRequest.ts';
import { KernelGrants } from './kernelGrants.ts';

export interface SessionGateOptions {
  settings: IpyboxSettings;
  /** The approval policy of each call when it differs by tool (code mode's rules). */
  approvalPolicy?: (call: ToolCall) => ApprovalPolicy;
  /** Where approvals are recorded (`server.audit`); none: not recorded. */
  audit?: AuditRecorder;
  logger?: Logger;
  /** Who the running code acts for: an approval is a framework grant for them. */
  principal: () => string;
}

export function sessionApprovalGate(options: SessionGateOptions): ApprovalGate {
  const { settings } = options;
  return new ApprovalGate({
    policy:
      settings.approval === 'elicit' || settings.approval === 'channel' ? 'ask' : settings.approval,
    timeoutMs: settings.approvalTimeoutMs,
    policyFor: options.approvalPolicy,
    allowPrivileged: settings.allowPrivilegedTools,
    // An approval is a framework grant for the code's caller (`kernelGrants.ts`).
    grants: new KernelGrants({
      book: processGrants(),
      principal: options.principal,
      ...(options.audit && { audit: options.audit }),
    }),
    logger: options.logger,
  });
}
