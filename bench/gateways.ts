/**
 * mcp-proxy against other gateways in front of the same stdio upstream (server-everything), over
 * streamable HTTP, sequential calls from one client of each era: `mcp-proxy` (punkpeye, npm
 * `mcp-proxy`, which bench/ has as fastmcp's dependency) serving the upstream at /mcp,
 * `supergateway` (stdio → streamable HTTP, `--stateful`: one upstream per session, as ours and
 * punkpeye's keep one), and our `mcp-proxy` with the upstream as a `plugins:` entry (`--http`).
 * Beside them, the baseline of bench/proxy.ts: an SDK v2 client calling the upstream directly
 * over stdio.
 *
 * Rounds are interleaved (every round measures every gateway, in rotating order). Printed: the
 * median over all rounds, the best round's median, each as a ratio to the direct call, and ours
 * as a ratio to each other gateway's. Tuning: BENCH_ROUNDS (3), BENCH_LATENCY_CALLS (300),
 * BENCH_WARMUP_CALLS (50), BENCH_ERAS (2025, 2026).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import type { Era } from '@mcpbox/framework';
import { type Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { EVERYTHING, everythingProxyHome, ROOT } from './lib/everythingProxy.ts';
import {
  benchClient,
  benchEras,
  checkEra,
  eraLabel,
  firstLine,
  median,
  ratio,
  table,
} from './lib/measure.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CALLS = Number(process.env.BENCH_LATENCY_CALLS ?? 300);
const WARMUP = Number(process.env.BENCH_WARMUP_CALLS ?? 50);
const PUNKPEYE = join(ROOT, 'bench/node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs');
const SUPERGATEWAY = join(ROOT, 'bench/node_modules/supergateway/dist/index.js');
/** The other gateways, as their rows name them; ours is set beside each. */
const PEERS = ['punkpeye', 'supergateway'];

const { home, config, remove: removeHome } = everythingProxyHome('bench-gateways-');

interface Subject {
  name: string;
  era: Era;
  client: Client;
  child?: ChildProcess;
  version: string;
  samples: number[];
  roundMedians: number[];
  failure?: string;
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  return port;
}

/** Starts a gateway on `port` and connects once it answers (a busy machine starts slowly). */
async function startGateway(name: string, era: Era, args: string[], url: URL): Promise<Subject> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, HOME: home },
    stdio: 'ignore',
  });
  const subject: Subject = { name, era, client: benchClient(era), child, version: '?', ...fresh() };
  for (let tries = 0; ; tries++) {
    try {
      subject.client = benchClient(era);
      await subject.client.connect(new StreamableHTTPClientTransport(url));
      subject.version = checkEra(subject.client, era);
      return subject;
    } catch (error) {
      if (tries > 300 || child.exitCode !== null) {
        child.kill('SIGKILL'); // a gateway that never answered is not left behind
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

const fresh = () => ({ samples: [] as number[], roundMedians: [] as number[] });

/** supergateway in front of the upstream on `port`, stateful (one upstream per session). */
function supergateway(port: number): [string, string[], URL] {
  return [
    'supergateway → upstream',
    [
      SUPERGATEWAY,
      '--stdio',
      `${EVERYTHING} stdio`,
      '--outputTransport',
      'streamableHttp',
      '--stateful',
      '--port',
      String(port),
      '--logLevel',
      'none',
    ],
    new URL(`http://127.0.0.1:${port}/mcp`),
  ];
}

async function startAll(): Promise<Subject[]> {
  const direct = benchClient('legacy');
  await direct.connect(
    new StdioClientTransport({ command: EVERYTHING, args: ['stdio'], stderr: 'ignore' }),
  );
  const subjects: Subject[] = [
    {
      name: 'SDK client → upstream (stdio)',
      era: 'legacy',
      client: direct,
      version: checkEra(direct, 'legacy'),
      ...fresh(),
    },
  ];
  for (const era of benchEras()) {
    const ours = await freePort();
    const theirs = await freePort();
    const starts: Array<[string, string[], URL]> = [
      [
        'mcp-proxy (mcpbox) → upstream',
        [
          'packages/proxy/bin/mcp-proxy.js',
          '-c',
          config,
          '--http',
          String(ours),
          '--log-level',
          'warning',
          '--mgmt-port',
          '0',
          '--health-port',
          '0',
        ],
        new URL(`http://127.0.0.1:${ours}/mcp`),
      ],
      [
        'mcp-proxy (punkpeye) → upstream',
        [
          PUNKPEYE,
          '--port',
          String(theirs),
          '--host',
          '127.0.0.1',
          '--server',
          'stream',
          '--',
          EVERYTHING,
          'stdio',
        ],
        new URL(`http://127.0.0.1:${theirs}/mcp`),
      ],
      // supergateway serves the 2025 era only (its SDK v1 server has no 2026-07-28).
      ...(era === 'legacy' ? [supergateway(await freePort())] : []),
    ];
    for (const [name, args, url] of starts) {
      try {
        subjects.push(await startGateway(`${name}, ${eraLabel(era)} client`, era, args, url));
      } catch (error) {
        subjects.push({
          name,
          era,
          client: benchClient(era),
          version: '?',
          failure: firstLine(error),
          ...fresh(),
        });
      }
    }
  }
  return subjects;
}

async function measure(subject: Subject, calls: number, keep: boolean): Promise<void> {
  const round: number[] = [];
  for (let i = 0; i < calls; i++) {
    const message = `hello ${i}`;
    const start = process.hrtime.bigint();
    const result = await subject.client.callTool({ name: 'echo', arguments: { message } });
    round.push(Number(process.hrtime.bigint() - start) / 1e6);
    const text = (result.content as Array<{ text?: string }>)[0]?.text ?? '';
    if (result.isError || !text.includes(message)) {
      throw new Error(`unexpected result ${JSON.stringify(result)}`);
    }
  }
  if (!keep) return;
  subject.samples.push(...round);
  subject.roundMedians.push(median(round));
}

/** Measures a gateway that has not failed yet; a failure drops it from later rounds. */
async function attempt(subject: Subject, calls: number, keep: boolean): Promise<void> {
  if (subject.failure) return;
  try {
    await measure(subject, calls, keep);
  } catch (error) {
    subject.failure = firstLine(error);
    process.stderr.write(`${subject.name} failed: ${subject.failure}\n`);
  }
}

async function main(): Promise<boolean> {
  const subjects = await startAll();
  try {
    for (const s of subjects) await attempt(s, WARMUP, false);
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < subjects.length; i++) {
        const s = subjects[(i + round) % subjects.length];
        await attempt(s, CALLS, true);
      }
      process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
    }
  } finally {
    await Promise.allSettled(subjects.map((s) => s.client.close()));
    for (const s of subjects) if (s.child && s.child.exitCode === null) s.child.kill('SIGTERM');
    await Promise.allSettled(
      subjects.map((s) => s.child && s.child.exitCode === null && once(s.child, 'exit')),
    );
    removeHome();
  }
  const [direct] = subjects;
  const base = median(direct.samples);
  const baseBest = Math.min(...direct.roundMedians);
  const rows = [
    [
      'gateway',
      'protocol',
      'median ms',
      'ratio to direct',
      'best round ms',
      'ratio',
      ...PEERS.map((peer) => `mcpbox / ${peer}`),
    ],
  ];
  for (const s of subjects) {
    if (s.failure) {
      rows.push([
        s.name,
        s.version,
        'failed',
        '',
        '',
        '',
        s.failure,
        ...PEERS.slice(1).map(() => ''),
      ]);
      continue;
    }
    const toPeer = (name: string) => {
      const peer = subjects.find((p) => p.era === s.era && p.name.includes(name) && !p.failure);
      return s.name.includes('mcpbox') && peer
        ? ratio(median(s.samples), median(peer.samples), '×')
        : '';
    };
    rows.push([
      s.name,
      s.version,
      median(s.samples).toFixed(3),
      ratio(median(s.samples), base, '×'),
      Math.min(...s.roundMedians).toFixed(3),
      ratio(Math.min(...s.roundMedians), baseBest, '×'),
      ...PEERS.map(toPeer),
    ]);
  }
  console.log(
    `\nstreamable HTTP gateways → stdio upstream, sequential calls: ${ROUNDS} rounds × ${CALLS} calls, interleaved\n`,
  );
  console.log(table(rows, 2));
  return subjects.every((s) => !s.failure);
}

process.exit((await main()) ? 0 : 1);
