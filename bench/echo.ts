/**
 * Echo tool-call benchmark: mcp-factory (the real bin serving plugins/echo.ts) against a bare SDK
 * v2 `McpServer` (bench/peers/sdk-server.ts, the baseline) and the npm `fastmcp` framework
 * (bench/peers/fastmcp-server.ts), in four groups: stdio and Streamable HTTP, each with a client
 * of the 2025 era (`initialize`, the SDK client's default) and one pinned to 2026-07-28
 * (`server/discover`, per-request `_meta` envelope).
 *
 * The baseline of each group is the SDK's own entry for it: `serveStdio` (both eras) over stdio,
 * `createMcpHandler` for HTTP 2026 and one `McpServer` per session on the SDK's sessionful
 * transport for HTTP 2025. mcp-factory serves every group with the same command line (it decides
 * the era per stdio connection and per HTTP POST). fastmcp 4.x is built on SDK v1, so it runs in
 * the 2025 groups only. Every server process serves one group.
 *
 * - latency: sequential calls from one client; median and p95 over every round's samples.
 * - throughput: calls per second with 8 concurrent callers. Over HTTP they are 8 clients (2025:
 *   each with its own session; 2026: stateless requests); over stdio (one client per server
 *   process by nature) they are 8 concurrent requests in flight on the one connection.
 * - server CPU: CPU time (user + system, from /proc) the server process (with any children)
 *   spent per call during the throughput runs. Unlike wall-clock figures it barely moves when
 *   other work loads the machine, so it is the fairest comparison on a shared box. It is read in
 *   10 ms ticks: trust it with the default call counts, not with tiny smoke-test ones.
 *
 * Rounds are interleaved (each round measures every server of every group, in a rotating order)
 * so drift on the machine hits all of them alike. Every number is printed with its ratio to the
 * bare SDK of the same group, and mcp-factory's row with the issue's targets (median latency
 * ≤ 1.1× and throughput ≥ 1.0× the bare SDK). A server that fails to start, to negotiate its
 * group's era or to answer a call is reported in its row; the benchmark then exits with 1.
 *
 * Tuning: BENCH_ROUNDS (3), BENCH_LATENCY_CALLS (400), BENCH_THROUGHPUT_CALLS (2000),
 * BENCH_WARMUP_CALLS (500), BENCH_SERVERS (comma-separated names; the bare SDK always runs as the
 * baseline), BENCH_GROUPS (comma-separated, of stdio-2025, stdio-2026, http-2025, http-2026).
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { ERAS, FIRST_MODERN_VERSION } from '@mcpbox/framework';
import { measureLatency, measureThroughput } from './lib/echoCalls.ts';
import {
  blank,
  CONCURRENCY,
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
  eraLabel,
  firstLine,
  median,
  percentile,
  ratio,
  table,
} from './lib/measure.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const LATENCY_CALLS = Number(process.env.BENCH_LATENCY_CALLS ?? 400);
const THROUGHPUT_CALLS = Number(process.env.BENCH_THROUGHPUT_CALLS ?? 2000);
const WARMUP_CALLS = Number(process.env.BENCH_WARMUP_CALLS ?? 500); // the JIT settles by then
/** mcp-factory's targets against the bare SDK (issue 13). */
const TARGET_MEDIAN = 1.1;
const TARGET_RATE = 1.0;

const ALL_GROUPS: Group[] = (['stdio', 'http'] as const).flatMap((transport) =>
  ERAS.map((era) => ({ name: `${transport}-${eraLabel(era)}`, transport, era })),
);

const factory = ['packages/proxy/bin/mcp-factory.js', '-p', 'echo', '--log-level', 'warning'];
// mcp-factory keeps an SSE event store per 2025 session (Last-Event-ID resumption) by default;
// the bare SDK keeps none. The variant without it shows what resumability costs.
const scratch = benchScratch('bench-echo-');
const noResume = join(scratch, 'no-resume.yaml');
writeFileSync(noResume, 'resumable_streams: false\n');
const SERVERS: ServerKind[] = [
  {
    name: 'bare SDK',
    args: ({ transport, era }) => [
      '--import',
      'tsx',
      'bench/peers/sdk-server.ts',
      transport === 'stdio' ? 'stdio' : era === 'modern' ? 'http-modern' : 'http-legacy',
    ],
  },
  {
    name: 'mcp-factory',
    args: ({ transport }) => (transport === 'http' ? [...factory, '--http', '0'] : factory),
  },
  {
    name: 'mcp-factory, resumable_streams: false',
    args: ({ transport, era }) =>
      transport === 'http' && era === 'legacy'
        ? [...factory, '--http', '0', '-c', noResume]
        : undefined,
  },
  {
    name: 'fastmcp',
    args: ({ transport, era }) =>
      era === 'legacy'
        ? ['--import', 'tsx', 'bench/peers/fastmcp-server.ts', transport]
        : undefined,
  },
];

const wantedServers = envList('BENCH_SERVERS');
const wantedGroups = envList('BENCH_GROUPS');
const selected = SERVERS.filter(
  (k) => k.name === 'bare SDK' || !wantedServers || wantedServers.includes(k.name),
);
const groups = ALL_GROUPS.filter((g) => !wantedGroups || wantedGroups.includes(g.name));

/** Marks a run as failed and stops its server; later rounds skip it. */
async function drop(run: Running, error: unknown): Promise<void> {
  run.failure = firstLine(error);
  process.stderr.write(`${run.group.name} ${run.kind.name} failed: ${run.failure}\n`);
  await run.close().catch(() => {});
}

/**
 * Starts every selected server of every group and warms it up. A server that cannot start is
 * kept as a failed row, so the table says which server could not serve which group.
 */
async function startAll(runs: Running[]): Promise<void> {
  for (const group of groups) {
    for (const kind of selected) {
      const args = kind.args(group);
      if (!args) continue;
      try {
        const run =
          group.transport === 'stdio'
            ? await startStdio(kind, group, args)
            : await startHttp(kind, group, args);
        runs.push(run);
        try {
          await measureLatency(run, WARMUP_CALLS);
          await measureThroughput(run, WARMUP_CALLS * 2);
        } catch (error) {
          await drop(run, error);
        }
      } catch (error) {
        const failure = `did not start: ${firstLine(error)}`;
        process.stderr.write(`${group.name} ${kind.name} ${failure}\n`);
        const close = async () => {};
        runs.push({ kind, group, pid: 0, clients: [], version: '?', close, failure, ...blank() });
      }
    }
  }
}

/** The interleaved rounds: each measures every live run, starting one further along each time. */
async function measureRounds(runs: Running[]): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    const order = runs.map((_, i) => runs[(i + round) % runs.length]);
    for (const run of order) {
      if (run.failure) continue;
      try {
        run.latencies.push(...(await measureLatency(run, LATENCY_CALLS)));
        const cpuBefore = cpuTimeMs(run.pid);
        run.throughputs.push(await measureThroughput(run, THROUGHPUT_CALLS));
        run.cpuMs += cpuTimeMs(run.pid) - cpuBefore;
        run.cpuCalls += THROUGHPUT_CALLS;
      } catch (error) {
        await drop(run, error);
      }
    }
    process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
  }
}

const HEADER = [
  'group',
  'server',
  'protocol',
  'median ms',
  'p95 ms',
  'calls/s',
  '× SDK calls/s',
  '× SDK median',
  'server CPU µs/call',
  '× SDK CPU',
  'targets',
];

const cpuPerCall = (run: Running) => (run.cpuMs * 1000) / run.cpuCalls;

/** mcp-factory's verdict against the issue's targets, or '' for the other servers. */
function targetsOf(run: Running, baseRate?: number, baseMedian?: number): string {
  if (!run.kind.name.startsWith('mcp-factory') || !baseRate || !baseMedian) return '';
  const misses = [
    median(run.latencies) / baseMedian > TARGET_MEDIAN ? 'median' : '',
    median(run.throughputs) / baseRate < TARGET_RATE ? 'calls/s' : '',
  ].filter(Boolean);
  return misses.length === 0 ? 'met' : `missed: ${misses.join(', ')}`;
}

/** One table row per run, group by group, each with its ratios to the bare SDK of its group. */
function resultRows(runs: Running[]): { rows: string[][]; failures: string[] } {
  const rows = [HEADER];
  const failures: string[] = [];
  for (const group of groups) {
    const members = runs.filter((r) => r.group === group);
    const base = members.find((r) => r.kind.name === 'bare SDK' && !r.failure);
    const baseRate = base && median(base.throughputs);
    const baseMedian = base && median(base.latencies);
    const baseCpu = base && cpuPerCall(base);
    for (const run of members) {
      if (run.failure) {
        failures.push(`${group.name} ${run.kind.name}: ${run.failure}`);
        rows.push([group.name, run.kind.name, run.version, ...Array(8).fill('failed')]);
        continue;
      }
      const rate = median(run.throughputs);
      const latency = median(run.latencies);
      rows.push([
        group.name,
        run.kind.name,
        run.version,
        latency.toFixed(3),
        percentile(run.latencies, 95).toFixed(3),
        rate.toFixed(0),
        ratio(rate, baseRate),
        ratio(latency, baseMedian),
        cpuPerCall(run).toFixed(0),
        ratio(cpuPerCall(run), baseCpu),
        targetsOf(run, baseRate, baseMedian),
      ]);
    }
  }
  return { rows, failures };
}

function printReport(rows: string[][], failures: string[]): void {
  console.log(
    `\necho tool call — ${ROUNDS} interleaved rounds × ${LATENCY_CALLS} sequential calls (latency) and ` +
      `${THROUGHPUT_CALLS} calls from ${CONCURRENCY} concurrent callers (throughput)\n` +
      `node ${process.version}, ${cpus().length} CPUs; throughput is the median over rounds; ` +
      `2026 clients are pinned to ${FIRST_MODERN_VERSION}, 2025 clients use the SDK default\n`,
  );
  console.log(table(rows, 3));
  console.log(
    '\n× SDK calls/s above 1 is faster than the bare SDK; × SDK median and × SDK CPU below 1 are ' +
      `faster (cheaper). Targets for mcp-factory: median ≤ ${TARGET_MEDIAN}×, calls/s ≥ ` +
      `${TARGET_RATE}× the bare SDK of its group.`,
  );
  if (failures.length > 0) console.log(`\nfailed:\n${failures.map((f) => `  ${f}`).join('\n')}`);
}

async function main(): Promise<boolean> {
  const runs: Running[] = [];
  const stopAll = () => Promise.allSettled(runs.filter((r) => !r.failure).map((r) => r.close()));
  process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));
  try {
    await startAll(runs);
    await measureRounds(runs);
  } finally {
    await stopAll();
  }
  const { rows, failures } = resultRows(runs);
  printReport(rows, failures);
  return failures.length === 0;
}

process.exit((await main()) ? 0 : 1);
