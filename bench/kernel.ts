/**
 * Kernel benchmark: how fast `KernelClient` runs Python, against the floor (a minimal hand-written
 * ZeroMQ client, bench/peers/minimal-zmq-client.ts) and against the architecture of the Python
 * ipybox (a stock Jupyter Server in front of the kernel, REST + WebSocket, packages/ipybox/src/__fixtures__/jupyterServer.ts,
 * driven by the same KernelClient through its Jupyter Server backend).
 *
 * Measured, interleaved in one process (each round runs every subject, in a rotating order):
 * - cold start: from nothing to the first result of `1` (for the Jupyter Server path this
 *   includes starting the server, as ipybox starts its gateway per executor);
 * - `x += 1` round trip: median and p95 over every sample (blocks of calls alternate between
 *   subjects, so all see the same machine);
 * - a 1 MB print, and a matplotlib PNG (matplotlib already imported).
 *
 * Two floors: the minimal client launching the kernel the way mcpbox does (bootstrap.py, which
 * keeps debugpy and jedi out of start-up: the fair floor for the client's own cost) and the
 * stock `python3 -m ipykernel_launcher`.
 *
 * Tuning: BENCH_ROUNDS (5), BENCH_RTT_PER_ROUND (120 calls per subject per round).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jupyterServerBackend, KernelClient } from '@mcpbox/ipybox';
import { startJupyterServer } from '@mcpbox/ipybox/testing';
import { MinimalKernel } from './peers/minimal-zmq-client.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const RTT_PER_ROUND = Number(process.env.BENCH_RTT_PER_ROUND ?? 120);
const RTT_BLOCK = 12;
const HEAVY_PER_ROUND = 3;
const BOOTSTRAP = fileURLToPath(
  new URL('../packages/ipybox/src/kernel/bootstrap.py', import.meta.url),
);
const KERNEL_FLAGS = ['--HistoryManager.enabled=False', '--InteractiveShell.colors=NoColor'];
const ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  MPLBACKEND: 'module://matplotlib_inline.backend_inline',
};
const MB_PRINT = 'print("x" * 1_000_000)';
const PNG = 'plt.figure()\nplt.plot([1, 3, 2])\nplt.show()';

interface Running {
  run(code: string): Promise<{ text: string; images: number }>;
  stop(): Promise<void>;
}

interface Subject {
  name: string;
  start(): Promise<Running>;
}

const scratch = mkdtempSync(join(tmpdir(), 'bench-kernel-'));

function clientRunning(client: KernelClient, after?: () => Promise<void>): Running {
  return {
    async run(code) {
      const result = await client.execute(code);
      return { text: result.text, images: result.images.length };
    },
    async stop() {
      await client.close();
      await after?.();
    },
  };
}

function minimalRunning(kernel: MinimalKernel): Running {
  return {
    async run(code) {
      const result = await kernel.execute(code);
      return { text: result.text, images: result.pngs.length };
    },
    async stop() {
      kernel.stop();
    },
  };
}

/** The part of the Jupyter Server cold start spent before the server answered (per round). */
const serverStartup: number[] = [];

const SUBJECTS: Subject[] = [
  {
    name: 'KernelClient',
    async start() {
      const client = new KernelClient({ env: {}, imagesDir: join(scratch, 'images') });
      await client.start();
      return clientRunning(client);
    },
  },
  {
    name: 'minimal (same launch)',
    async start() {
      return minimalRunning(
        await MinimalKernel.start({ env: ENV, launch: [BOOTSTRAP, ...KERNEL_FLAGS] }),
      );
    },
  },
  {
    name: 'minimal (stock launch)',
    async start() {
      return minimalRunning(await MinimalKernel.start({ env: ENV }));
    },
  },
  {
    name: 'Jupyter Server',
    async start() {
      const begin = performance.now();
      const server = await startJupyterServer(ENV);
      serverStartup.push(performance.now() - begin);
      const client = new KernelClient({
        backend: jupyterServerBackend({ url: server.url, token: server.token }),
        imagesDir: join(scratch, 'images'),
      });
      try {
        await client.start();
      } catch (error) {
        await server.stop();
        throw error;
      }
      return clientRunning(client, () => server.stop());
    },
  },
];

type Samples = Record<'cold' | 'rtt' | 'mb' | 'png', number[]>;
const samples = new Map<string, Samples>(
  SUBJECTS.map((s) => [s.name, { cold: [], rtt: [], mb: [], png: [] }]),
);

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

function rotate<T>(items: T[], by: number): T[] {
  const k = by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

async function round(index: number): Promise<void> {
  const order = rotate(SUBJECTS, index);
  const running = new Map<string, Running>();
  try {
    for (const subject of order) {
      let kernel: Running | undefined;
      const cold = await timed(async () => {
        kernel = await subject.start();
        const first = await kernel.run('1');
        if (!first.text.includes('1')) throw new Error(`${subject.name}: unexpected first result`);
      });
      running.set(subject.name, kernel!);
      samples.get(subject.name)!.cold.push(cold);
    }
    for (const subject of order) {
      const kernel = running.get(subject.name)!;
      await kernel.run('x = 0\nimport matplotlib.pyplot as plt');
      for (let i = 0; i < 20; i++) await kernel.run('x += 1'); // warm-up
    }
    for (let done = 0; done < RTT_PER_ROUND; done += RTT_BLOCK) {
      for (const subject of rotate(order, done / RTT_BLOCK)) {
        const kernel = running.get(subject.name)!;
        const rtt = samples.get(subject.name)!.rtt;
        for (let i = 0; i < RTT_BLOCK; i++) rtt.push(await timed(() => kernel.run('x += 1')));
      }
    }
    for (let i = 0; i < HEAVY_PER_ROUND; i++) {
      for (const subject of rotate(order, i)) {
        const kernel = running.get(subject.name)!;
        const s = samples.get(subject.name)!;
        s.mb.push(
          await timed(async () => {
            const out = await kernel.run(MB_PRINT);
            if (out.text.length < 1_000_000)
              throw new Error(`${subject.name}: 1 MB print came back short`);
          }),
        );
        s.png.push(
          await timed(async () => {
            const out = await kernel.run(PNG);
            if (out.images !== 1)
              throw new Error(`${subject.name}: expected one PNG, got ${out.images}`);
          }),
        );
      }
    }
  } finally {
    for (const kernel of running.values()) await kernel.stop();
  }
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}
const median = (values: number[]) => quantile(values, 0.5);

function main(): Promise<void> {
  return (async () => {
    const load = () => loadavg()[0].toFixed(1);
    console.log(
      `kernel benchmark: ${ROUNDS} rounds, ${ROUNDS * RTT_PER_ROUND} round trips per subject, interleaved; ${cpus().length} CPUs, load average ${load()} at start`,
    );
    for (let i = 0; i < ROUNDS; i++) {
      await round(i);
      process.stderr.write(`round ${i + 1}/${ROUNDS} done\n`);
    }
    console.log(`load average ${load()} at the end (a busy machine inflates every figure)`);
    const names = SUBJECTS.map((s) => s.name);
    const base = samples.get('KernelClient')!;
    const rows: [string, (s: Samples) => number][] = [
      ['cold start to first result, median', (s) => median(s.cold)],
      ['x += 1 round trip, median', (s) => median(s.rtt)],
      ['x += 1 round trip, p95', (s) => quantile(s.rtt, 0.95)],
      ['1 MB print, median', (s) => median(s.mb)],
      ['matplotlib PNG, median', (s) => median(s.png)],
    ];
    const width = [36, ...names.map((n) => Math.max(n.length, 18))];
    const line = (cells: string[]) =>
      cells.map((c, i) => (i === 0 ? c.padEnd(width[i]) : c.padStart(width[i]))).join(' | ');
    console.log(line(['ms (ratio to KernelClient)', ...names]));
    console.log(width.map((w) => '-'.repeat(w)).join('-|-'));
    for (const [label, pick] of rows) {
      const ours = pick(base);
      console.log(
        line([
          label,
          ...names.map((n) => {
            const value = pick(samples.get(n)!);
            return `${value.toFixed(value < 10 ? 2 : 0)} (${(value / ours).toFixed(2)}×)`;
          }),
        ]),
      );
    }
    const jupyterCold = median(samples.get('Jupyter Server')!.cold);
    console.log(
      `\nJupyter Server cold start = server up (median ${median(serverStartup).toFixed(0)} ms) + kernel to first result (the rest of ${jupyterCold.toFixed(0)} ms)`,
    );
    const floor = samples.get('minimal (same launch)')!;
    const jupyter = samples.get('Jupyter Server')!;
    const checks: [string, number, string, number][] = [
      [
        'round trip vs minimal client (same launch)',
        median(base.rtt) / median(floor.rtt),
        '≤',
        1.2,
      ],
      [
        'cold start vs minimal client (same launch)',
        median(base.cold) / median(floor.cold),
        '≤',
        1.2,
      ],
      ['Jupyter Server round trip / KernelClient', median(jupyter.rtt) / median(base.rtt), '≥', 5],
      [
        'Jupyter Server cold start / KernelClient',
        median(jupyter.cold) / median(base.cold),
        '≥',
        2,
      ],
    ];
    console.log('\ntargets:');
    for (const [label, ratio, op, target] of checks) {
      const met = op === '≤' ? ratio <= target : ratio >= target;
      console.log(
        `  ${label}: ${ratio.toFixed(2)}× (target ${op} ${target}×) ${met ? 'met' : 'NOT met'}`,
      );
    }
  })();
}

try {
  await main();
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
