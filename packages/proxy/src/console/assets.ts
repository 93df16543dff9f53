/**
 * The console's one stylesheet and one script, served from memory (no CDN, works offline).
 *
 * The script only enhances server-rendered pages: it keeps "live" pages fresh by re-fetching
 * their `<main>`, and feeds the call list from `/console/events` (server-sent events). Values
 * from the server go into the page as text (`textContent`), never as markup.
 *
 * @module
 */

export const CONSOLE_CSS = `
:root { --fg: #1d232b; --muted: #5d6877; --line: #d8dee6; --bg: #f6f8fa; --accent: #1f6feb;
  --ok: #1a7f37; --bad: #cf222e; font: 14px/1.45 system-ui, sans-serif; color: var(--fg); }
body { margin: 0; background: var(--bg); }
header { display: flex; gap: 1.5rem; align-items: center; padding: .6rem 1.2rem; background: #fff;
  border-bottom: 1px solid var(--line); }
header nav { display: flex; gap: .9rem; flex-wrap: wrap; flex: 1; }
header nav a { color: var(--muted); text-decoration: none; }
header nav a[aria-current] { color: var(--fg); font-weight: 600; border-bottom: 2px solid var(--accent); }
main { padding: 1rem 1.2rem 3rem; max-width: 1200px; }
h1 { font-size: 1.3rem; margin: .2rem 0 1rem; } h2 { font-size: 1.05rem; margin: 1.4rem 0 .5rem; }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid var(--line); }
th, td { text-align: left; padding: .35rem .55rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #eef1f4; font-weight: 600; font-size: .85rem; }
td.args, td code { font-family: ui-monospace, monospace; font-size: .8rem; word-break: break-all; }
.inline { display: inline; } .logout { margin-left: auto; }
button { font: inherit; padding: .2rem .65rem; border: 1px solid var(--line); border-radius: 5px;
  background: #fff; cursor: pointer; } button:hover { border-color: var(--accent); }
button.danger { color: var(--bad); } button.primary { background: var(--accent); color: #fff; }
.flash { padding: .5rem .8rem; border-radius: 5px; } .flash.ok { background: #dafbe1; }
.flash.error { background: #ffebe9; color: var(--bad); }
.ok { color: var(--ok); } .error, .rejected { color: var(--bad); } .muted { color: var(--muted); }
.cards { display: flex; gap: 1rem; flex-wrap: wrap; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .7rem 1rem; min-width: 9rem; }
.card b { display: block; font-size: 1.4rem; }
.chart { margin: 0; background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .5rem .8rem; }
.chart svg { display: block; } .chart rect { fill: var(--accent); } .chart line { stroke: var(--line); }
.chart.errors rect { fill: var(--bad); }
.login { max-width: 22rem; margin: 4rem auto; background: #fff; border: 1px solid var(--line);
  border-radius: 8px; padding: 1.2rem 1.5rem; }
.login input[type=password] { width: 100%; box-sizing: border-box; padding: .4rem; margin: .4rem 0 .8rem; }
input[type=search], input[type=text] { padding: .3rem .5rem; border: 1px solid var(--line); border-radius: 5px; }
.pill { padding: 0 .45rem; border-radius: 9px; font-size: .8rem; background: #eef1f4; }
.pill.locked { background: #ffebe9; } .pill.unlocked { background: #dafbe1; }
.pill.pin-quarantined { background: #fff8c5; } .pill.pin-rejected { background: #ffebe9; }
.pin-diff { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .2rem .9rem; margin: .6rem 0; }
.pin-diff h3 { font-size: .95rem; margin: .5rem 0; }
pre.diff { font: .8rem/1.4 ui-monospace, monospace; background: var(--bg); padding: .5rem; overflow-x: auto; }
pre.diff .add { background: #dafbe1; } pre.diff .del { background: #ffebe9; }
pre.diff .hunk, pre.diff .file { color: var(--muted); }
`;

export const CONSOLE_JS = `
'use strict';
(() => {
  const main = () => document.querySelector('main');
  // Live pages: re-fetch the page and swap <main>, unless the operator is typing in it.
  if (document.body.hasAttribute('data-live')) {
    setInterval(async () => {
      const focused = document.activeElement;
      if (focused && main().contains(focused) && focused.tagName === 'INPUT') return;
      const response = await fetch(location.pathname, { credentials: 'same-origin' });
      if (!response.ok || response.redirected) return;
      const next = new DOMParser().parseFromString(await response.text(), 'text/html');
      const fresh = next.querySelector('main');
      if (fresh) main().replaceWith(fresh);
    }, 1500);
  }

  const feed = document.getElementById('feed');
  if (!feed) return;
  const filter = document.getElementById('filter');
  const matches = (row) => {
    const text = (filter && filter.value.trim().toLowerCase()) || '';
    return text === '' || row.textContent.toLowerCase().includes(text);
  };
  const applyFilter = () => {
    for (const row of feed.tBodies[0].rows) row.hidden = !matches(row);
  };
  if (filter) filter.addEventListener('input', applyFilter);
  const cell = (row, text, className) => {
    const td = row.insertCell();
    td.textContent = text;
    if (className) td.className = className;
  };
  let last = Number(feed.dataset.last || 0);
  // The stream starts after the last call the page shows (none missed between the two).
  const events = new EventSource('/console/events?after=' + last);
  events.addEventListener('call', (event) => {
    const call = JSON.parse(event.data);
    if (call.seq <= last) return;
    last = call.seq;
    const row = feed.tBodies[0].insertRow(0);
    row.dataset.seq = String(call.seq);
    cell(row, new Date(call.time).toISOString().slice(11, 19));
    cell(row, call.caller);
    cell(row, call.tool);
    cell(row, call.outcome, call.outcome);
    cell(row, call.duration);
    cell(row, call.params, 'args');
    row.hidden = !matches(row);
    while (feed.tBodies[0].rows.length > 500) feed.tBodies[0].deleteRow(-1);
  });
})();
`;
