/**
 * The bodies of the console's pages, from plain data: plugins, calls, health, gate, and any
 * admin section a plugin published. Every value is escaped by `html`.
 *
 * @module
 */
import type { AdminColumn, AdminSection, AdminValue, GateGroupSnapshot } from '@mcpbox/framework';
import type { AvailableEntry } from '../proxy/manager.ts';
import type { RateSlot } from './callRates.ts';
import { barChart } from './charts.ts';
import { actionForm, duration, Html, html, type NavEntry, size } from './html.ts';

/** The console's own pages, in the navigation's order (plugins' admin sections follow). */
export const CONSOLE_PAGES: readonly NavEntry[] = [
  { href: '/console/plugins', label: 'Plugins' },
  { href: '/console/calls', label: 'Calls' },
  { href: '/console/health', label: 'Health' },
  { href: '/console/gate', label: 'Gate' },
  { href: '/console/access', label: 'Access' },
  { href: '/console/approvals', label: 'Approvals' },
  { href: '/console/pins', label: 'Pins' },
  { href: '/console/skills', label: 'Skills' },
];

export interface LoadedView {
  name: string;
  internal: boolean;
  prefix: string | undefined;
  source: string;
  configKeys: string[];
  tools: string[];
  resources: string[];
  prompts: string[];
  loadedAt: Date;
}

const list = (items: string[]) =>
  items.length === 0 ? html`<span class="muted">—</span>` : html`<code>${items.join(', ')}</code>`;

export function pluginsPage(
  loaded: LoadedView[],
  available: AvailableEntry[],
  errors: ReadonlyMap<string, string>,
  csrf: string,
): Html {
  const lastError = (name: string) => {
    const error = errors.get(name);
    return error === undefined ? '' : html`<span class="error">${error}</span>`;
  };
  const rows = loaded.map(
    (
      p,
    ) => html`<tr data-plugin="${p.name}"><td><b>${p.name}</b>${p.internal ? html` <span class="pill">built in</span>` : ''}</td>
<td>${p.prefix ?? html`<span class="muted">—</span>`}</td><td><code>${p.source}</code><br><span class="muted">config: ${p.configKeys.length ? p.configKeys.join(', ') : 'none'}</span></td>
<td class="tools">${list(p.tools)}</td><td>${list(p.resources)}</td><td>${list(p.prompts)}</td><td>${lastError(p.name)}</td>
<td>${
      p.internal
        ? ''
        : [
            actionForm('/console/plugins/reload', 'Reload', { plugin: p.name }, csrf),
            actionForm('/console/plugins/unload', 'Unload', { plugin: p.name }, csrf, {
              destructive: true,
            }),
          ]
    }</td></tr>`,
  );
  const idle = available.filter((a) => !a.loaded);
  const availableRows = idle.map(
    (
      a,
    ) => html`<tr data-plugin="${a.name}"><td><b>${a.name}</b></td><td>${a.kind}</td><td>${a.description}</td><td>${lastError(a.name)}</td>
<td>${actionForm('/console/plugins/load', 'Load', { plugin: a.name }, csrf)}</td></tr>`,
  );
  return html`<h2>Loaded</h2><table id="loaded"><thead><tr><th>Plugin</th><th>Prefix</th><th>Source</th><th>Tools</th><th>Resources</th><th>Prompts</th><th>Last error</th><th></th></tr></thead><tbody>${rows}</tbody></table>
<h2>Available</h2>${
    idle.length === 0
      ? html`<p class="muted">Every plugin found is loaded.</p>`
      : html`<table id="available"><thead><tr><th>Plugin</th><th>Kind</th><th>Description</th><th>Last error</th><th></th></tr></thead><tbody>${availableRows}</tbody></table>`
  }`;
}

/** A call as the feed shows it (also the server-sent event's data). */
export interface CallView {
  seq: number;
  time: number;
  caller: string;
  tool: string;
  outcome: string;
  duration: string;
  params: string;
}

export function callsPage(calls: CallView[]): Html {
  const rows = [...calls]
    .reverse()
    .map(
      (c) =>
        html`<tr data-seq="${c.seq}"><td>${new Date(c.time).toISOString().slice(11, 19)}</td><td>${c.caller}</td><td>${c.tool}</td><td class="${c.outcome}">${c.outcome}</td><td>${c.duration}</td><td class="args">${c.params}</td></tr>`,
    );
  return html`<p><input type="search" id="filter" placeholder="Filter: tool, caller, outcome, arguments…" aria-label="Filter calls" size="40"> <span class="muted">Arguments are redacted as in the tool-call log.</span></p>
<table id="feed" data-last="${calls.at(-1)?.seq ?? 0}"><thead><tr><th>Time (UTC)</th><th>Principal / session</th><th>Tool</th><th>Outcome</th><th>Duration</th><th>Arguments</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export interface HealthView {
  uptimeMs: number;
  /** 2025-11-25 sessions open now (HTTP and stdio connections). */
  legacySessions: number;
  /** Calls without a session in the last minutes: 2026-07-28 requests are stateless. */
  statelessCalls: number;
  requests: number;
  errors: number;
  plugins: number;
  tools: number;
  rates: RateSlot[];
  slotMs: number;
}

export function healthPage(view: HealthView): Html {
  const perSecond = view.rates.map((slot) => slot.calls / (view.slotMs / 1000));
  const errorRate = view.rates.map((slot) => (slot.calls === 0 ? 0 : slot.errors / slot.calls));
  const minutes = Math.round((view.rates.length * view.slotMs) / 60_000);
  const card = (label: string, value: unknown, id: string) =>
    html`<div class="card" id="${id}">${label}<b>${value}</b></div>`;
  return html`<div class="cards">${[
    card('Uptime', duration(view.uptimeMs), 'uptime'),
    card('Sessions 2025-11-25', view.legacySessions, 'sessions-2025'),
    card(`Stateless 2026-07-28 calls (${minutes} min)`, view.statelessCalls, 'calls-2026'),
    card('MCP requests', view.requests, 'requests'),
    card('Errors', view.errors, 'errors'),
    card('Plugins / tools', `${view.plugins} / ${view.tools}`, 'plugins'),
  ]}</div>
<h2>Last ${minutes} minutes</h2><div class="cards">${barChart(perSecond, {
    label: 'Tool calls per second',
    current: (perSecond.at(-1) ?? 0).toFixed(2),
  })}${new Html(
    barChart(errorRate, {
      label: 'Error rate',
      current: `${Math.round((errorRate.at(-1) ?? 0) * 100)}%`,
      max: 1,
    }).text.replace('class="chart"', 'class="chart errors"'),
  )}</div><p class="muted">Each bar is ${view.slotMs / 1000} s; errors are calls that failed or were rejected.</p>`;
}

export function gatePage(groups: GateGroupSnapshot[] | undefined, csrf: string): Html {
  if (groups === undefined) {
    return html`<p class="muted">No gate is configured (<code>gate:</code> in the config): no tool needs unlocking.</p>`;
  }
  const rows = groups.map((g) => {
    const holders = g.unlocked.map(
      (u) =>
        html`<li><code>${u.caller}</code> <span class="pill unlocked">unlocked</span> ${duration(u.msLeft)} left</li>`,
    );
    const state = g.lockedOut
      ? html`<span class="pill locked">locked out</span>`
      : g.unlocked.length === 0
        ? html`<span class="pill locked">locked</span>`
        : html`<span class="pill unlocked">unlocked for ${g.unlocked.length}</span>`;
    return html`<tr data-group="${g.name}"><td><b>${g.name}</b></td><td>${state}</td><td>${holders.length ? html`<ul>${holders}</ul>` : html`<span class="muted">nobody</span>`}</td><td>${list(g.tools)}</td><td>${duration(g.timeoutSeconds * 1000)}</td>
<td>${actionForm('/console/gate/lock', 'Lock', { group: g.name }, csrf, { destructive: true })}</td></tr>`;
  });
  return html`<p>${actionForm('/console/gate/lock', 'Lock everything (kill switch)', { group: '' }, csrf, { destructive: true })}</p>
<table id="gate"><thead><tr><th>Group</th><th>State</th><th>Unlocked by (principal / session)</th><th>Tools</th><th>Auto-lock after</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
}

function cellValue(value: AdminValue | undefined, column: AdminColumn): Html {
  if (value === null || value === undefined) return html`<span class="muted">—</span>`;
  if (typeof value === 'number' && column.unit === 'ms') return html`${duration(value)}`;
  if (typeof value === 'number' && column.unit === 'bytes') return html`${size(value)}`;
  return html`${String(value)}`;
}

export async function adminPage(
  target: { plugin: string; name: string },
  section: AdminSection,
  csrf: string,
): Promise<Html> {
  const rows = await section.rows();
  const byId = new Map(section.actions.map((a) => [a.id, a]));
  const body = rows.map(
    (row) =>
      html`<tr data-row="${row.id}">${section.columns.map((c) => html`<td${new Html(c.key === 'arguments' ? ' class="args"' : '')}>${cellValue(row.values[c.key], c)}</td>`)}<td>${row.actions.map(
        (id) => {
          const action = byId.get(id);
          return action === undefined
            ? ''
            : actionForm(
                '/console/admin/act',
                action.label,
                { ...target, section: section.id, row: row.id, action: id },
                csrf,
                { destructive: action.destructive },
              );
        },
      )}</td></tr>`,
  );
  return rows.length === 0
    ? html`<p class="muted" id="empty">Nothing here right now.</p>`
    : html`<table id="admin-${section.id}"><thead><tr>${section.columns.map((c) => html`<th>${c.label}</th>`)}<th></th></tr></thead><tbody>${body}</tbody></table>`;
}

export function loginPage(error: string | undefined): string {
  return `<!doctype html>${html`<html lang="en"><head><meta charset="utf-8"><title>Log in · mcp-proxy</title>
<link rel="stylesheet" href="/console/console.css"></head><body>
<form class="login" method="post" action="/console/login"><h1>mcp-proxy console</h1>
${error === undefined ? '' : html`<p class="flash error" role="alert">${error}</p>`}
<label for="token">Management token</label>
<input type="password" id="token" name="token" autocomplete="current-password" required autofocus>
<button class="primary" type="submit">Log in</button>
<p class="muted">The token of <code>--mgmt-token</code> / <code>management_token</code>.</p></form></body></html>`}`;
}
