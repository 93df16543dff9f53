/**
 * mcp-proxy overhead benchmark, over stdio, sequential calls from one client:
 *
 * 1. a local plugin: `echo` through mcp-proxy against the same plugin through mcp-factory
 *    (baseline) — what the proxy's management layer, tool-call log and interceptors cost;
 * 2. a mirrored upstream tool: server-everything's `echo` through mcp-proxy (a `plugins:` entry
 *    with `command:`) against the SDK client calling server-everything directly (baseline) —
 *    what the extra hop costs.
 *
 * Rounds are interleaved (every round measures every server, in rotating order) so drift on the
 * machine hits all alike. Printed: median and p95 latency over all rounds, the best round's median
 * (least disturbed by other load on a shared machine), and each pair's ratios (target for the
 * local plugin: at most 1.1×).
 *
 * Tuning: BENCH_ROUNDS (3), BENCH_LATENCY_CALLS (300), BENCH_PAIRS (`local`, `mirrored`; both).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CALLS = Number(process.env.BENCH_LATENCY_CALLS ?? 300);
const WARMUP = 50;
const EVERYTHING = join(ROOT, 'node_modules/.bin/mcp-server-everything');

const home = mkdtempSync(join(tmpdir(), 'bench-proxy-'));
const config = join(home, 'proxy.yaml');
writeFileSync(
  config,
  `plugins:\n  everything:\n    command: ${JSON.stringify(EVERYTHING)}\n    args: [stdio]\nautoload: [everything]\n`,
);

interface Target {
  name: string;
  command: string;
  args: string[];
  /** The echo tool's arguments and a check of its answer. */
  tool: string;
}

const proxyBin = 'packages/proxy/bin/mcp-proxy.js';
const quiet = ['--log-level', 'warning', '--mgmt-port', '0'];
const ALL_PAIRS: Array<{ title: string; baseline: Target; subject: Target }> = [
  {
    title: 'local plugin echo',
    baseline: {
      name: 'mcp-factory',
      command: process.execPath,
      args: ['packages/proxy/bin/mcp-factory.js', '-p', 'echo', '--log-level', 'warning'],
      tool: 'echo',
    },
    subject: {
      name: 'mcp-proxy',
      command: process.execPath,
      args: [proxyBin, '-a', 'echo', ...quiet],
      tool: 'echo',
    },
  },
  {
    title: 'mirrored upstream echo (server-everything)',
    baseline: { name: 'SDK client → upstream', command: EVERYTHING, args: ['stdio'], tool: 'echo' },
    subject: {
      name: 'mcp-proxy → upstream',
      command: process.execPath,
      args: [proxyBin, '-c', config, ...quiet],
      tool: 'echo',
    },
  },
];

const wanted = process.env.BENCH_PAIRS?.split(',').map((s) => s.trim());
const PAIRS = ALL_PAIRS.filter((p) => !wanted || wanted.some((w) => p.title.includes(w)));

interface Running {
  target: Target;
  client: Client;
  samples: number[];
  /** Median of each round: the smallest is the figure least disturbed by other load. */
  roundMedians: number[];
}

async function start(target: Target): Promise<Running> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: target.command,
      args: target.args,
      cwd: ROOT,
      env: { ...(process.env as Record<string, string>), HOME: home },
      stderr: 'ignore',
    }),
  );
  return { target, client, samples: [], roundMedians: [] };
}

async function measure(run: Running, calls: number, keep: boolean): Promise<void> {
  const round: number[] = [];
  for (let i = 0; i < calls; i++) {
    const message = `hello ${i}`;
    const start = process.hrtime.bigint();
    const result = await run.client.callTool({ name: run.target.tool, arguments: { message } });
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    const text = (result.content as Array<{ text?: string }>)[0]?.text ?? '';
    if (result.isError || !text.includes(message)) {
      throw new Error(`${run.target.name}: unexpected result ${JSON.stringify(result)}`);
    }
    round.push(elapsed);
  }
  if (!keep) return;
  run.samples.push(...round);
  run.roundMedians.push(percentile(round, 50));
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function main(): Promise<void> {
  const runs: Running[] = [];
  try {
    for (const pair of PAIRS) {
      for (const target of [pair.baseline, pair.subject]) {
        const run = await start(target);
        runs.push(run);
        await measure(run, WARMUP, false);
      }
    }
    for (let round = 0; round < ROUNDS; round++) {
      const order = runs.map((_, i) => runs[(i + round) % runs.length]);
      for (const run of order) await measure(run, CALLS, true);
    }
    const byName = new Map(runs.map((r) => [r.target.name, r]));
    console.log(`stdio, sequential calls: ${ROUNDS} rounds × ${CALLS} calls, interleaved\n`);
    const rows = [['pair', 'server', 'median ms', 'p95 ms', 'ratio', 'best round ms', 'ratio']];
    for (const pair of PAIRS) {
      const base = byName.get(pair.baseline.name)!;
      const subject = byName.get(pair.subject.name)!;
      const baseMedian = percentile(base.samples, 50);
      const baseBest = Math.min(...base.roundMedians);
      for (const run of [base, subject]) {
        const median = percentile(run.samples, 50);
        const best = Math.min(...run.roundMedians);
        rows.push([
          pair.title,
          run.target.name,
          median.toFixed(3),
          percentile(run.samples, 95).toFixed(3),
          `${(median / baseMedian).toFixed(2)}×`,
          best.toFixed(3),
          `${(best / baseBest).toFixed(2)}×`,
        ]);
      }
    }
    const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
    for (const row of rows) {
      console.log(
        row
          .map((cell, c) => (c < 2 ? cell.padEnd(widths[c]) : cell.padStart(widths[c])))
          .join('  '),
      );
    }
  } finally {
    await Promise.allSettled(runs.map((r) => r.client.close()));
    rmSync(home, { recursive: true, force: true });
  }
}

await main();
