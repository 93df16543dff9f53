/**
 * What the audit trail costs on an echo call: mcp-factory (the real bin serving plugins/echo.ts)
 * with `audit_log` set against the same without it, per group (stdio and Streamable HTTP, each
 * with a 2025 and a 2026 client, as in bench/echo.ts). Rounds are interleaved — each round
 * measures every server of every group, in a rotating order — so drift on the machine hits both
 * alike. Printed: median and p95 latency of sequential calls, calls/s from 8 concurrent callers,
 * the server's CPU per call, each with its ratio to the server without the audit log, and the
 * issue's target (median ≤ 1.1×). Afterwards each audit log is verified: intact, and one record
 * per call made.
 *
 * Tuning: BENCH_ROUNDS (5), BENCH_LATENCY_CALLS (400), BENCH_THROUGHPUT_CALLS (2000),
 * BENCH_WARMUP_CALLS (500), BENCH_GROUPS (comma-separated, of stdio-2025, stdio-2026, http-2025,
 * http-2026).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ERAS, verifyAuditLog } from '@mcpbox/framework';
import { measureLatency, measureThroughput } from './lib/echoCalls.ts';
import {
  type Group,
  type Running,
  type ServerKind,
  startHttp,
  startStdio,
} from './lib/echoServers.ts';
import {
  cpuTimeMs,
  envList,
  eraLabel,
  firstLine,
  median,
  percentile,
  ratio,
  table,
} from './lib/measure.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const LATENCY_CALLS = Number(process.env.BENCH_LATENCY_CALLS ?? 400);
const THROUGHPUT_CALLS = Number(process.env.BENCH_THROUGHPUT_CALLS ?? 2000);
const WARMUP_CALLS = Number(process.env.BENCH_WARMUP_CALLS ?? 500);
/** The target: an audited echo call's median latency ≤ 1.1× an unaudited one's. */
const TARGET = 1.1;

const wantedGroups = envList('BENCH_GROUPS');
const groups: Group[] = (['stdio', 'http'] as const)
  .flatMap((transport) =>
    ERAS.map((era) => ({ name: `${transport}-${eraLabel(era)}`, transport, era })),
  )
  .filter((g) => !wantedGroups || wantedGroups.includes(g.name));

const scratch = mkdtempSync(join(tmpdir(), 'bench-audit-'));
// The tool-call log (on in both) goes to a HOME of the benchmark's own, removed at exit.
process.env.HOME = join(scratch, 'home');
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));

/** One audit log per group: a file has one writer, whose chain it is. */
const auditFile = (group: Group) => join(scratch, `audit-${group.name}.jsonl`);
const factory = ['packages/proxy/bin/mcp-factory.js', '-p', 'echo', '--log-level', 'warning'];
const configFor = (group: Group) => {
  const file = join(scratch, `${group.name}.yaml`);
  writeFileSync(file, `audit_log: ${JSON.stringify(auditFile(group))}\n`);
  return file;
};
const http = (group: Group) => (group.transport === 'http' ? ['--http', '0'] : []);
const OFF: ServerKind = { name: 'audit_log off', args: (group) => [...factory, ...http(group)] };
const ON: ServerKind = {
  name: 'audit_log on',
  args: (group) => [...factory, ...http(group), '-c', configFor(group)],
};

/** Calls made to each audited server, to check its log against. */
const callsMade = new Map<Running, number>();

async function start(kind: ServerKind, group: Group): Promise<Running> {
  const args = kind.args(group) as string[];
  const run =
    group.transport === 'stdio'
      ? await startStdio(kind, group, args)
      : await startHttp(kind, group, args);
  await measureLatency(run, WARMUP_CALLS);
  await measureThroughput(run, WARMUP_CALLS * 2);
  callsMade.set(run, WARMUP_CALLS * 3);
  return run;
}

async function measureRounds(runs: Running[]): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    const order = runs.map((_, i) => runs[(i + round) % runs.length]);
    for (const run of order) {
      run.latencies.push(...(await measureLatency(run, LATENCY_CALLS)));
      const cpuBefore = cpuTimeMs(run.pid);
      run.throughputs.push(await measureThroughput(run, THROUGHPUT_CALLS));
      run.cpuMs += cpuTimeMs(run.pid) - cpuBefore;
      run.cpuCalls += THROUGHPUT_CALLS;
      callsMade.set(run, (callsMade.get(run) ?? 0) + LATENCY_CALLS + THROUGHPUT_CALLS);
    }
    process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
  }
}

const HEADER = [
  'group',
  'server',
  'median ms',
  'p95 ms',
  'calls/s',
  'CPU µs/call',
  '× median',
  '× calls/s',
  '× CPU',
  'target',
];

const cpuPerCall = (run: Running) => (run.cpuMs * 1000) / run.cpuCalls;

function rows(runs: Running[]): string[][] {
  const out = [HEADER];
  for (const group of groups) {
    const off = runs.find((r) => r.group === group && r.kind === OFF);
    const on = runs.find((r) => r.group === group && r.kind === ON);
    if (!off || !on) continue;
    for (const run of [off, on]) {
      const latency = median(run.latencies);
      const base = median(off.latencies);
      out.push([
        group.name,
        run.kind.name,
        latency.toFixed(3),
        percentile(run.latencies, 95).toFixed(3),
        median(run.throughputs).toFixed(0),
        cpuPerCall(run).toFixed(0),
        ratio(latency, base),
        ratio(median(run.throughputs), median(off.throughputs)),
        ratio(cpuPerCall(run), cpuPerCall(off)),
        run === on ? (latency / base <= TARGET ? 'met' : 'missed') : '',
      ]);
    }
  }
  return out;
}

/** Each audited server's log: intact, one record per call (its writes end when it stops). */
async function checkLogs(runs: Running[]): Promise<string[]> {
  const problems: string[] = [];
  for (const run of runs.filter((r) => r.kind === ON)) {
    const expected = callsMade.get(run);
    let result = await verifyAuditLog(auditFile(run.group));
    for (let i = 0; i < 200 && result.ok && result.records < (expected ?? 0); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      result = await verifyAuditLog(auditFile(run.group));
    }
    if (!result.ok) problems.push(`${run.group.name}: line ${result.line}: ${result.problem}`);
    else if (result.records !== expected) {
      problems.push(`${run.group.name}: ${result.records} records for ${expected} calls`);
    } else console.log(`${run.group.name}: audit log intact, ${result.records} records`);
  }
  return problems;
}

async function main(): Promise<boolean> {
  const runs: Running[] = [];
  try {
    for (const group of groups) for (const kind of [OFF, ON]) runs.push(await start(kind, group));
    await measureRounds(runs);
  } catch (error) {
    console.error(`failed: ${firstLine(error)}`);
    return false;
  } finally {
    await Promise.allSettled(runs.map((r) => r.close()));
  }
  console.log(
    `\necho tool call, audit_log on vs off — ${ROUNDS} interleaved rounds × ${LATENCY_CALLS} ` +
      `sequential calls and ${THROUGHPUT_CALLS} calls from 8 concurrent callers; node ` +
      `${process.version}, ${cpus().length} CPUs; target: median ≤ ${TARGET}× without it\n`,
  );
  console.log(table(rows(runs), 2));
  const problems = await checkLogs(runs);
  for (const problem of problems) console.error(`audit log ${problem}`);
  return problems.length === 0;
}

process.exit((await main()) ? 0 : 1);
