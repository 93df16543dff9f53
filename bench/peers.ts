/**
 * The published comparison (README, "Speed"): mcp-factory against the raw floor (a bare JSON-RPC
 * loop, no MCP library: bench/peers/floor-server.ts), tmcp, the bare SDK v2, fastmcp,
 * mcp-handler and mcp-use, each serving the same `echo` tool, on one table:
 *
 * - HTTP 2025-11-25 (`initialize`, the SDK client's default) and HTTP 2026-07-28 (stateless,
 *   pinned client): median latency of sequential calls from one client, throughput (calls/s)
 *   with BENCH_CLIENTS (50) clients calling at once, and the server's resident memory (RSS)
 *   right after those calls;
 * - stdio 2025 and 2026: median latency from the one client;
 * - in every group, the CPU time the server spent per sequential call (read from /proc, steadier
 *   than wall clock where scheduling decides a call's latency, as over stdio);
 * - cold start over stdio: spawn to the answer of `initialize`, a fresh process each time.
 *
 * Every server is the compiled JavaScript a user runs: mcp-factory's dist/ bin (`-p echo`), and
 * the peers (bench/peers/*-server.ts) bundled by esbuild into bench/.tmp-peers-node<N>/
 * (packages stay external), so no TypeScript loader runs in any server. The Fetch-based peers (tmcp,
 * mcp-handler) and the SDK listen on node:http behind the SDK's own Node adapter and localhost
 * guards (bench/peers/listen.ts); mcp-use on its own listener; fastmcp on its own.
 *
 * Each group (transport and era) starts its servers, warms them up (long enough for the JIT to
 * have compiled the hot path: a server serves for long, its first calls are cold start), then
 * measures them in
 * interleaved rounds (a rotating order), so drift on a shared machine hits all alike: take the
 * ratios (of medians), not the absolute figures. A cell is `n/a` where the framework does not
 * serve that path; a server that fails to start, to negotiate the era or to answer makes the
 * run exit 1.
 *
 * Tuning: BENCH_ROUNDS (3), BENCH_LATENCY_CALLS (1000), BENCH_THROUGHPUT_CALLS (1000),
 * BENCH_WARMUP_CALLS (3000), BENCH_CLIENTS (50), BENCH_COLD_ROUNDS (5), BENCH_SERVERS
 * (comma-separated column names), BENCH_GROUPS (of http-2025, http-2026, stdio-2025,
 * stdio-2026, cold-start). On Node 22: `npx -y -p node@22 node --conditions=mcpbox-source
 * --import tsx bench/peers.ts` (the servers run on the Node that runs this).
 */
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { measureLatency, measureThroughput } from './lib/echoCalls.ts';
import {
  coldStartMs,
  type Group,
  type Running,
  type ServerKind,
  startHttp,
  startStdio,
} from './lib/echoServers.ts';
import {
  benchScratch,
  cpuTimeMs,
  envList,
  firstLine,
  median,
  rssMb,
  table,
} from './lib/measure.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const LATENCY_CALLS = Number(process.env.BENCH_LATENCY_CALLS ?? 1000);
const THROUGHPUT_CALLS = Number(process.env.BENCH_THROUGHPUT_CALLS ?? 1000);
const WARMUP_CALLS = Number(process.env.BENCH_WARMUP_CALLS ?? 3000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 50);
const COLD_ROUNDS = Number(process.env.BENCH_COLD_ROUNDS ?? 5);
const OURS = 'mcp-factory';
benchScratch('bench-peers-');

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PEER_FILES = ['floor', 'tmcp', 'sdk', 'fastmcp', 'handler', 'mcp-use'].map(
  (name) => `bench/peers/${name}-server.ts`,
);
// One directory per Node major, so runs on two Nodes at once never read each other's half-written
// files; beside bench/peers/, so the bundles resolve packages as the sources do.
const OUT = `bench/.tmp-peers-node${process.versions.node.split('.')[0]}`;
await build({
  entryPoints: PEER_FILES.map((f) => `${ROOT}${f}`),
  outdir: `${ROOT}${OUT}`,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
});
/** A peer's compiled entry; its imports resolve from bench/ (bench/node_modules first). */
const peer = (name: string, ...args: string[]) => [`${OUT}/${name}-server.mjs`, ...args];

/** Each column: how to start it per group, or undefined where the framework does not serve it. */
const COLUMNS: ServerKind[] = [
  { name: 'raw floor', args: (g) => peer('floor', g.transport) },
  { name: 'tmcp', args: (g) => peer('tmcp', g.transport) },
  {
    name: 'bare SDK',
    args: ({ transport, era }) =>
      peer(
        'sdk',
        transport === 'stdio' ? 'stdio' : era === 'modern' ? 'http-modern' : 'http-legacy',
      ),
  },
  // fastmcp 4.x is built on SDK v1: it has no 2026-07-28 era.
  { name: 'fastmcp', args: (g) => (g.era === 'legacy' ? peer('fastmcp', g.transport) : undefined) },
  { name: 'mcp-handler', args: (g) => (g.transport === 'http' ? peer('handler') : undefined) },
  { name: 'mcp-use', args: (g) => (g.transport === 'http' ? peer('mcp-use') : undefined) },
  {
    name: OURS,
    args: ({ transport }) => [
      'packages/proxy/bin/mcp-factory.js',
      '-p',
      'echo',
      '--log-level',
      'warning',
      ...(transport === 'http' ? ['--http', '0'] : []),
    ],
  },
];

const GROUPS: Group[] = [
  { name: 'http-2025', transport: 'http', era: 'legacy' },
  { name: 'http-2026', transport: 'http', era: 'modern' },
  { name: 'stdio-2025', transport: 'stdio', era: 'legacy' },
  { name: 'stdio-2026', transport: 'stdio', era: 'modern' },
];
const wantedServers = envList('BENCH_SERVERS');
const wantedGroups = envList('BENCH_GROUPS');
const columns = COLUMNS.filter((c) => !wantedServers || wantedServers.includes(c.name));
const groups = GROUPS.filter((g) => !wantedGroups || wantedGroups.includes(g.name));

/** Measured samples per `row label`, then per column; a string is a failure. */
const cells = new Map<string, Map<string, number[] | string>>();
const record = (row: string, column: string, value: number | string) => {
  const row_ = cells.get(row) ?? new Map<string, number[] | string>();
  cells.set(row, row_);
  const had = row_.get(column);
  if (typeof had === 'string') return;
  row_.set(column, typeof value === 'string' ? value : [...(had ?? []), value]);
};
const negotiated: string[] = [];

interface RowLabels {
  latency: string;
  cpu: string;
  /** HTTP only: throughput and memory with many clients. */
  rate?: string;
  rss?: string;
}

const rows = (g: Group): RowLabels => ({
  latency: `${g.name} median latency ms`,
  cpu: `${g.name} server CPU µs per call`,
  ...(g.transport === 'http' && {
    rate: `${g.name} calls/s at ${CLIENTS} clients`,
    rss: `${g.name} RSS MB at ${CLIENTS} clients`,
  }),
});

/** One group: start its servers, warm them up, measure in interleaved rounds, stop them. */
async function measureGroup(group: Group): Promise<void> {
  const labels = rows(group);
  const runs: Running[] = [];
  const fail = async (name: string, error: unknown, run?: Running) => {
    for (const label of Object.values(labels)) record(label, name, `failed: ${firstLine(error)}`);
    process.stderr.write(`${group.name} ${name} failed: ${firstLine(error)}\n`);
    if (run) {
      run.failure = firstLine(error);
      await run.close().catch(() => {});
    }
  };
  try {
    for (const kind of columns) {
      const args = kind.args(group);
      if (!args) continue;
      try {
        const run =
          group.transport === 'stdio'
            ? await startStdio(kind, group, args)
            : await startHttp(kind, group, args, CLIENTS);
        runs.push(run);
        negotiated.push(`${group.name} ${kind.name}: ${run.version}`);
        await measureLatency(run, WARMUP_CALLS)
          .then(() =>
            group.transport === 'http' ? measureThroughput(run, WARMUP_CALLS, CLIENTS) : 0,
          )
          .catch((e) => fail(kind.name, e, run));
      } catch (error) {
        await fail(kind.name, error);
      }
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const run of runs.map((_, i) => runs[(i + round) % runs.length])) {
        if (run.failure) continue;
        try {
          const cpuBefore = cpuTimeMs(run.pid);
          for (const ms of await measureLatency(run, LATENCY_CALLS))
            record(labels.latency, run.kind.name, ms);
          record(
            labels.cpu,
            run.kind.name,
            ((cpuTimeMs(run.pid) - cpuBefore) * 1000) / LATENCY_CALLS,
          );
          if (labels.rate && labels.rss) {
            record(
              labels.rate,
              run.kind.name,
              await measureThroughput(run, THROUGHPUT_CALLS, CLIENTS),
            );
            record(labels.rss, run.kind.name, rssMb(run.pid));
          }
        } catch (error) {
          await fail(run.kind.name, error, run);
        }
      }
      process.stderr.write(`${group.name}: round ${round + 1}/${ROUNDS} done\n`);
    }
  } finally {
    await Promise.allSettled(runs.filter((r) => !r.failure).map((r) => r.close()));
  }
}

/** Cold starts over stdio (2025 `initialize`), interleaved: a fresh process per sample. */
async function measureColdStarts(): Promise<void> {
  const label = 'stdio cold start ms (spawn → initialize answered)';
  const env = process.env as Record<string, string>;
  const stdio: Group = { name: 'cold-start', transport: 'stdio', era: 'legacy' };
  const kinds = columns.filter((c) => c.args(stdio));
  for (let round = 0; round <= COLD_ROUNDS; round++) {
    for (const kind of kinds.map((_, i) => kinds[(i + round) % kinds.length])) {
      try {
        const ms = await coldStartMs(process.execPath, kind.args(stdio) ?? [], env, 'legacy');
        // Round 0 only warms the disk caches.
        if (round > 0) record(label, kind.name, ms);
      } catch (error) {
        record(label, kind.name, `failed: ${firstLine(error)}`);
      }
    }
  }
}

for (const group of groups) await measureGroup(group);
if (!wantedGroups || wantedGroups.includes('cold-start')) await measureColdStarts();

/** A cell: the median (one decimal, or none from 100 up), `n/a` or `failed`. */
function cellOf(value: number[] | string | undefined): string {
  if (value === undefined) return 'n/a';
  if (typeof value === 'string') return 'failed';
  const m = median(value);
  return m >= 100 ? m.toFixed(0) : m >= 1 ? m.toFixed(1) : m.toFixed(3);
}

/** `ours / base` of the medians, as `1.23×`. */
function ratioOf(row: Map<string, number[] | string>, base: string): string {
  const [a, b] = [row.get(OURS), row.get(base)];
  if (!Array.isArray(a) || !Array.isArray(b)) return '—';
  return `${(median(a) / median(b)).toFixed(2)}×`;
}

const header = ['path', ...columns.map((c) => c.name), `${OURS} / tmcp`, `${OURS} / floor`];
const body = [...cells].map(([label, row]) => [
  label,
  ...columns.map((c) => cellOf(row.get(c.name))),
  ratioOf(row, 'tmcp'),
  ratioOf(row, 'raw floor'),
]);
const failures = [...cells].flatMap(([label, row]) =>
  [...row].filter(([, v]) => typeof v === 'string').map(([name, v]) => `${label}, ${name}: ${v}`),
);

console.log(
  `\nMCP echo servers side by side — ${ROUNDS} interleaved rounds × ${LATENCY_CALLS} sequential ` +
    `calls (latency) and ${THROUGHPUT_CALLS} calls from ${CLIENTS} HTTP clients (throughput); ` +
    `${COLD_ROUNDS} cold starts each\nnode ${process.version} (servers too), load average ` +
    `${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (1, 5, 15 min) at the end\n`,
);
console.log(table([header, ...body], 1));
console.log(
  '\nmedians over all samples; ratios are of medians (below 1 is better for ms, µs and MB, above 1 ' +
    'for calls/s). n/a: the framework does not serve that path.',
);
console.log(`negotiated: ${negotiated.join('; ')}`);
if (failures.length > 0) console.log(`\nfailed:\n${failures.map((f) => `  ${f}`).join('\n')}`);
process.exit(failures.length > 0 ? 1 : 0);
