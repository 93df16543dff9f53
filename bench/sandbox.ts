/**
 * Sandbox benchmark: what running the kernel inside sandbox-runtime (bubblewrap, Linux) costs,
 * against the same `CodeExecutor` without the sandbox (tcp) and without it over `ipc` (the
 * sandbox's transport, so its own share of the difference shows).
 *
 * Measured, interleaved in one process (each round runs every subject, in a rotating order):
 * - cold start: `new CodeExecutor(...)` to the first result of `1` (for the sandbox this includes
 *   the preflight, the settings, the proxies on the first start of the process — see below — and
 *   bwrap's mount setup);
 * - `x += 1` round trip: median and p95 over every sample, in blocks that alternate subjects.
 *
 * The sandbox's proxies and bridges are process-wide and stopped with the last sandboxed kernel,
 * so every sandboxed cold start here pays for them (as a one-off `ipybox --sandbox` start would).
 *
 * Tuning: BENCH_ROUNDS (5), BENCH_RTT_PER_ROUND (100 calls per subject per round).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CodeExecutor, type CodeExecutorOptions } from '@mcpbox/ipybox';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const RTT_PER_ROUND = Number(process.env.BENCH_RTT_PER_ROUND ?? 100);
const RTT_BLOCK = 10;

interface Subject {
  name: string;
  options: CodeExecutorOptions;
  cold: number[];
  rtt: number[];
}

const workspace = mkdtempSync(join(tmpdir(), 'bench-sandbox-'));
const subjects: Subject[] = [
  { name: 'unsandboxed (tcp)', options: { transport: 'tcp' }, cold: [], rtt: [] },
  { name: 'unsandboxed (ipc)', options: { transport: 'ipc' }, cold: [], rtt: [] },
  { name: 'sandboxed', options: { sandbox: true }, cold: [], rtt: [] },
];

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

function rotate<T>(items: T[], by: number): T[] {
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}
const median = (values: number[]) => quantile(values, 0.5);

async function round(index: number): Promise<void> {
  const running = new Map<Subject, CodeExecutor>();
  try {
    for (const subject of rotate(subjects, index)) {
      const executor = new CodeExecutor({ ...subject.options, workingDir: workspace });
      running.set(subject, executor);
      subject.cold.push(await timed(() => executor.execute('1')));
      await executor.execute('x = 0');
    }
    for (let done = 0; done < RTT_PER_ROUND; done += RTT_BLOCK) {
      for (const subject of rotate(subjects, index + done / RTT_BLOCK)) {
        const executor = running.get(subject)!;
        for (let i = 0; i < RTT_BLOCK; i++) {
          subject.rtt.push(await timed(() => executor.execute('x += 1')));
        }
      }
    }
  } finally {
    await Promise.all([...running.values()].map((executor) => executor.stop()));
  }
}

async function main(): Promise<void> {
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  console.log(
    `${ROUNDS} rounds, ${RTT_PER_ROUND} round trips per subject per round; ${cpus().length} CPUs, load average ${load()}`,
  );
  try {
    for (let i = 0; i < ROUNDS; i++) await round(i);
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
  console.log(`load average ${load()} at the end (a busy machine inflates every figure)\n`);
  const base = subjects[0];
  const rows: [string, (s: Subject) => number][] = [
    ['cold start to first result, median', (s) => median(s.cold)],
    ['x += 1 round trip, median', (s) => median(s.rtt)],
    ['x += 1 round trip, p95', (s) => quantile(s.rtt, 0.95)],
  ];
  const width = [36, ...subjects.map((s) => Math.max(s.name.length, 18))];
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(width[i])).join(' | ');
  console.log(line([`ms (ratio to ${base.name})`, ...subjects.map((s) => s.name)]));
  console.log(width.map((w) => '-'.repeat(w)).join('-|-'));
  for (const [label, measure] of rows) {
    const cells = subjects.map((s) => {
      const value = measure(s);
      return `${value.toFixed(value < 20 ? 2 : 0)} (${(value / measure(base)).toFixed(2)}×)`;
    });
    console.log(line([label, ...cells]));
  }
}

await main();
