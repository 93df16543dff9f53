/**
 * The console's Approvals page: the calls waiting for an operator (principal, server, tool,
 * the arguments as the desk shows them — secrets redacted —, the rule that asked, the time
 * left), each with Approve and Deny. The buttons post to `/console/approvals/approve|deny` and
 * run the operations `approve` and `deny` through their handlers (`operations/
 * approvalHandlers.ts`), so a click answers as `mcp-proxy approvals approve ID` does. The page
 * is live: it re-reads the desk every few seconds, so a call that starts or stops waiting shows.
 *
 * @module
 */

import { APPROVAL_HANDLERS } from '../operations/approvalHandlers.ts';
import { timeLeft } from '../operations/approvalsText.ts';
import { OPERATORS } from '../operations/handlers.ts';
import type { PluginManager } from '../proxy/manager.ts';
import { actionForm, duration, type Html, html } from './html.ts';

/** Who answers from the console, as the audit trail and the grant name them. */

export async function approvalsPage(
  manager: PluginManager,
  csrf: string,
  now: number,
): Promise<Html> {
  const listed = await APPROVAL_HANDLERS.approvals.run({ manager });
  if (!listed.ok) return html`<p class="muted">${listed.error}</p>`;
  if (listed.pending.length === 0) {
    return html`<p class="muted" id="no-approvals">No call is waiting for approval. A policy rule with <code>approval: operator</code> puts calls here.</p>`;
  }
  const rows = listed.pending.map((p) => {
    const { principal, server, tool } = p.subject;
    const fields = { id: p.id };
    return html`<tr data-approval="${p.id}"><td><code>${principal}</code></td><td>${server}</td><td><b>${tool}</b></td>
<td><pre class="args">${JSON.stringify(p.args, null, 2)}</pre></td><td>${p.rule} <span class="muted">(${p.via})</span></td>
<td>${duration(now - p.since)} ago</td><td>${timeLeft(p.expiresAt, now)}</td>
<td>${actionForm('/console/approvals/approve', 'Approve', fields, csrf)} ${actionForm('/console/approvals/deny', 'Deny', fields, csrf, { destructive: true })}</td></tr>`;
  });
  return html`<p>An approval lets exactly this call run once: the same principal, tool and arguments.</p>
<table id="approvals"><thead><tr><th>Principal</th><th>Server</th><th>Tool</th><th>Arguments</th><th>Rule (via)</th><th>Waiting</th><th>Time left</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** Whether `path` is one of the page's buttons. */
export const isApprovalAction = (path: string) =>
  path === '/console/approvals/approve' || path === '/console/approvals/deny';

/** Runs an Approve or Deny button; the message the next page shows. */
export async function approvalAction(
  manager: PluginManager,
  path: string,
  id: string,
): Promise<{ ok: boolean; text: string }> {
  const approve = path.endsWith('/approve');
  const handler = APPROVAL_HANDLERS[approve ? 'approve' : 'deny'];
  const result = await handler.run({ manager, operator: OPERATORS.console }, { id });
  if (!result.ok) return { ok: false, text: result.error };
  return {
    ok: true,
    text: `${approve ? 'Approved' : 'Denied'} ${result.call} for ${result.principal}`,
  };
}
