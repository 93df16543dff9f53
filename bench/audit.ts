/**
 * What pin checking and the audit trail cost on an echo call (issue 32's target: ≤ 1.1× without
 * them): mcp-factory (the real bin serving plugins/echo.ts) with `audit_log` set, and with
 * `audit_log` and `pins: {mode: strict}` (echo's definitions pinned at load, every call passing
 * the pinned catalog), each against the same bin with neither, per group (stdio and Streamable
 * HTTP, each with a 2025 and a 2026 client, as in bench/echo.ts). Rounds are interleaved — each
 * round measures every server of every group, in a rotating order — so drift on the machine hits
 * all alike. Printed: median and p95 latency of sequential calls, calls/s from 8 concurrent
 * callers, the server's CPU per call, each with its ratio to the server without either, and the
 * target (median ≤ 1.1×). Afterwards each audit log is verified: intact, and one record per call.
 *
 * Tuning: BENCH_ROUNDS (5), BENCH_LATENCY_CALLS (400), BENCH_THROUGHPUT_CALLS (2000),
 * BENCH_WARMUP_CALLS (500), BENCH_GROUPS (comma-separated, of stdio-2025, stdio-2026, http-2025,
 * http-2026), BENCH_PINS=off (measure the audit log alone, without the pinned server).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
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
  benchScratch,
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
/** The issue's target: an audited (and pinned) echo call's median latency ≤ 1.1× a plain one's. */
const TARGET = 1.1;

const wantedGroups = envList('BENCH_GROUPS');
const groups: Group[] = (['stdio', 'http'] as const)
  .flatMap((transport) =>
    ERAS.map((era) => ({ name: `${transport}-${eraLabel(era)}`, transport, era })),
  )
  .filter((g) => !wantedGroups || wantedGroups.includes(g.name));

// The tool-call log (on in both) goes to a HOME of the benchmark's own, removed at exit.
const scratch = benchScratch('bench-audit-');

// One audit log per server: a file has one writer, whose chain it is.
const factory = ['packages/proxy/bin/mcp-factory.js', '-p', 'echo', '--log-level', 'warning'];
/** A config with the audit log, and with pins when `pinned` (each its own file). */
const configFor = (group: Group, pinned: boolean) => {
  const name = `${group.name}${pinned ? '-pinned' : ''}`;
  const file = join(scratch, `${name}.yaml`);
  const lines = [`audit_log: ${JSON.stringify(join(scratch, `audit-${name}.jsonl`))}`];
  if (pinned) {
    lines.push(
      'pins:',
      '  mode: strict',
      `  file: ${JSON.stringify(join(scratch, `pins-${name}.json`))}`,
    );
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
};
const http = (group: Group) => (group.transport === 'http' ? ['--http', '0'] : []);
const OFF: ServerKind = { name: 'neither', args: (group) => [...factory, ...http(group)] };
const AUDITED: ServerKind = {
  name: 'audit_log',
  args: (group) => [...factory, ...http(group), '-c', configFor(group, false)],
};
const PINNED: ServerKind = {
  name: 'audit_log + pins strict',
  args: (group) => [...factory, ...http(group), '-c', configFor(group, true)],
};
/** The servers measured against {@link OFF}; BENCH_PINS=off leaves the pinned one out. */
const MEASURED = process.env.BENCH_PINS === 'off' ? [AUDITED] : [AUDITED, PINNED];
const auditFileOf = (run: Running) =>
  join(scratch, `audit-${run.group.name}${run.kind === PINNED ? '-pinned' : ''}.jsonl`);

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
    if (!off) continue;
    for (const run of runs.filter((r) => r.group === group)) {
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
        run === off ? '' : latency / base <= TARGET ? 'met' : 'missed',
      ]);
    }
  }
  return out;
}

/** The call records of `file` (a pinned server's log also holds its pins' records). */
const callRecords = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"kind":"call"')).length;

/** Each audited server's log: intact, one call record per call (its writes end when it stops). */
async function checkLogs(runs: Running[]): Promise<string[]> {
  const problems: string[] = [];
  for (const run of runs.filter((r) => r.kind !== OFF)) {
    const expected = callsMade.get(run);
    const name = `${run.group.name} ${run.kind.name}`;
    let result = await verifyAuditLog(auditFileOf(run));
    for (let i = 0; i < 200 && result.ok && callRecords(auditFileOf(run)) < (expected ?? 0); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      result = await verifyAuditLog(auditFileOf(run));
    }
    const calls = callRecords(auditFileOf(run));
    if (!result.ok) problems.push(`${name}: line ${result.line}: ${result.problem}`);
    else if (calls !== expected)
      problems.push(`${name}: ${calls} call records for ${expected} calls`);
    else {
      const others = result.records - calls;
      console.log(`${name}: audit log intact, ${calls} call records and ${others} others (pins)`);
    }
  }
  return problems;
}

async function main(): Promise<boolean> {
  const runs: Running[] = [];
  try {
    for (const group of groups) {
      for (const kind of [OFF, ...MEASURED]) runs.push(await start(kind, group));
    }
    await measureRounds(runs);
  } catch (error) {
    console.error(`failed: ${firstLine(error)}`);
    return false;
  } finally {
    await Promise.allSettled(runs.map((r) => r.close()));
  }
  console.log(
    `\necho tool call, ${MEASURED.map((k) => k.name).join(' and ')} vs neither — ${ROUNDS} interleaved rounds × ${LATENCY_CALLS} ` +
      `sequential calls and ${THROUGHPUT_CALLS} calls from 8 concurrent callers; node ` +
      `${process.version}, ${cpus().length} CPUs; target: median ≤ ${TARGET}× without them\n`,
  );
  console.log(table(rows(runs), 2));
  const problems = await checkLogs(runs);
  for (const problem of problems) console.error(`audit log ${problem}`);
  return problems.length === 0;
}

process.exit((await main()) ? 0 : 1);
