/** What the viewer's browser tests share: the host page (`viewerHost.browser.mjs` bundled), waiting for a pager. */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Frame } from 'puppeteer-core';

const HOST_SCRIPT = fileURLToPath(new URL('./viewerHost.browser.mjs', import.meta.url));

/** A chat-like page with one bubble (`caption`, HTML) above where `showApp` puts the app. */
export async function hostPage(caption: string): Promise<string> {
  const bundled = await build({
    entryPoints: [HOST_SCRIPT],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  const script = bundled.outputFiles[0]?.text.replace(/<\/script/gi, '<\\/script') ?? '';
  return `<!doctype html><html><head><meta charset="utf-8"><title>test host</title><style>
body { margin: 0; background: #f6f8fa; font: 14px/1.4 system-ui, sans-serif; color: #1f2328; }
#chat { max-width: 960px; margin: 0 auto; padding: 16px; }
.bubble { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 8px 12px; margin-bottom: 10px; }
.bubble code { font-size: 12px; }
iframe { width: 100%; height: 200px; border: 1px solid #d0d7de; border-radius: 8px; background: #fff; display: block; }
</style></head><body><div id="chat"><div class="bubble">${caption}</div></div>
<script type="module">${script}</script></body></html>`;
}

/** Waits until the viewer's `section` (a table and its pager) shows `status`; else says what it shows. */
export async function waitForStatus(
  frame: Frame,
  section: string,
  status: string,
  log: string[],
): Promise<void> {
  // Strings: this code runs in the page, where `document` is (tsc here knows no DOM).
  const ready = `(() => {
    const section = document.querySelector(${JSON.stringify(section)});
    const text = section?.querySelector('.status')?.textContent ?? '';
    return !section?.hasAttribute('data-loading') && text.includes(${JSON.stringify(status)});
  })()`;
  try {
    await frame.waitForFunction(ready, { timeout: Number(process.env.VIEWER_WAIT_MS ?? 120_000) });
  } catch (error) {
    const shown = await frame.evaluate('document.body.innerText').catch((e) => String(e));
    throw new Error(
      `the viewer never showed "${status}" (${error}); it shows:\n${String(shown).slice(0, 1500)}\nconsole:\n${log.join('\n')}`,
    );
  }
}
