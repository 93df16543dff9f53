/**
 * What the cluster layer costs (issue 19's benchmark), in one run, interleaved:
 *
 * 1. 2026-07-28 `echo` calls against three set-ups of `mcp-proxy -a echo`:
 *    - one process, no Redis, no HAProxy (the baseline);
 *    - HAProxy (`examples/cluster/haproxy.cfg`) in front of one replica in cluster mode (Redis);
 *    - HAProxy in front of three replicas in cluster mode.
 *    Per round and set-up: sequential calls from one client (latency), then CONCURRENCY clients at
 *    once (throughput). Rounds rotate the order, so the machine's load falls on all alike.
 * 2. The time from `proxy__load` on one replica to `notifications/tools/list_changed` on a 2025
 *    client of another (and the same for `proxy__unload`): p50/p95 (target p95 ≤ 200 ms).
 *
 * On a shared 2-core machine three replicas, HAProxy, Redis and the clients all compete for the
 * same two cores: more replicas cannot mean more throughput here; the ratio shows the cost per
 * request of the extra hop and of cluster mode, not the scaling a real deployment gets.
 *
 * Environment: BENCH_ROUNDS (default 5), BENCH_CALLS (sequential calls per round, 200),
 * BENCH_CONCURRENCY (8), BENCH_LOADS (load/unload pairs, 15).
 */
import { randomBytes } from 'node:crypto';
import type { Era } from '@mcpbox/framework';
import { type Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  freePort,
  type Haproxy,
  type Proc,
  type Replica,
  startHaproxy,
  startRedis,
  startReplica,
} from '../examples/cluster/processes.ts';
import { benchClient, checkEra, median, percentile, ratio, table } from './lib/measure.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const LOADS = Number(process.env.BENCH_LOADS ?? 15);

const started: Proc[] = [];
const clients: Client[] = [];

async function cleanUp(): Promise<void> {
  await Promise.allSettled(clients.map((c) => c.close()));
  for (const proc of [...started].reverse()) await proc.stop();
}
process.on('SIGINT', () => void cleanUp().then(() => process.exit(130)));

async function connect(url: string, era: Era): Promise<Client> {
  const client = benchClient(era);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  checkEra(client, era);
  clients.push(client);
  return client;
}

async function echo(client: Client, message: string): Promise<void> {
  const result = (await client.callTool({ name: 'echo', arguments: { message } })) as {
    content: { text: string }[];
  };
  if (result.content[0]?.text !== message) {
    throw new Error(`echo answered ${JSON.stringify(result.content)}`);
  }
}

async function replica(name: string, env: Record<string, string> = {}): Promise<Replica> {
  const args = ['-a', 'echo', '--mgmt-port', String(await freePort()), '--log-level', 'warning'];
  const started_ = await startReplica(name, 'mcp-proxy', args, { env });
  started.push(started_);
  return started_;
}

interface Setup {
  name: string;
  url: string;
  latencies: number[];
  throughputs: number[];
  sequential?: Client;
  concurrent?: Client[];
}

async function measure(setup: Setup): Promise<void> {
  setup.sequential ??= await connect(setup.url, 'modern');
  setup.concurrent ??= await Promise.all(
    Array.from({ length: CONCURRENCY }, () => connect(setup.url, 'modern')),
  );
  for (let i = 0; i < 20; i++) await echo(setup.sequential, 'warm'); // connections, JIT
  for (let i = 0; i < CALLS; i++) {
    const start = performance.now();
    await echo(setup.sequential, `m${i}`);
    setup.latencies.push(performance.now() - start);
  }
  const perClient = Math.max(1, Math.round(CALLS / CONCURRENCY));
  const start = performance.now();
  await Promise.all(
    setup.concurrent.map(async (client, c) => {
      for (let i = 0; i < perClient; i++) await echo(client, `c${c}-${i}`);
    }),
  );
  setup.throughputs.push((perClient * CONCURRENCY) / ((performance.now() - start) / 1000));
}

/** `proxy__load`/`proxy__unload` of greet through `actor`; ms until `watcher` hears list_changed. */
async function loadToListChanged(actor: Client, watcher: Client): Promise<number[]> {
  const samples: number[] = [];
  let heard: (() => void) | undefined;
  watcher.setNotificationHandler('notifications/tools/list_changed', () => heard?.());
  for (let i = 0; i < LOADS; i++) {
    for (const op of ['proxy__load', 'proxy__unload']) {
      const notified = new Promise<void>((resolve, reject) => {
        heard = resolve;
        setTimeout(() => reject(new Error(`no list_changed within 10 s after ${op}`)), 10_000);
      });
      const start = performance.now();
      await actor.callTool({ name: op, arguments: { plugin: 'greet' } });
      await notified;
      samples.push(performance.now() - start);
      heard = undefined;
    }
  }
  return samples;
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

try {
  console.log('starting: Redis, 1 + 3 mcp-proxy replicas (cluster mode), 1 alone, 2 HAProxies …');
  const redis = await startRedis(await freePort());
  started.push(redis);
  const cluster = { MCP_REDIS_URL: redis.url, MCP_CLUSTER_SECRET: randomBytes(32).toString('hex') };
  const [alone, r1, r2, r3] = await Promise.all([
    replica('alone'),
    replica('replica1', cluster),
    replica('replica2', cluster),
    replica('replica3', cluster),
  ]);
  const one: Haproxy = await startHaproxy([r1, r1, r1]); // three entries, one replica
  started.push(one);
  const three: Haproxy = await startHaproxy([r1, r2, r3]);
  started.push(three);

  const setups: Setup[] = [
    { name: 'one process, no Redis, direct', url: alone.url, latencies: [], throughputs: [] },
    { name: 'HAProxy -> 1 replica (Redis)', url: one.url, latencies: [], throughputs: [] },
    { name: 'HAProxy -> 3 replicas (Redis)', url: three.url, latencies: [], throughputs: [] },
  ];
  for (let round = 0; round < ROUNDS; round++) {
    const order = setups.map((_, i) => setups[(i + round) % setups.length]);
    for (const setup of order) await measure(setup);
    process.stdout.write(`round ${round + 1}/${ROUNDS} done\n`);
  }
  const base = setups[0];
  console.log(
    `\n2026-07-28 echo, ${ROUNDS} interleaved rounds of ${CALLS} sequential calls and ` +
      `${CONCURRENCY} concurrent clients (machine: ${(await import('node:os')).cpus().length} cores)\n`,
  );
  console.log(
    table(
      [
        ['set-up', 'median', 'p95', 'vs alone', 'calls/s', 'vs alone'],
        ...setups.map((s) => [
          s.name,
          ms(median(s.latencies)),
          ms(percentile(s.latencies, 95)),
          ratio(median(s.latencies), median(base.latencies), 'x'),
          median(s.throughputs).toFixed(0),
          ratio(median(s.throughputs), median(base.throughputs), 'x'),
        ]),
      ],
      1,
    ),
  );

  const actor = await connect(r1.url, 'modern');
  const watcher = await connect(r2.url, 'legacy');
  const samples = await loadToListChanged(actor, watcher);
  console.log(
    `\nproxy__load/unload on replica1 -> tools/list_changed on a 2025 client of replica2 ` +
      `(${samples.length} samples): p50 ${ms(median(samples))}, p95 ${ms(percentile(samples, 95))} ` +
      `(target p95 <= 200 ms)`,
  );
} finally {
  await cleanUp();
}
