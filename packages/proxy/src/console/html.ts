/**
 * HTML building for the console: escaping (every value that is not our own markup goes through
 * {@link esc}), the page frame with its navigation, forms with the CSRF field, and the small
 * formatters of durations and sizes.
 *
 * @module
 */

/** Our own markup, as opposed to text that must be escaped. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** Tagged template: interpolated values are escaped unless they are {@link Html} (or arrays of it). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1];
  });
  return new Html(out);
}

function render(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === undefined || value === null || value === false) return '';
  return esc(value);
}

export interface NavEntry {
  href: string;
  label: string;
}

export interface PageFrame {
  title: string;
  /** The current path, to mark its nav entry. */
  path: string;
  nav: NavEntry[];
  /** Omitted on the login page. */
  csrf?: string;
  flash?: { ok: boolean; text: string };
  /** Re-fetch `<main>` every few seconds (pages that change on their own). */
  live?: boolean;
  body: Html;
}

export function page(frame: PageFrame): string {
  const nav = frame.nav.map(
    (entry) =>
      html`<a href="${entry.href}"${new Html(entry.href === frame.path ? ' aria-current="page"' : '')}>${entry.label}</a>`,
  );
  const logout =
    frame.csrf === undefined
      ? ''
      : html`<form method="post" action="/console/logout" class="logout">${csrfField(frame.csrf)}<button>Log out</button></form>`;
  const flash =
    frame.flash === undefined
      ? ''
      : html`<p class="flash ${frame.flash.ok ? 'ok' : 'error'}" role="status">${frame.flash.text}</p>`;
  return `<!doctype html>${html`<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · mcp-proxy</title>
<link rel="stylesheet" href="/console/console.css">
<script src="/console/console.js" defer></script>
</head><body${new Html(frame.live ? ' data-live' : '')}>
<header><strong>mcp-proxy</strong><nav>${nav}</nav>${logout}</header>
<main><h1>${frame.title}</h1>${flash}${frame.body}</main>
</body></html>`}`;
}

export function csrfField(csrf: string): Html {
  return html`<input type="hidden" name="csrf" value="${csrf}">`;
}

/** A one-button POST form; `fields` become hidden inputs. */
export function actionForm(
  action: string,
  label: string,
  fields: Record<string, string>,
  csrf: string,
  options: { destructive?: boolean } = {},
): Html {
  const hidden = Object.entries(fields).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  return html`<form method="post" action="${action}" class="inline">${csrfField(csrf)}${hidden}<button${new Html(options.destructive ? ' class="danger"' : '')} data-action="${label.toLowerCase()}">${label}</button></form>`;
}

/** `1h 2m`, `3m 4s`, `5s`, `120 ms`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const total = Math.floor(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m ${s}s`;
  return `${s}s`;
}

/** `12.3 MB`. */
export function size(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}
