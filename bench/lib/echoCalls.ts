/**
 * The echo benchmarks' calls (bench/echo.ts, bench/audit.ts): one checked `echo` call, a run of
 * sequential calls timed one by one (latency), and calls from {@link CONCURRENCY} concurrent
 * callers (throughput).
 */
import type { Client } from '@modelcontextprotocol/client';
import { CONCURRENCY, type Running } from './echoServers.ts';

export async function call(client: Client, i: number): Promise<void> {
  const result = await client.callTool({ name: 'echo', arguments: { message: `hello ${i}` } });
  const first = (result.content as Array<{ text?: string }>)[0];
  if (result.isError || first?.text !== `hello ${i}`)
    throw new Error(`unexpected echo result: ${JSON.stringify(result)}`);
}

/** Milliseconds per call, `calls` sequential calls from the run's first client. */
export async function measureLatency(run: Running, calls: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = process.hrtime.bigint();
    await call(run.clients[0], i);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return samples;
}

/** Calls per second, `calls` calls from `concurrency` concurrent callers. */
export async function measureThroughput(
  run: Running,
  calls: number,
  concurrency = CONCURRENCY,
): Promise<number> {
  let next = 0;
  const worker = async (w: number) => {
    const client = run.clients[w % run.clients.length];
    while (next < calls) await call(client, next++);
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  return calls / (Number(process.hrtime.bigint() - start) / 1e9);
}
