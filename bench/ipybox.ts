/**
 * ipybox MCP server benchmark, in both protocol eras (a 2025 client and one pinned to
 * 2026-07-28, each driving its own real `ipybox` bin over stdio), two questions:
 *
 * 1. What does the MCP layer cost? `execute_ipython_cell('x += 1')` through ipybox against
 *    `KernelClient.execute('x += 1')` on a kernel this process owns (the baseline: the same kernel
 *    client without MCP, tool server or streaming). Target (issue 37): ≤ +0.6 ms median. Beside
 *    them, the same cell through a bare JSON-RPC stdio loop around `KernelClient.execute`, no MCP
 *    library (bench/peers/floor-server.ts --kernel: the raw floor, what the extra process and
 *    pipe cost), and through the smallest MCP server that can run one (bench/peers/sdk-kernel.ts:
 *    a bare SDK v2 server over stdio whose tool awaits `KernelClient.execute`): the figure splits
 *    into the raw floor, the SDK's share and ipybox's own.
 * 2. What does a tool call from kernel code cost? `echo.run(...)` from a cell — generated module →
 *    tool server (HTTP, token) → approval (auto) → cached MCP connection → the upstream — timed
 *    inside the kernel, against the same upstream called directly from Node by an SDK client of
 *    the same era (the baseline). The upstream is `server-everything` (a 2025 server) for the 2025
 *    row and the 2026-only SDK v2 fixture `upstream-modern` for the 2026 row, so ipybox's own
 *    upstream client speaks the row's era too. Target (issue 37): ≤ 1.5×. Beside it, the same
 *    call from the same kernel through a bare relay process (bench/peers/kernel-relay.ts: the
 *    same three processes, no tool server logic, the baseline's SDK client): what the extra hop
 *    itself costs, so the figure splits into the hop and ipybox's own share.
 *
 * Blocks of calls alternate between each subject and its baseline (order rotating), so both see
 * the same machine; ratios are of medians. CPU time per call (user + system, from /proc) is
 * printed too, for the whole path: ipybox with its kernel and upstream against this process's own
 * client side plus the baseline's kernel or upstream. Unlike the wall-clock figures it barely moves
 * when other work loads the machine (read in 10 ms ticks: trust it over hundreds of calls).
 *
 * Tuning: BENCH_ROUNDS (5), BENCH_PER_ROUND (40 calls per subject per round), BENCH_ERAS (2025,2026).
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Era } from '@mcpbox/framework';
import { fixtureParams } from '@mcpbox/framework/testing';
import { KernelClient } from '@mcpbox/ipybox';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { startKernelRelay, timingCell, type Upstream } from './lib/kernelToolCalls.ts';
import {
  benchClient,
  benchEras,
  checkEra,
  cpuTimeMs,
  eraLabel,
  median,
  percentile,
  table,
} from './lib/measure.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PER_ROUND = Number(process.env.BENCH_PER_ROUND ?? 40);
const eras = benchEras();
const BLOCK = 10;
const IPYBOX = fileURLToPath(new URL('../packages/ipybox/bin/ipybox.js', import.meta.url));
const SDK_KERNEL = fileURLToPath(new URL('./peers/sdk-kernel.ts', import.meta.url));
const RAW_KERNEL = fileURLToPath(new URL('./peers/floor-server.ts', import.meta.url));
const EVERYTHING = fileURLToPath(
  new URL('../node_modules/.bin/mcp-server-everything', import.meta.url),
);

/** The upstream each era's tool-call row uses: one that speaks that era. */
const UPSTREAMS: Record<Era, Upstream> = {
  legacy: {
    params: { command: EVERYTHING, args: ['stdio'] },
    tool: 'echo',
    args: { message: 'hi' },
  },
  modern: { params: fixtureParams('upstream-modern.ts'), tool: 'echo', args: { text: 'hi' } },
};

const ms = (value: number) => `${value.toFixed(2)} ms`;

function text(result: unknown): string {
  return ((result as CallToolResult).content ?? [])
    .map((item) => (item.type === 'text' ? item.text : ''))
    .join('');
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name}: ${text(result)}`);
  return result;
}

async function connect(era: Era, command: string, args: string[], cwd?: string) {
  const transport = new StdioClientTransport({
    command,
    args,
    cwd,
    env: process.env as Record<string, string>,
    stderr: 'ignore',
  });
  const client = benchClient(era);
  await client.connect(transport);
  checkEra(client, era);
  return { client, pid: transport.pid as number };
}

/** This process's CPU time (user + system) so far, in ms. */
function selfCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** CPU time spent in `subjects` while `work` runs, in ms (each a pid tree, or this process). */
async function cpuDuring(subjects: (number | 'self')[], work: () => Promise<void>) {
  const read = () =>
    subjects.reduce<number>((sum, s) => sum + (s === 'self' ? selfCpuMs() : cpuTimeMs(s)), 0);
  const before = read();
  await work();
  return read() - before;
}

interface EraSamples {
  viaMcp: number[];
  viaClient: number[];
  viaSdk: number[];
  viaRaw: number[];
  fromKernel: number[];
  fromRelay: number[];
  fromNode: number[];
  /** Total CPU ms of each path, over all its calls. */
  cpu: {
    viaMcp: number;
    viaClient: number;
    viaSdk: number;
    viaRaw: number;
    fromKernel: number;
    fromRelay: number;
    fromNode: number;
  };
}

type Connected = Awaited<ReturnType<typeof connect>>;

/** What one era measures: ipybox, the kernel client beside it, a bare SDK tool, the upstream. */
interface Subjects {
  upstream: Upstream;
  ipybox: Connected;
  direct: KernelClient;
  sdk: Connected;
  raw: Connected;
  node: Connected;
  /** The bare relay (its pid, the Unix socket kernel code reaches it on). */
  relay: { process: ChildProcess; socket: string };
}

async function openSubjects(era: Era, workspace: string): Promise<Subjects> {
  const upstream = UPSTREAMS[era];
  const ipybox = await connect(era, process.execPath, [
    IPYBOX,
    '--workspace',
    workspace,
    '--log-level',
    'warning',
  ]);
  const direct = new KernelClient({ cwd: workspace, imagesDir: join(workspace, 'images') });
  const sdk = await connect(era, process.execPath, ['--import', 'tsx', SDK_KERNEL, workspace]);
  const raw = await connect(era, process.execPath, [
    '--import',
    'tsx',
    RAW_KERNEL,
    'stdio',
    '--kernel',
    workspace,
  ]);
  const node = await connect(
    era,
    upstream.params.command,
    upstream.params.args ?? [],
    upstream.params.cwd,
  );
  const socket = join(workspace, 'relay.sock');
  const relay = await startKernelRelay(era, upstream, socket);
  return { upstream, ipybox, direct, sdk, raw, node, relay: { process: relay, socket } };
}

/** Kernels started, x defined, the upstream registered and connected, every path run a little. */
async function warmUp({
  upstream,
  ipybox,
  direct,
  sdk,
  raw,
  node,
  relay,
}: Subjects): Promise<void> {
  await call(ipybox.client, 'execute_ipython_cell', { code: 'x = 0' });
  await direct.execute('x = 0');
  await call(sdk.client, 'execute_ipython_cell', { code: 'x = 0' });
  await call(raw.client, 'execute_ipython_cell', { code: 'x = 0' });
  await call(ipybox.client, 'register_mcp_server', {
    server_name: 'up',
    server_params: upstream.params,
  });
  await call(ipybox.client, 'execute_ipython_cell', {
    code: timingCell(upstream, relay.socket),
  });
  for (let i = 0; i < 20; i++) {
    await call(ipybox.client, 'execute_ipython_cell', { code: 'x += 1' });
    await call(sdk.client, 'execute_ipython_cell', { code: 'x += 1' });
    await call(raw.client, 'execute_ipython_cell', { code: 'x += 1' });
    await call(node.client, upstream.tool, upstream.args);
  }
  await call(ipybox.client, 'execute_ipython_cell', { code: '_bench(20); _bench(20, _relay_run)' });
}

/** Times BLOCK runs of `once` into `samples[key]`, and their CPU time in `subjects` into its CPU. */
async function timeBlock(
  samples: EraSamples,
  key: keyof EraSamples['cpu'],
  subjects: (number | 'self')[],
  once: () => Promise<unknown>,
): Promise<void> {
  samples.cpu[key] += await cpuDuring(subjects, async () => {
    for (let i = 0; i < BLOCK; i++) {
      const t = performance.now();
      await once();
      samples[key].push(performance.now() - t);
    }
  });
}

/** One block of every path; `turn` rotates which goes first, so none always runs warm or cold. */
async function measureBlock(s: Subjects, samples: EraSamples, turn: number): Promise<void> {
  const cell = (client: Client) => () => call(client, 'execute_ipython_cell', { code: 'x += 1' });
  const cells = [
    () => timeBlock(samples, 'viaMcp', ['self', s.ipybox.pid], cell(s.ipybox.client)),
    () =>
      timeBlock(samples, 'viaClient', ['self', s.direct.pid as number], () =>
        s.direct.execute('x += 1'),
      ),
    () => timeBlock(samples, 'viaSdk', ['self', s.sdk.pid], cell(s.sdk.client)),
    () => timeBlock(samples, 'viaRaw', ['self', s.raw.pid], cell(s.raw.client)),
  ];
  // Every block goes first, second and last in turn.
  for (let i = 0; i < cells.length; i++) await cells[(turn + i) % cells.length]();

  // The cell around the calls is measured too: a small, fixed share of BLOCK calls.
  const fromCell = async (key: 'fromKernel' | 'fromRelay', code: string, pids: number[]) => {
    samples.cpu[key] += await cpuDuring(pids, async () => {
      const r = await call(s.ipybox.client, 'execute_ipython_cell', { code });
      samples[key].push(...(JSON.parse(text(r)) as number[]));
    });
  };
  const tools = [
    () => fromCell('fromKernel', `print(_bench(${BLOCK}))`, [s.ipybox.pid]),
    () =>
      fromCell('fromRelay', `print(_bench(${BLOCK}, _relay_run))`, [
        s.ipybox.pid,
        s.relay.process.pid as number,
      ]),
    () =>
      timeBlock(samples, 'fromNode', ['self', s.node.pid], () =>
        call(s.node.client, s.upstream.tool, s.upstream.args),
      ),
  ];
  for (let i = 0; i < tools.length; i++) await tools[(turn + i) % tools.length]();
}

async function measureEra(era: Era): Promise<EraSamples> {
  const workspace = mkdtempSync(join(tmpdir(), 'bench-ipybox-'));
  const subjects = await openSubjects(era, workspace);
  const samples: EraSamples = {
    viaMcp: [],
    viaClient: [],
    viaSdk: [],
    viaRaw: [],
    fromKernel: [],
    fromRelay: [],
    fromNode: [],
    cpu: {
      viaMcp: 0,
      viaClient: 0,
      viaSdk: 0,
      viaRaw: 0,
      fromKernel: 0,
      fromRelay: 0,
      fromNode: 0,
    },
  };
  try {
    await warmUp(subjects);
    for (let round = 0; round < ROUNDS; round++) {
      for (let done = 0; done < PER_ROUND; done += BLOCK) {
        await measureBlock(subjects, samples, round + done / BLOCK);
      }
    }
    return samples;
  } finally {
    const { ipybox, direct, sdk, raw, node, relay } = subjects;
    relay.process.stdin?.end();
    await Promise.allSettled([
      once(relay.process, 'exit'),
      ipybox.client.close(),
      direct.close(),
      sdk.client.close(),
      raw.client.close(),
      node.client.close(),
    ]);
    rmSync(workspace, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(
    `machine: ${cpus().length} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; ${ROUNDS} rounds × ${PER_ROUND} calls per subject and era`,
  );
  const rows: string[][] = [
    ['era', 'subject', 'median', 'p95', 'n', 'vs baseline', 'CPU/call', 'vs baseline'],
  ];
  const verdicts: string[] = [];
  for (const era of eras) {
    const s = await measureEra(era);
    const perCall = (key: keyof EraSamples['cpu']) => s.cpu[key] / s[key].length;
    const row = (subject: string, key: keyof EraSamples['cpu'], versus: string, cpuVs: string) =>
      rows.push([
        eraLabel(era),
        subject,
        ms(median(s[key])),
        ms(percentile(s[key], 95)),
        String(s[key].length),
        versus,
        ms(perCall(key)),
        cpuVs,
      ]);
    const overhead = median(s.viaMcp) - median(s.viaClient);
    const factor = median(s.fromKernel) / median(s.fromNode);
    const cpuOverhead = perCall('viaMcp') - perCall('viaClient');
    const cpuFactor = perCall('fromKernel') / perCall('fromNode');
    row(
      "execute_ipython_cell('x += 1') via ipybox (stdio)",
      'viaMcp',
      `+${ms(overhead)}`,
      `+${ms(cpuOverhead)}`,
    );
    row("KernelClient.execute('x += 1') (baseline)", 'viaClient', '', '');
    const rawFloor = median(s.viaRaw) - median(s.viaClient);
    row(
      'same cell via a bare JSON-RPC stdio loop (no MCP library, the raw floor)',
      'viaRaw',
      `+${ms(rawFloor)}`,
      `+${ms(perCall('viaRaw') - perCall('viaClient'))}`,
    );
    const floor = median(s.viaSdk) - median(s.viaClient);
    const cpuFloor = perCall('viaSdk') - perCall('viaClient');
    row(
      'same cell via a bare SDK v2 tool (stdio, the MCP floor)',
      'viaSdk',
      `+${ms(floor)}`,
      `+${ms(cpuFloor)}`,
    );
    row(
      'tool call from kernel code (generated module)',
      'fromKernel',
      `${factor.toFixed(2)}×`,
      `${cpuFactor.toFixed(2)}×`,
    );
    const relayFactor = median(s.fromRelay) / median(s.fromNode);
    row(
      'same tool via a bare relay process (kernel → relay → upstream, the hop alone)',
      'fromRelay',
      `${relayFactor.toFixed(2)}×`,
      `${(perCall('fromRelay') / perCall('fromNode')).toFixed(2)}×`,
    );
    row('same tool, SDK client → upstream (baseline)', 'fromNode', '', '');
    verdicts.push(
      `${eraLabel(era)}: MCP layer +${ms(overhead)} per cell (target ≤ +0.60 ms; CPU +${ms(cpuOverhead)}), ` +
        `of which the raw loop's +${ms(rawFloor)}, the SDK's +${ms(floor - rawFloor)} over it ` +
        `and ipybox's own +${ms(overhead - floor)}; ` +
        `tool call from code ${factor.toFixed(2)}× a direct call, +${ms(median(s.fromKernel) - median(s.fromNode))} ` +
        `(target ≤ 1.50×; CPU ${cpuFactor.toFixed(2)}×); the bare relay's hop alone ${relayFactor.toFixed(2)}×, ` +
        `so ipybox's tool server adds ${(median(s.fromKernel) / median(s.fromRelay)).toFixed(2)}× over the relay`,
    );
  }
  console.log(`\n${table(rows, 2)}\n`);
  for (const line of verdicts) console.log(line);
  console.log(`load average at the end: ${loadavg()[0]?.toFixed(2)}`);
}

await main();
