/**
 * Cold start over stdio: from spawning a server to the answer of its first request, as an MCP
 * client that starts the server itself (Claude Desktop, Claude Code) waits for it every time.
 * The first request is the era's opening one: `initialize` for a 2025 client, the 2026-07-28
 * client's first request (pinned, no probe) for the other; `connect()` of the SDK client returns
 * when it is answered.
 *
 * Servers, each the compiled JavaScript an installed package runs (`npm run build` first):
 * - `sdk`: the baseline, a bare SDK v2 McpServer with the same echo tool, as plain .mjs
 *   (bench/peers/sdk-stdio.mjs);
 * - `mcp-factory`: `mcp-factory -p echo` (MCPBOX_BIN=dist: dist/, not the sources through tsx);
 * - `ipybox`: `ipybox --workspace <temp>` (its kernel starts on the first cell, not here).
 *
 * Rounds are interleaved (every server and era once per round, in a rotating order), so drift
 * on a shared machine hits all alike; medians, and each server's ratio to the bare SDK of the
 * same era, against the target of ≤ 1.3×. Exits 1 when a server fails to answer.
 *
 * Node: the servers run on BENCH_NODE (a path to a `node` binary; default the Node running this).
 * On Node >= 22.1 our bins turn on Node's compile cache (@mcpbox/framework/launch): here it lives
 * in a temporary XDG_CACHE_HOME that the unmeasured first start of each server fills, so the
 * rounds measure what every start after a client's first one costs; NODE_DISABLE_COMPILE_CACHE=1
 * measures without it. Node 20 has no compile cache. The bare SDK baseline does not turn it on.
 * A Node 22 to run them on: BENCH_NODE="$(npx -y -p node@22 node -p process.execPath)".
 *
 * Tuning: BENCH_ROUNDS (10), BENCH_SERVERS (comma-separated names; `sdk` always runs).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERAS, type Era } from '@mcpbox/framework';
import { coldStartMs } from './lib/echoServers.ts';
import { eraLabel } from './lib/measure.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const TARGET = 1.3;
const NODE = process.env.BENCH_NODE || process.execPath;
const workspace = mkdtempSync(join(tmpdir(), 'mcpbox-bench-startup-'));
const cacheHome = mkdtempSync(join(tmpdir(), 'mcpbox-bench-cache-'));

interface Server {
  name: string;
  args: string[];
}

const ALL: Server[] = [
  { name: 'sdk', args: [join(ROOT, 'bench/peers/sdk-stdio.mjs')] },
  { name: 'mcp-factory', args: [join(ROOT, 'packages/proxy/bin/mcp-factory.js'), '-p', 'echo'] },
  {
    name: 'ipybox',
    args: [join(ROOT, 'packages/ipybox/bin/ipybox.js'), '--workspace', workspace],
  },
];
const wanted = process.env.BENCH_SERVERS?.split(',');
const servers = ALL.filter((s) => s.name === 'sdk' || !wanted || wanted.includes(s.name));

for (const pkg of ['framework', 'proxy', 'ipybox']) {
  if (!existsSync(join(ROOT, 'packages', pkg, 'dist', 'index.js'))) {
    console.error(`packages/${pkg}/dist is missing: run \`npm run build\` first`);
    process.exit(1);
  }
}

/** The server's environment: compiled bins, and no `mcpbox-source` condition inherited. */
const env: Record<string, string> = { ...(process.env as Record<string, string>) };
env.MCPBOX_BIN = 'dist';
env.NODE_OPTIONS = (env.NODE_OPTIONS ?? '').replace(/--conditions=mcpbox-source/g, '').trim();
env.XDG_CACHE_HOME = cacheHome;

/** Milliseconds from spawn to the first answer. */
const coldStart = (server: Server, era: Era) => coldStartMs(NODE, server.args, env, era);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const samples = new Map<string, number[]>();
const failures: string[] = [];
// One unmeasured start of each, so the first round does not pay for cold disk caches alone.
for (const server of servers) await coldStart(server, 'legacy').catch(() => undefined);
for (let round = 0; round < ROUNDS; round++) {
  const order = servers.map((_, i) => servers[(i + round) % servers.length]);
  for (const era of ERAS) {
    for (const server of order) {
      const key = `${server.name} ${eraLabel(era)}`;
      try {
        const ms = await coldStart(server, era);
        samples.set(key, [...(samples.get(key) ?? []), ms]);
      } catch (error) {
        failures.push(`${key}: ${error instanceof Error ? error.message : error}`);
      }
    }
  }
}
rmSync(workspace, { recursive: true, force: true });
const compileCache = existsSync(join(cacheHome, 'mcpbox', 'node-compile-cache'))
  ? `on (${readdirSync(join(cacheHome, 'mcpbox', 'node-compile-cache')).join(', ')}), filled by the first start`
  : 'off';
rmSync(cacheHome, { recursive: true, force: true });

const nodeVersion = execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim();
console.log(`cold start over stdio, spawn to first answer: median of ${ROUNDS} interleaved rounds`);
console.log(`servers on Node ${nodeVersion}; our bins' compile cache: ${compileCache}`);
console.log('server        era   median ms   min ms   ratio to sdk');
for (const era of ERAS) {
  const base = median(samples.get(`sdk ${eraLabel(era)}`) ?? [Number.NaN]);
  for (const server of servers) {
    const values = samples.get(`${server.name} ${eraLabel(era)}`);
    if (!values) continue;
    const ratio = median(values) / base;
    const verdict =
      server.name === 'sdk'
        ? ''
        : ratio <= TARGET
          ? `(target ≤ ${TARGET}×: met)`
          : `(target ≤ ${TARGET}×: missed)`;
    console.log(
      `${server.name.padEnd(13)} ${eraLabel(era)}  ${median(values).toFixed(0).padStart(9)}  ${Math.min(
        ...values,
      )
        .toFixed(0)
        .padStart(7)}   ${ratio.toFixed(2)}× ${verdict}`,
    );
  }
}
for (const failure of failures) console.error(`failed: ${failure}`);
process.exit(failures.length > 0 ? 1 : 0);
