/**
 * Echo tool-call benchmark: mcp-factory (the real bin serving plugins/echo.ts) against a bare SDK
 * `McpServer` (bench/peers/sdk-server.ts, the baseline) and the npm `fastmcp` framework
 * (bench/peers/fastmcp-server.ts), over stdio and Streamable HTTP.
 *
 * - latency: sequential calls from one client; median and p95 over every round's samples.
 * - throughput: calls per second with 8 concurrent callers. Over HTTP they are 8 clients, each
 *   with its own session; over stdio (one client per server process by nature) they are 8
 *   concurrent requests in flight on the one connection.
 *
 * - server CPU: CPU time (user + system, from /proc) the server process spent per call during the
 *   throughput runs. Unlike wall-clock figures it barely moves when other work loads the
 *   machine, so it is the fairest comparison on a shared box.
 *
 * Rounds are interleaved (each round measures every server, in a rotating order) so drift on the
 * machine hits all of them alike. Every number is printed with its ratio to the bare SDK.
 *
 * Tuning: BENCH_ROUNDS (3), BENCH_LATENCY_CALLS (400), BENCH_THROUGHPUT_CALLS (2000),
 * BENCH_SERVERS (comma-separated names; the bare SDK always runs as the baseline).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const LATENCY_CALLS = Number(process.env.BENCH_LATENCY_CALLS ?? 400);
const THROUGHPUT_CALLS = Number(process.env.BENCH_THROUGHPUT_CALLS ?? 2000);
const CONCURRENCY = 8;
const WARMUP_CALLS = 500; // enough for the JIT to settle in every server

type Transport = 'stdio' | 'http';

/** How to start one server: the command line after `node`. */
interface ServerKind {
  name: string;
  args(transport: Transport): string[];
}

const SERVERS: ServerKind[] = [
  {
    name: 'bare SDK',
    args: (t) => ['--import', 'tsx', 'bench/peers/sdk-server.ts', t],
  },
  {
    name: 'mcp-factory',
    args: (t) =>
      t === 'http'
        ? [
            'packages/proxy/bin/mcp-factory.js',
            '--http',
            '0',
            '-p',
            'echo',
            '--log-level',
            'warning',
          ]
        : ['packages/proxy/bin/mcp-factory.js', '-p', 'echo', '--log-level', 'warning'],
  },
  {
    name: 'fastmcp',
    args: (t) => ['--import', 'tsx', 'bench/peers/fastmcp-server.ts', t],
  },
];

const wanted = process.env.BENCH_SERVERS?.split(',').map((s) => s.trim());
const selected = SERVERS.filter((k) => k.name === 'bare SDK' || !wanted || wanted.includes(k.name));

interface Running {
  kind: ServerKind;
  transport: Transport;
  /** The server process (the bins and peers run in the process they are started as). */
  pid: number;
  clients: Client[];
  close(): Promise<void>;
  latencies: number[];
  throughputs: number[];
  cpuMs: number;
  cpuCalls: number;
}

const TICK_MS = 10; // Linux USER_HZ is 100 on every mainstream kernel

/** CPU time (user + system) a process has used so far, in ms. */
function cpuTimeMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

const newClient = () => new Client({ name: 'bench', version: '1.0.0' });

async function startStdio(kind: ServerKind): Promise<Running> {
  const client = newClient();
  const args = kind.args('stdio');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    cwd: ROOT,
    stderr: 'ignore',
  });
  await client.connect(transport);
  return {
    kind,
    transport: 'stdio',
    pid: transport.pid!,
    clients: [client],
    close: () => client.close(),
    latencies: [],
    throughputs: [],
    cpuMs: 0,
    cpuCalls: 0,
  };
}

/** Waits for the `MCP endpoint:  <url>` line every server here prints on stderr. */
async function endpointOf(child: ChildProcess, name: string): Promise<URL> {
  let seen = '';
  const found = new Promise<URL>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /MCP endpoint:\s+(\S+)/.exec(seen);
      if (match) resolve(new URL(match[1]));
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`${name} exited (${code ?? signal}) before listening:\n${seen}`)),
    );
  });
  // A busy machine can be slow to start a server, but not this slow.
  const timeout = setTimeout(() => child.kill('SIGKILL'), 90_000);
  try {
    return await found;
  } finally {
    clearTimeout(timeout);
  }
}

async function startHttp(kind: ServerKind): Promise<Running> {
  const child = spawn(process.execPath, kind.args('http'), {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await endpointOf(child, kind.name);
  const clients = await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      const client = newClient();
      await client.connect(new StreamableHTTPClientTransport(url));
      return client;
    }),
  );
  return {
    kind,
    transport: 'http',
    pid: child.pid!,
    clients,
    close: async () => {
      await Promise.allSettled(clients.map((c) => c.close()));
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    },
    latencies: [],
    throughputs: [],
    cpuMs: 0,
    cpuCalls: 0,
  };
}

async function call(client: Client, i: number): Promise<void> {
  const result = await client.callTool({ name: 'echo', arguments: { message: `hello ${i}` } });
  const first = (result.content as Array<{ text?: string }>)[0];
  if (first?.text !== `hello ${i}`)
    throw new Error(`unexpected echo result: ${JSON.stringify(result)}`);
}

async function measureLatency(run: Running, calls: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = process.hrtime.bigint();
    await call(run.clients[0], i);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return samples;
}

async function measureThroughput(run: Running, calls: number): Promise<number> {
  let next = 0;
  const worker = async (w: number) => {
    const client = run.clients[w % run.clients.length];
    while (next < calls) await call(client, next++);
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
  return calls / (Number(process.hrtime.bigint() - start) / 1e9);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const median = (values: number[]) => percentile(values, 50);

function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows
    .map((r) =>
      r.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '),
    )
    .join('\n');
}

async function main(): Promise<void> {
  const runs: Running[] = [];
  const stopAll = () => Promise.allSettled(runs.map((r) => r.close()));
  process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));
  try {
    for (const transport of ['stdio', 'http'] as const) {
      for (const kind of selected) {
        const run = transport === 'stdio' ? await startStdio(kind) : await startHttp(kind);
        runs.push(run);
        await measureLatency(run, WARMUP_CALLS);
        await measureThroughput(run, WARMUP_CALLS * 2);
      }
    }
    for (let round = 0; round < ROUNDS; round++) {
      const order = runs.map((_, i) => runs[(i + round) % runs.length]);
      for (const run of order) {
        run.latencies.push(...(await measureLatency(run, LATENCY_CALLS)));
        const cpuBefore = cpuTimeMs(run.pid);
        run.throughputs.push(await measureThroughput(run, THROUGHPUT_CALLS));
        run.cpuMs += cpuTimeMs(run.pid) - cpuBefore;
        run.cpuCalls += THROUGHPUT_CALLS;
      }
      process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
    }
  } finally {
    await stopAll();
  }

  const rows = [
    [
      'transport',
      'server',
      'median ms',
      'p95 ms',
      'calls/s',
      '× SDK calls/s',
      '× SDK median',
      'server CPU µs/call',
      '× SDK CPU',
    ],
  ];
  const cpuPerCall = (run: Running) => (run.cpuMs * 1000) / run.cpuCalls;
  for (const transport of ['stdio', 'http'] as const) {
    const group = runs.filter((r) => r.transport === transport);
    const base = group.find((r) => r.kind.name === 'bare SDK')!;
    const baseRate = median(base.throughputs);
    const baseMedian = median(base.latencies);
    for (const run of group) {
      const rate = median(run.throughputs);
      rows.push([
        transport,
        run.kind.name,
        median(run.latencies).toFixed(3),
        percentile(run.latencies, 95).toFixed(3),
        rate.toFixed(0),
        (rate / baseRate).toFixed(2),
        (median(run.latencies) / baseMedian).toFixed(2),
        cpuPerCall(run).toFixed(0),
        (cpuPerCall(run) / cpuPerCall(base)).toFixed(2),
      ]);
    }
  }
  console.log(
    `\necho tool call — ${ROUNDS} interleaved rounds × ${LATENCY_CALLS} sequential calls (latency) and ` +
      `${THROUGHPUT_CALLS} calls from ${CONCURRENCY} concurrent callers (throughput)\n` +
      `node ${process.version}, ${cpus().length} CPUs; throughput is the median over rounds\n`,
  );
  console.log(table(rows));
  console.log(
    '\n× SDK calls/s above 1 is faster than the bare SDK; × SDK median and × SDK CPU below 1 are ' +
      'faster (cheaper).',
  );
}

await main();
