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
 * Rounds are interleaved (each round measures every server, in a rotating order) so drift on the
 * machine hits all of them alike. Every number is printed with its ratio to the bare SDK.
 *
 * Tuning: BENCH_ROUNDS (3), BENCH_LATENCY_CALLS (400), BENCH_THROUGHPUT_CALLS (2000),
 * BENCH_SERVERS (comma-separated names; the bare SDK always runs as the baseline).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
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
const WARMUP_CALLS = 100;

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
  clients: Client[];
  close(): Promise<void>;
  latencies: number[];
  throughputs: number[];
}

const newClient = () => new Client({ name: 'bench', version: '1.0.0' });

async function startStdio(kind: ServerKind): Promise<Running> {
  const client = newClient();
  const args = kind.args('stdio');
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args, cwd: ROOT, stderr: 'ignore' }),
  );
  return {
    kind,
    transport: 'stdio',
    clients: [client],
    close: () => client.close(),
    latencies: [],
    throughputs: [],
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
    clients,
    close: async () => {
      await Promise.allSettled(clients.map((c) => c.close()));
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    },
    latencies: [],
    throughputs: [],
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
        run.throughputs.push(await measureThroughput(run, THROUGHPUT_CALLS));
      }
      process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
    }
  } finally {
    await stopAll();
  }

  const rows = [
    ['transport', 'server', 'median ms', 'p95 ms', 'calls/s', '× SDK calls/s', '× SDK median'],
  ];
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
    '\n× SDK calls/s above 1 is faster than the bare SDK; × SDK median below 1 is faster.',
  );
}

await main();
