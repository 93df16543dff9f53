/**
 * A headless Debian Chromium for browser tests, with its profile in a temp dir of its own, and
 * where the test's screenshots go: `docs/screenshots/` (the READMEs') only when
 * `MCPBOX_SCREENSHOTS=1` (`npm run screenshots`), else that temp dir, so an ordinary test run
 * still takes them but leaves the checkout clean.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

const CHROMIUM = '/usr/bin/chromium';
const README_SCREENSHOTS = fileURLToPath(new URL('../../../docs/screenshots/', import.meta.url));

export interface TestBrowser {
  browser: Browser;
  /** Where to write screenshots (exists). */
  screenshots: string;
  /** Closes the browser and removes its temp dir. */
  close(): Promise<void>;
}

export async function launchTestBrowser(name: string): Promise<TestBrowser> {
  const dir = await mkdtemp(join(tmpdir(), `${name}-chromium-`));
  const remove = () => rm(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
  const screenshots =
    process.env.MCPBOX_SCREENSHOTS === '1' ? README_SCREENSHOTS : join(dir, 'screenshots');
  let browser: Browser;
  try {
    await mkdir(screenshots, { recursive: true });
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      userDataDir: join(dir, 'profile'),
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
  } catch (error) {
    await remove();
    throw error;
  }
  return {
    browser,
    screenshots,
    close: async () => {
      await browser.close();
      await remove();
    },
  };
}

/**
 * Clicks a form's button and waits for the page the form leads to. The button is found and
 * clicked in one step inside the page: live pages swap their content every 1.5 s, and a button
 * found first and clicked later may be gone.
 */
export async function submitForm(
  page: Page,
  selector: string,
  wait: { timeout: number } = { timeout: 120_000 },
): Promise<void> {
  await page.waitForSelector(selector, wait);
  await Promise.all([
    page.waitForNavigation(wait),
    page.$eval(selector, (button) => (button as unknown as { click(): void }).click()),
  ]);
}

/**
 * A Chromium page logged in to mcp-proxy's console at `base` with the management `token`, at
 * the page `path`; the browser closes after the test. `text()` is the page's `<main>` text.
 */
export async function openConsole(
  t: { after(fn: () => unknown): void },
  { base, token, path, name }: { base: string; token: string; path: string; name: string },
  wait: { timeout: number } = { timeout: 120_000 },
): Promise<{ chromium: TestBrowser; page: Page; text(): Promise<string> }> {
  const chromium = await launchTestBrowser(name);
  t.after(() => chromium.close());
  const page = await chromium.browser.newPage();
  await page.setViewport({ width: 1280, height: 860 });
  await page.goto(`${base}/console/login`, wait);
  await page.type('#token', token);
  await submitForm(page, 'button[type=submit]', wait);
  await page.goto(`${base}${path}`, wait);
  return { chromium, page, text: () => page.$eval('main', (main) => main.textContent ?? '') };
}
