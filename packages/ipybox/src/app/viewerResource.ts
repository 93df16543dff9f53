/**
 * The viewer's HTML: `viewer.html` with the ext-apps `App` bundle inlined, served as the
 * `ui://ipybox/viewer` resource (MIME `text/html;profile=mcp-app`).
 *
 * `storedResult.mjs` (the view of a result kept by reference) is inlined the same way, at its own
 * placeholder: one file of the viewer's script that can be read and checked on its own.
 *
 * The bundle is `@modelcontextprotocol/ext-apps/app-with-deps` (the `App` class with its
 * dependencies, one ES module) read from node_modules when the resource is first read, so the
 * viewer works offline and without a CDN, in a checkout and in the installed package alike. Its
 * trailing `export { … }` becomes a plain object the viewer's script reads: an inline
 * `<script type="module">` cannot import from a sibling inline script.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import type { PluginServer } from '@mcpbox/framework';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { VIEWER_URI } from './uiExtension.ts';

const BUNDLE_PLACEHOLDER = '/*EXT_APPS_BUNDLE*/';
const STORED_PLACEHOLDER = '/*STORED_RESULT_VIEW*/';
const EXPORTS = /export\s*\{([^}]*)\}\s*;?\s*$/;

/**
 * The bundle's source with its export list turned into `const extApps = {…}`. Throws, naming
 * the file, when the bundle no longer ends with one export list (an ext-apps upgrade changed it).
 */
export function inlineBundle(source: string, file = 'app-with-deps.js'): string {
  const match = EXPORTS.exec(source);
  if (!match?.[1]) {
    throw new Error(`${file} does not end with an export list; the ipybox viewer cannot inline it`);
  }
  const entries = match[1]
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const [local, exported = local] = entry.split(/\s+as\s+/);
      return `${JSON.stringify(exported)}: ${local}`;
    });
  const body = source.slice(0, match.index).replace(/<\/script/gi, '<\\/script');
  return `${body}\nconst extApps = { ${entries.join(', ')} };`;
}

let html: Promise<string> | undefined;

/** The viewer document, built once per process. */
export function viewerHtml(): Promise<string> {
  html ??= (async () => {
    const file = new URL(import.meta.resolve('@modelcontextprotocol/ext-apps/app-with-deps'));
    const [template, bundle, stored] = await Promise.all([
      readFile(new URL('./viewer.html', import.meta.url), 'utf8'),
      readFile(file, 'utf8'),
      readFile(new URL('./storedResult.mjs', import.meta.url), 'utf8'),
    ]);
    for (const placeholder of [BUNDLE_PLACEHOLDER, STORED_PLACEHOLDER]) {
      if (!template.includes(placeholder)) throw new Error(`viewer.html lost ${placeholder}`);
    }
    return template
      .replace(BUNDLE_PLACEHOLDER, () => inlineBundle(bundle, file.pathname))
      .replace(STORED_PLACEHOLDER, () => stored.replace(/<\/script/gi, '<\\/script'));
  })();
  html.catch(() => {
    html = undefined; // a later read tries again and reports the error again
  });
  return html;
}

/** Registers `ui://ipybox/viewer`: no network access wanted (the host's default CSP applies). */
export function registerViewerResource(server: PluginServer): void {
  const ui = { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true };
  server.registerResource(
    'ipybox_viewer',
    VIEWER_URI,
    {
      title: 'ipybox cell viewer',
      description:
        'MCP App showing an execute_ipython_cell result: images, DataFrames as sortable paged tables, HTML outputs sandboxed.',
      mimeType: RESOURCE_MIME_TYPE,
      _meta: { ui },
    },
    async () => ({
      contents: [
        { uri: VIEWER_URI, mimeType: RESOURCE_MIME_TYPE, text: await viewerHtml(), _meta: { ui } },
      ],
    }),
  );
}
