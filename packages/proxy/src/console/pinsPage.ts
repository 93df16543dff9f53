/**
 * The console's Pins page: each server's pinned definitions (pinned, quarantined, rejected),
 * and for every definition that waits, the unified diff of the pinned and the offered one —
 * added lines marked `+`, removed `-`, every character escaped — with Approve and Reject
 * buttons. Page and buttons run the operations `pins`, `pins_diff`, `pins_approve` and
 * `pins_reject` through their handlers (`operations/handlers.ts`), so a click decides as the
 * CLI, REST and the `proxy__pins*` tools do; the console is the operator `management:console`.
 *
 * @module
 */
import type { PinDiff, PinStatus } from '@mcpbox/framework';
import { HANDLERS, OPERATORS } from '../operations/handlers.ts';
import { pinDecisionText } from '../operations/pinsText.ts';
import type { PluginManager } from '../proxy/manager.ts';
import { actionForm, type Html, html } from './html.ts';

/** Who the pin book records as deciding a console click. */

const dash = html`<span class="muted">—</span>`;
const when = (at: number) => `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
const pill = (state: string) => html`<span class="pill pin-${state}">${state}</span>`;

/** One line of a unified diff, marked by what it is (the marks are CSS, the text escaped). */
function diffLine(line: string): Html {
  const kind =
    line.startsWith('+++') || line.startsWith('---') || line.startsWith('===')
      ? 'file'
      : line.startsWith('@@')
        ? 'hunk'
        : line.startsWith('+')
          ? 'add'
          : line.startsWith('-')
            ? 'del'
            : 'same';
  return html`<span class="${kind}">${line}</span>\n`;
}

function waitingSection(diffs: PinDiff[], pins: PinStatus[], csrf: string): Html {
  if (diffs.length === 0) {
    return html`<p class="muted" id="nothing-waits">No definition waits for approval.</p>`;
  }
  const stateOf = (d: PinDiff) =>
    pins.find((p) => p.server === d.server && p.kind === d.kind && p.name === d.name)?.state;
  return html`${diffs.map((d) => {
    const target = { server: d.server, name: d.name, kind: d.kind };
    const state = stateOf(d) ?? 'quarantined';
    return html`<section class="pin-diff" data-pin="${`${d.server}/${d.kind}/${d.name}`}">
<h3>${d.server} · ${d.kind} <code>${d.name}</code> ${pill(state)} <span class="pill">${d.change}</span></h3>
<pre class="diff">${d.text.trimEnd().split('\n').map(diffLine)}</pre>
<p>${actionForm('/console/pins/approve', 'Approve', target, csrf)} ${
      state === 'quarantined'
        ? actionForm('/console/pins/reject', 'Reject', target, csrf, { destructive: true })
        : html`<span class="muted">Rejected: approve it if you changed your mind.</span>`
    }</p></section>`;
  })}`;
}

function pinsTable(pins: PinStatus[]): Html {
  if (pins.length === 0) {
    return html`<p class="muted" id="no-pins">Nothing is pinned yet (or <code>pins:</code> is off).</p>`;
  }
  const rows = pins.map(
    (p) =>
      html`<tr data-pin="${`${p.server}/${p.kind}/${p.name}`}"><td><b>${p.server}</b></td><td>${p.mode}</td><td>${p.kind}</td><td><code>${p.name}</code></td><td>${pill(p.state)}${p.pending ? html` <span class="muted">${p.pending.change}</span>` : ''}</td>
<td>${p.pinned ? html`<code title="${p.pinned.digest}">${p.pinned.digest.slice(0, 12)}…</code>` : dash}</td><td>${p.pinned ? html`${p.pinned.by}<br><span class="muted">${when(p.pinned.at)}</span>` : dash}</td></tr>`,
  );
  return html`<table id="pins"><thead><tr><th>Server</th><th>Mode</th><th>Kind</th><th>Name</th><th>State</th><th>Pinned digest</th><th>Pinned by</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** The page: what waits (with its diff and buttons) first, then every pin. */
export async function pinsPage(manager: PluginManager, csrf: string): Promise<Html> {
  const [listed, diffs] = await Promise.all([
    HANDLERS.pins.run({ manager }, {}),
    HANDLERS.pins_diff.run({ manager }, {}),
  ]);
  if (!listed.ok) return html`<p class="muted">${listed.error}</p>`;
  if (!diffs.ok) return html`<p class="error">${diffs.error}</p>`;
  return html`<p class="muted">A tool or prompt whose definition changed (or that is new) is quarantined — not listed, not callable — until approved here, with <code>mcp-proxy pins approve</code>, or by <code>pin: warn</code>.</p>
<h2>Waiting for approval</h2>${waitingSection(diffs.diffs, listed.pins, csrf)}
<h2>Pinned definitions</h2>${pinsTable(listed.pins)}`;
}

/** The decision a form posts to `path`, if it is one of this page's. */
export function pinActionAt(path: string): 'approve' | 'reject' | undefined {
  const match = /^\/console\/pins\/(approve|reject)$/.exec(path);
  return match ? (match[1] as 'approve' | 'reject') : undefined;
}

/** Approves or rejects what the form names; the message the next page shows. */
export async function runPinAction(
  manager: PluginManager,
  decision: 'approve' | 'reject',
  field: (name: string) => string | undefined,
): Promise<{ ok: boolean; text: string }> {
  const args = { server: field('server'), name: field('name'), kind: field('kind') };
  const handler = decision === 'approve' ? HANDLERS.pins_approve : HANDLERS.pins_reject;
  const result = await handler.run({ manager, operator: OPERATORS.console }, args);
  if (!result.ok) return { ok: false, text: result.error };
  return {
    ok: true,
    text: pinDecisionText(decision === 'approve' ? 'Approved' : 'Rejected', result),
  };
}
