/**
 * A real `mcp-proxy` over HTTP that pins strictly and mirrors the framework's `upstream-pins`
 * server (SDK v2, stdio) as `upstream`: its `redefine` tool changes `greet`'s description and
 * schema on command, so a test can watch `greet` be quarantined and released. For the pin tests
 * of the management API, the CLI and the console.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fixtureParams } from '@mcpbox/framework/testing';
import { type ProxyProcess, REPO_ROOT, startHttpProxy, waitFor } from '@mcpbox/test-utils';
import type { Client } from '@modelcontextprotocol/client';
import { testdir } from './testdir.ts';

type After = { after(fn: () => unknown): void };

const UPSTREAM = fixtureParams('upstream-pins.ts').args.at(-1) as string;

export interface PinsProxy {
  proxy: ProxyProcess & { mcpUrl: string };
  /** The management API and console: `http://127.0.0.1:<port>`. */
  base: string;
}

/** Starts the proxy (stopped after the test), with `token` guarding management and console. */
export async function startPinsProxy(t: After, token: string): Promise<PinsProxy> {
  const dir = testdir({}, t);
  const config = join(dir, 'proxy.yaml');
  const lines = [
    'pins:',
    '  mode: strict',
    `  file: ${JSON.stringify(join(dir, 'pins.json'))}`,
    'plugins:',
    '  upstream:',
    `    command: ${JSON.stringify(process.execPath)}`,
    `    args: [--import, tsx, ${JSON.stringify(UPSTREAM)}]`,
    `    cwd: ${JSON.stringify(REPO_ROOT)}`,
  ];
  await writeFile(config, `${lines.join('\n')}\n`);
  const proxy = await startHttpProxy(t, ['--mgmt-token', token, '-c', config, '-a', 'upstream'], {
    env: { HOME: dir },
    timeoutMs: 90_000,
  });
  return { proxy, base: `http://127.0.0.1:${proxy.mgmtPort}` };
}

export const toolNames = async (client: Client) =>
  (await client.listTools()).tools.map((tool) => tool.name);

/** Waits until `client` lists `tool` (or, `listed: false`, no longer does). */
export function untilListed(client: Client, tool: string, listed = true): Promise<void> {
  return waitFor(
    async () => (await toolNames(client)).includes(tool) === listed,
    `${tool} to be ${listed ? 'listed' : 'held back'}`,
    60_000,
  );
}
