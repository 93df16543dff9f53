/**
 * The upstream the gateway benchmarks (bench/proxy.ts, bench/gateways.ts) put behind a proxy:
 * server-everything over stdio, and an mcp-proxy home whose config mirrors it as `everything`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const EVERYTHING = join(ROOT, 'node_modules/.bin/mcp-server-everything');

/** A scratch home (`HOME` for the proxy) and its config mirroring server-everything. */
export function everythingProxyHome(prefix: string): {
  home: string;
  config: string;
  remove(): void;
} {
  const home = mkdtempSync(join(tmpdir(), prefix));
  const config = join(home, 'proxy.yaml');
  writeFileSync(
    config,
    `plugins:\n  everything:\n    command: ${JSON.stringify(EVERYTHING)}\n    args: [stdio]\nautoload: [everything]\n`,
  );
  return { home, config, remove: () => rmSync(home, { recursive: true, force: true }) };
}
