/**
 * What the benchmarks share: clients of either protocol era, server CPU time from /proc, and the
 * statistics and table printing. Not a benchmark itself (bench/run.ts runs only the files
 * directly in bench/).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ERAS, type Era, versionOfEra } from '@mcpbox/framework';
import { Client } from '@modelcontextprotocol/client';

// The bins started by a benchmark run what users run: the compiled bundles in dist/ (`npm run
// bench` builds them first), not the TypeScript sources through tsx, which a checkout's bins
// would otherwise fall back to. The servers inherit this environment.
process.env.MCPBOX_BIN ??= 'dist';

/**
 * A scratch directory of the benchmark's own, removed at exit, whose `home` and `cache` the
 * servers inherit as HOME and XDG_CACHE_HOME: mcp-factory's tool-call log of every benchmark call
 * and Node's compile cache of our bins go there, not into the user's ~/.mcp_proxy or ~/.cache.
 */
export function benchScratch(prefix: string): string {
  const scratch = mkdtempSync(join(tmpdir(), prefix));
  process.env.HOME = join(scratch, 'home');
  process.env.XDG_CACHE_HOME = join(scratch, 'cache');
  process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
  return scratch;
}

/** How a benchmark prints an era, and how BENCH_ERAS names it: by its year, 2025 or 2026. */
export const eraLabel = (era: Era): string => (era === 'modern' ? '2026' : '2025');

/** The eras BENCH_ERAS names (`2025`, `2026`), oldest first; both when it is unset. */
export function benchEras(): Era[] {
  const named = envList('BENCH_ERAS');
  return ERAS.filter((era) => named?.includes(eraLabel(era)) ?? true);
}

/**
 * A benchmark client of one era: 2025 (`initialize`, the SDK default, no probe) or pinned to the
 * 2026 era's first revision.
 */
export function benchClient(era: Era): Client {
  return new Client(
    { name: 'bench', version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: versionOfEra(era) } : 'legacy' } },
  );
}

/**
 * Checks that a connected client got the era it asked for (the server could have answered a
 * pin with something else only through an SDK bug, but a benchmark of the wrong era would
 * silently compare the wrong things) and returns the negotiated protocol version.
 */
export function checkEra(client: Client, era: Era): string {
  const version = client.getNegotiatedProtocolVersion() ?? '?';
  const got = client.getProtocolEra();
  if (got !== era) throw new Error(`negotiated the ${got} era (${version}), not ${era}`);
  return version;
}

const TICK_MS = 10; // Linux USER_HZ is 100 on every mainstream kernel

/**
 * CPU time (user + system) a process and its live descendants have used so far, in ms: the
 * server's own cost, which barely moves when other work loads the machine.
 */
export function cpuTimeMs(pid: number): number {
  let total = 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    total += (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    for (const child of childrenOf(pid)) total += cpuTimeMs(child);
  } catch {
    // The process (or one of its threads) ended while being read: it adds nothing more.
  }
  return total;
}

/** The pids of a process's live children. */
function childrenOf(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
      .split(' ')
      .filter(Boolean)
      .map(Number),
  );
}

/** Resident memory (VmRSS) of a process and its live descendants in MB; NaN once it has ended. */
export function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    const own = match ? Number(match[1]) / 1024 : Number.NaN;
    return childrenOf(pid).reduce((sum, child) => sum + (rssMb(child) || 0), own);
  } catch {
    return Number.NaN;
  }
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export const median = (values: number[]) => percentile(values, 50);

/** `value / base` with two decimals and `suffix`, or a dash without a (non-zero) base. */
export const ratio = (value: number, base: number | undefined, suffix = '') =>
  base ? `${(value / base).toFixed(2)}${suffix}` : '—';

/** Rows as aligned columns: the first `textColumns` left-aligned, the numbers right-aligned. */
export function table(rows: string[][], textColumns: number): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows
    .map((r) =>
      r
        .map((cell, c) => (c < textColumns ? cell.padEnd(widths[c]) : cell.padStart(widths[c])))
        .join('  '),
    )
    .join('\n');
}

/** An error's first line, for a table's failure list. */
export const firstLine = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0];

/** A comma-separated environment variable as a list, or undefined when unset. */
export const envList = (name: string) => process.env[name]?.split(',').map((s) => s.trim());
