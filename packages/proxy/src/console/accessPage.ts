/**
 * The console's Access page: the principals this proxy served lately (kind, groups, views,
 * calls, refusals, last seen), the views and policy rules in force, a "Reload policy" button
 * and an explain form. The button and the form run the operations `reload_policy` and
 * `explain` through their handlers (`operations/handlers.ts`), so the console answers as REST,
 * the CLI and the `proxy__*` tools do; the explanation is the CLI's text.
 *
 * The explain form is a GET (it changes nothing): its answer is a link an operator can share.
 *
 * @module
 */
import type { AccessSettings, SeenPrincipal } from '@mcpbox/framework';
import { type ExplainBody, explainText, reloadText } from '../operations/accessText.ts';
import { jsonObjectOperand, OperandError } from '../operations/cliText.ts';
import { HANDLERS, OPERATORS } from '../operations/handlers.ts';
import type { OperationArgs } from '../operations/table.ts';
import type { PluginManager } from '../proxy/manager.ts';
import { actionForm, duration, type Html, html } from './html.ts';

/** The form's fields, as typed (shown again above the answer). */
const FIELDS = ['principal', 'groups', 'claims', 'tool', 'view', 'args'] as const;

/**
 * What one principal used of its limits, as a cell's text, when the server keeps limits
 * (`limits.usage`); none: the page has no Limits column.
 */
export type LimitUsage = (principal: string) => string | undefined;

export interface AccessPageView {
  principals: SeenPrincipal[];
  settings: AccessSettings;
  now: number;
  usage?: LimitUsage;
  /** The form as submitted, and what explain answered (a text, or the error). */
  query: URLSearchParams;
  answer?: { ok: boolean; text: string };
}

const dash = html`<span class="muted">—</span>`;
const names = (items: readonly string[]) =>
  items.length === 0 ? dash : html`<code>${items.join(', ')}</code>`;

function principalsTable(view: AccessPageView): Html {
  if (view.principals.length === 0) {
    return html`<p class="muted" id="no-principals">No principal has been served yet.</p>`;
  }
  const { usage } = view;
  const rows = view.principals.map(
    (p) =>
      html`<tr data-principal="${p.id}"><td><code>${p.id}</code></td><td>${p.kind}</td><td>${names(p.groups)}</td>
<td>${names(p.views.map((v) => (v === '' ? '/mcp' : v)))}</td><td>${p.calls}</td><td class="${p.refusals > 0 ? 'rejected' : ''}">${p.refusals}</td>
${usage ? html`<td>${usage(p.id) ?? dash}</td>` : ''}<td>${duration(view.now - p.lastSeen)} ago</td></tr>`,
  );
  return html`<table id="principals"><thead><tr><th>Principal</th><th>Kind</th><th>Groups</th><th>Views</th><th>Calls</th><th>Refused</th>${usage ? html`<th>Limits</th>` : ''}<th>Last seen</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function policyTables(settings: AccessSettings): Html {
  const views = Object.entries(settings.views).map(
    ([name, v]) =>
      html`<tr data-view="${name}"><td><b>${name}</b> <span class="muted">/mcp/${name}</span></td><td>${names(v.plugins ?? [])}</td><td>${names([...(v.tools ?? []), ...(v.tags ?? []).map((t) => `#${t}`)])}</td><td>${v.description ?? ''}</td></tr>`,
  );
  const policy = settings.policy;
  const rules = (policy?.rules ?? []).map(
    (r) =>
      html`<tr data-rule="${r.name}"><td><b>${r.name}</b></td><td>${r.allow !== undefined ? 'allow' : 'deny'}</td><td>${names(r.tools ?? ['*'])}</td><td><code>${r.allow ?? r.deny}</code></td><td>${r.description ?? ''}</td></tr>`,
  );
  return html`<h2>Views</h2>${
    views.length === 0
      ? html`<p class="muted">No views: every client sees the whole catalog at /mcp.</p>`
      : html`<table id="views"><thead><tr><th>View</th><th>Plugins</th><th>Tools / #tags</th><th>Description</th></tr></thead><tbody>${views}</tbody></table>`
  }
<h2>Policy rules</h2>${
    policy === undefined
      ? html`<p class="muted">No policy: whoever reaches a view may call its tools.</p>`
      : html`<p>Default: <b id="policy-default">${policy.default}</b> (deny wins over allow).</p><table id="rules"><thead><tr><th>Rule</th><th>Effect</th><th>Tools</th><th>Expression</th><th>Description</th></tr></thead><tbody>${rules}</tbody></table>`
  }`;
}

function explainForm(view: AccessPageView): Html {
  const input = (name: (typeof FIELDS)[number], label: string, placeholder: string) =>
    html`<label>${label} <input type="text" name="${name}" id="explain-${name}" value="${view.query.get(name) ?? ''}" placeholder="${placeholder}"></label> `;
  const answer = view.answer;
  return html`<h2>Explain</h2><form method="get" action="/console/access" id="explain">
${input('principal', 'Principal', 'sub:alice')}${input('groups', 'Groups', 'support, ops')}${input('claims', 'Claims', '{"projects": ["p1"]}')}
${input('tool', 'Tool', 'none: what it sees')}${input('view', 'View', 'none: /mcp')}${input('args', 'Arguments', '{"project": "p1"}')}
<button class="primary" type="submit" data-action="explain">Explain</button></form>${
    answer === undefined
      ? ''
      : html`<pre id="explanation" class="${answer.ok ? '' : 'error'}">${answer.text}</pre>`
  }`;
}

export function accessPage(view: AccessPageView, csrf: string): Html {
  return html`<p>${actionForm('/console/access/reload', 'Reload policy', {}, csrf)} <span class="muted">Re-reads <code>views:</code> and <code>policy:</code> from the config file; a bad rule changes nothing.</span></p>
<h2>Principals seen</h2>${principalsTable(view)}${policyTables(view.settings)}${explainForm(view)}`;
}

/** The explain form as the operation's arguments; a field that is not JSON says so. */
function formArgs(query: URLSearchParams): OperationArgs {
  const text = (name: string) => query.get(name)?.trim() || undefined;
  const list = (name: string) =>
    text(name)
      ?.split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  const args: OperationArgs = {
    principal: text('principal'),
    groups: list('groups'),
    claims: jsonObjectOperand(text('claims'), 'Claims', '{"projects": ["p1"]}'),
    tool: text('tool'),
    view: text('view'),
    args: jsonObjectOperand(text('args'), 'Arguments', '{"project": "p1"}'),
  };
  return Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined));
}

/** What the explain form answers; nothing until a principal is given. */
export async function explainFromForm(
  manager: PluginManager,
  query: URLSearchParams,
): Promise<{ ok: boolean; text: string } | undefined> {
  if (!query.get('principal')) return undefined;
  let args: OperationArgs;
  try {
    args = formArgs(query);
  } catch (error) {
    if (error instanceof OperandError) return { ok: false, text: error.message };
    throw error;
  }
  const result = await HANDLERS.explain.run({ manager, operator: OPERATORS.console }, args);
  return result.ok
    ? { ok: true, text: explainText(result as ExplainBody) }
    : { ok: false, text: result.error };
}

/** The "Reload policy" button: the message the next page shows. */
export async function reloadPolicyAction(
  manager: PluginManager,
): Promise<{ ok: boolean; text: string }> {
  const result = await HANDLERS.reload_policy.run({ manager, operator: OPERATORS.console }, {});
  return result.ok ? { ok: true, text: reloadText(result) } : { ok: false, text: result.error };
}
