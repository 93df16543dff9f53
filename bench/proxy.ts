/**
 * mcp-proxy overhead benchmark, over stdio, sequential calls from one client:
 *
 * 1. a local plugin: `echo` through mcp-proxy against the same plugin through mcp-factory
 *    (baseline) — what the proxy's management layer, tool-call log and interceptors cost. Once
 *    with a 2025 client (the SDK default, `initialize`) and once with a client pinned to
 *    2026-07-28; each era has its own baseline. Target: at most 1.1×.
 * 2. a mirrored upstream tool: server-everything's `echo` through mcp-proxy (a `plugins:` entry
 *    with `command:`) against an SDK v2 client calling server-everything directly (baseline) —
 *    what the extra hop costs. server-everything is built on SDK v1, so the direct call is a
 *    2025 one and so is the proxy's upstream leg; the proxy's downstream client is measured in
 *    both eras against that one baseline. Target: at most 2.0×. Beside it, for reference, the
 *    same hop through the smallest relay the SDK allows (bench/peers/sdk-relay.ts: a bare SDK v2
 *    server whose tool awaits an SDK v2 client's call upstream): the floor any SDK-built
 *    gateway pays, so the proxy's figure splits into the SDK's share and mcp-proxy's own.
 *
 * Rounds are interleaved (every round measures every server, in rotating order) so drift on the
 * machine hits all alike. Printed: median and p95 latency over all rounds, the best round's median
 * (least disturbed by other load on a shared machine), the CPU time (user + system, from /proc)
 * the server side spent per call — the process the client started and its descendants, so the
 * mirrored rows count the proxy and its upstream together — and each figure's ratio to the
 * pair's baseline. The CPU figure barely moves when other work loads the machine. A server that
 * fails to start, to negotiate its era or to answer a call is reported in its row; the benchmark
 * then exits with 1.
 *
 * Last, issue 37's figure for the upstream hop, per client era: (mirrored echo through mcp-proxy −
 * local plugin echo through the same proxy) / (direct SDK client call to the same upstream) —
 * what the hop itself adds, the downstream side (the same in both) taken out. Target: at most
 * 1.1×. Printed from the medians over all rounds and as the range of the per-round figures
 * (each round measures all three back to back). Needs both pairs (BENCH_PAIRS unset). Beside
 * it, for reference, the same figure of the bare SDK relay, whose local counterpart is a bare SDK
 * v2 server answering `echo` itself (bench/peers/sdk-server.ts, a reference row of the local
 * pairs): the hop any SDK-built gateway adds.
 *
 * Tuning: BENCH_ROUNDS (3), BENCH_LATENCY_CALLS (300), BENCH_WARMUP_CALLS (50), BENCH_PAIRS
 * (`local`, `mirrored`; both), BENCH_ERAS (2025, 2026; both: the client eras of the subjects and
 * of the local baselines).
 */
import { join } from 'node:path';
import { type Era, FIRST_MODERN_VERSION } from '@mcpbox/framework';
import type { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { EVERYTHING, everythingProxyHome, ROOT } from './lib/everythingProxy.ts';
import {
  benchClient,
  benchEras,
  checkEra,
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
const CALLS = Number(process.env.BENCH_LATENCY_CALLS ?? 300);
const WARMUP = Number(process.env.BENCH_WARMUP_CALLS ?? 50);
const SDK_RELAY = join(ROOT, 'bench/peers/sdk-relay.ts');
const SDK_SERVER = join(ROOT, 'bench/peers/sdk-server.ts');

const { home, config, remove: removeHome } = everythingProxyHome('bench-proxy-');

interface Target {
  name: string;
  command: string;
  args: string[];
  /** The client's era: the SDK default (2025) or pinned to 2026-07-28. */
  era: Era;
  /** A reference row (the bare SDK relay): shown with its ratio, not held to the target. */
  reference?: boolean;
}

interface Pair {
  title: string;
  /** The most a subject's median may be, as a multiple of the baseline's (issue 13). */
  target: number;
  baseline: Target;
  subjects: Target[];
}

const proxyBin = 'packages/proxy/bin/mcp-proxy.js';
const quiet = ['--log-level', 'warning', '--mgmt-port', '0'];
const factory = (era: Era): Target => ({
  name: 'mcp-factory',
  command: process.execPath,
  args: ['packages/proxy/bin/mcp-factory.js', '-p', 'echo', '--log-level', 'warning'],
  era,
});
const localProxy = (era: Era): Target => ({
  name: 'mcp-proxy',
  command: process.execPath,
  args: [proxyBin, '-a', 'echo', ...quiet],
  era,
});
const mirroringProxy = (era: Era): Target => ({
  name: `mcp-proxy → upstream, ${eraLabel(era)} client`,
  command: process.execPath,
  args: [proxyBin, '-c', config, ...quiet],
  era,
});

const sdkRelay = (era: Era): Target => ({
  name: `bare SDK v2 relay → upstream, ${eraLabel(era)} client`,
  command: process.execPath,
  args: ['--import', 'tsx', SDK_RELAY, EVERYTHING, 'stdio'],
  era,
  reference: true,
});

/** The relay's local counterpart: the same bare SDK v2 server answering `echo` itself. */
const sdkServer = (era: Era): Target => ({
  name: 'bare SDK v2 server',
  command: process.execPath,
  args: ['--import', 'tsx', SDK_SERVER, 'stdio'],
  era,
  reference: true,
});

const wantedPairs = envList('BENCH_PAIRS');
const eras = benchEras();

const ALL_PAIRS: Pair[] = [
  ...eras.map((era) => ({
    title: `local plugin echo, ${eraLabel(era)} client`,
    target: 1.1,
    baseline: factory(era),
    subjects: [localProxy(era), sdkServer(era)],
  })),
  {
    title: 'mirrored upstream echo (server-everything)',
    target: 2.0,
    baseline: {
      name: 'SDK client → upstream',
      command: EVERYTHING,
      args: ['stdio'],
      era: 'legacy',
    },
    subjects: eras.flatMap((era) => [sdkRelay(era), mirroringProxy(era)]),
  },
];
const PAIRS = ALL_PAIRS.filter((p) => !wantedPairs || wantedPairs.some((w) => p.title.includes(w)));

interface Running {
  target: Target;
  pair: Pair;
  client: Client;
  /** The process the client started: the server, or the proxy in front of the upstream. */
  pid: number;
  version: string;
  samples: number[];
  /** Median of each round: the smallest is the figure least disturbed by other load. */
  roundMedians: number[];
  cpuMs: number;
  /** Why this server dropped out, if it did. */
  failure?: string;
}

async function start(pair: Pair, target: Target): Promise<Running> {
  const client = benchClient(target.era);
  const run: Running = {
    target,
    pair,
    client,
    pid: 0,
    version: '?',
    samples: [],
    roundMedians: [],
    cpuMs: 0,
  };
  const transport = new StdioClientTransport({
    command: target.command,
    args: target.args,
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), HOME: home },
    stderr: 'ignore',
  });
  try {
    // A 2026 pin probes `server/discover` on a short-lived sibling process first; the pid is
    // the process that serves the connection.
    await client.connect(transport);
    run.pid = transport.pid ?? 0;
    run.version = checkEra(client, target.era);
    await measure(run, WARMUP, false);
  } catch (error) {
    await fail(run, error, 'did not start: ');
  }
  return run;
}

async function measure(run: Running, calls: number, keep: boolean): Promise<void> {
  const { client } = run;
  const round: number[] = [];
  const cpuBefore = cpuTimeMs(run.pid);
  for (let i = 0; i < calls; i++) {
    const message = `hello ${i}`;
    const start = process.hrtime.bigint();
    const result = await client.callTool({ name: 'echo', arguments: { message } });
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    const text = (result.content as Array<{ text?: string }>)[0]?.text ?? '';
    if (result.isError || !text.includes(message)) {
      throw new Error(`unexpected result ${JSON.stringify(result)}`);
    }
    round.push(elapsed);
  }
  if (!keep) return;
  run.cpuMs += cpuTimeMs(run.pid) - cpuBefore;
  run.samples.push(...round);
  run.roundMedians.push(median(round));
}

/** Marks a run as failed and stops its server; later rounds skip it. */
async function fail(run: Running, error: unknown, prefix = ''): Promise<void> {
  run.failure = prefix + firstLine(error);
  process.stderr.write(`${run.pair.title}, ${run.target.name} failed: ${run.failure}\n`);
  await run.client.close().catch(() => {});
}

async function main(): Promise<boolean> {
  const runs: Running[] = [];
  try {
    for (const pair of PAIRS) {
      for (const target of [pair.baseline, ...pair.subjects]) runs.push(await start(pair, target));
    }
    for (let round = 0; round < ROUNDS; round++) {
      const order = runs.map((_, i) => runs[(i + round) % runs.length]);
      for (const run of order) {
        if (run.failure) continue;
        await measure(run, CALLS, true).catch((error) => fail(run, error));
      }
      process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
    }
  } finally {
    await Promise.allSettled(runs.map((r) => !r.failure && r.client.close()));
    removeHome();
  }

  const rows = [
    [
      'pair',
      'server',
      'protocol',
      'median ms',
      'p95 ms',
      'ratio',
      'best round ms',
      'ratio',
      'server CPU µs/call',
      'ratio',
      'target',
    ],
  ];
  const failures: string[] = [];
  const cpuPerCall = (run: Running) => (run.cpuMs * 1000) / run.samples.length;
  for (const pair of PAIRS) {
    const members = runs.filter((r) => r.pair === pair);
    const base = members.find((r) => r.target === pair.baseline && !r.failure);
    const baseMedian = base && median(base.samples);
    const baseBest = base && Math.min(...base.roundMedians);
    const baseCpu = base && cpuPerCall(base);
    for (const run of members) {
      if (run.failure) {
        failures.push(`${pair.title}, ${run.target.name}: ${run.failure}`);
        rows.push([pair.title, run.target.name, run.version, ...Array(8).fill('failed')]);
        continue;
      }
      const latency = median(run.samples);
      const best = Math.min(...run.roundMedians);
      const met = baseMedian && latency / baseMedian <= pair.target;
      rows.push([
        pair.title,
        run.target.name,
        run.version,
        latency.toFixed(3),
        percentile(run.samples, 95).toFixed(3),
        ratio(latency, baseMedian, '×'),
        best.toFixed(3),
        ratio(best, baseBest, '×'),
        cpuPerCall(run).toFixed(0),
        ratio(cpuPerCall(run), baseCpu, '×'),
        run === base || !baseMedian || run.target.reference
          ? ''
          : `${met ? 'met' : 'missed'} (≤ ${pair.target}×)`,
      ]);
    }
  }
  console.log(
    `\nstdio, sequential calls: ${ROUNDS} rounds × ${CALLS} calls, interleaved; 2026 clients are ` +
      `pinned to ${FIRST_MODERN_VERSION}, 2025 clients use the SDK default\n`,
  );
  console.log(table(rows, 3));
  const hops = hopRows(runs);
  if (hops.length > 1) {
    console.log(
      '\nthe upstream hop (issue 37): (mirrored echo via mcp-proxy − local echo via mcp-proxy) / direct SDK call\n',
    );
    console.log(table(hops, 1));
  }
  if (failures.length > 0) console.log(`\nfailed:\n${failures.map((f) => `  ${f}`).join('\n')}`);
  return failures.length === 0;
}

/** Issue 37's hop figure per era, from runs that all finished; a header row alone if none did. */
function hopRows(runs: Running[]): string[][] {
  const rows = [
    [
      'client',
      'mirrored ms',
      'local ms',
      'hop ms',
      'direct ms',
      'hop / direct',
      'per round',
      'target',
    ],
  ];
  const ok = (run: Running | undefined) => (run && !run.failure ? run : undefined);
  const mirroredPair = runs.filter((r) => r.pair.title.startsWith('mirrored'));
  const direct = ok(mirroredPair.find((r) => r.target === r.pair.baseline));
  if (!direct) return rows;
  // Ours, and for reference the same figure of the bare SDK relay (its local: the bare server).
  const kinds = [
    { label: '', mirrored: 'mcp-proxy →', local: 'mcp-proxy' },
    { label: ' (bare SDK v2 relay)', mirrored: 'bare SDK v2 relay', local: 'bare SDK v2 server' },
  ];
  for (const era of eras) {
    for (const kind of kinds) {
      const mirrored = ok(
        mirroredPair.find((r) => r.target.era === era && r.target.name.startsWith(kind.mirrored)),
      );
      const local = ok(
        runs.find(
          (r) =>
            r.pair.title.startsWith('local') &&
            r.target.era === era &&
            r.target.name === kind.local,
        ),
      );
      if (mirrored && local) rows.push(hopRow(eraLabel(era) + kind.label, mirrored, local, direct));
    }
  }
  return rows;
}

function hopRow(label: string, mirrored: Running, local: Running, direct: Running): string[] {
  const hop = median(mirrored.samples) - median(local.samples);
  const figure = hop / median(direct.samples);
  const perRound = mirrored.roundMedians.map(
    (m, i) => (m - local.roundMedians[i]) / direct.roundMedians[i],
  );
  return [
    label,
    median(mirrored.samples).toFixed(3),
    median(local.samples).toFixed(3),
    hop.toFixed(3),
    median(direct.samples).toFixed(3),
    `${figure.toFixed(2)}×`,
    `${Math.min(...perRound).toFixed(2)}–${Math.max(...perRound).toFixed(2)}×`,
    mirrored.target.reference ? '' : `${figure <= 1.1 ? 'met' : 'missed'} (≤ 1.1×)`,
  ];
}

process.exit((await main()) ? 0 : 1);
