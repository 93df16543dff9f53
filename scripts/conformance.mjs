#!/usr/bin/env node
// Runs the official MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12, on
// Node 22 through the npm package `node@22`) against mcp-factory and mcp-proxy, each serving the
// `conformance` plugin over Streamable HTTP on free loopback ports, once per protocol revision:
// `--requirements 2025-11-25` (2025 sessions: initialize, Mcp-Session-Id) and
// `--requirements 2026-07-28` (stateless requests with the `_meta` envelope), both on /mcp.
//
// - Every scored check must pass (no expected-failures baseline): a scored FAILURE, a suite that
//   exits non-zero, or a run that scored nothing exits 1. Scored warnings (SHOULD-level) are
//   reported.
// - Scenarios the requirement set runs but does not score (the tasks extension, whose fixtures the
//   conformance plugin serves in tasks.ts; pending ones; ones added after the revision shipped)
//   are counted and reported, per reason; they never fail the run.
// - The Skills extension's scenarios (SEP-2640: `sep-2640-skills-directory`, `-enumeration`,
//   `-manifest`) are in no requirement set (extensions are not on the spec timeline), so they run
//   on their own at each revision's wire (`--scenario S --spec-version REV --force`) against the
//   conformance plugin's skill, and every check must run: a SKIPPED check fails the run (they
//   skip everything when no skill is served), except one the suite skips as not applicable on the
//   negotiated protocol (the 2026 cache fields, on 2025-11-25).
// - Every server and suite process runs in its own process group and is killed on exit, on
//   Ctrl-C, and when a run exceeds its timeout.
//
// Usage: node scripts/conformance.mjs [--target factory|proxy]... [--requirements REV]...
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SUITE = ['-y', '-p', 'node@22', '-p', '@modelcontextprotocol/conformance@0.2.0-alpha.12'];
const REVISIONS = ['2025-11-25', '2026-07-28'];
const TARGETS = ['factory', 'proxy'];
/** The first run may download Node 22 and the suite (about a minute here). */
const RUN_TIMEOUT_MS = 300_000;
const START_TIMEOUT_MS = 60_000;
/** Check statuses that are neither a pass nor a failure. */
const NEUTRAL = new Set(['SKIPPED', 'INFO']);
/** Scenarios run on their own, in which a skipped check fails (see the header). */
const SKILLS_SCENARIOS = [
  'sep-2640-skills-directory',
  'sep-2640-skills-enumeration',
  'sep-2640-skills-manifest',
];
/** How the suite says a check does not apply to the negotiated protocol version. */
const NOT_ON_THIS_WIRE = /^not applicable on negotiated protocol /;

/** Whether a check's status counts as a failure of `scenario`. */
function fails(scenario, check) {
  if (check.status === 'FAILURE') return true;
  return (
    check.status === 'SKIPPED' &&
    SKILLS_SCENARIOS.includes(scenario) &&
    !NOT_ON_THIS_WIRE.test(check.errorMessage ?? '')
  );
}

const children = new Set();

function killGroup(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    // already gone
  }
}

function killAll() {
  for (const child of children) killGroup(child);
}
process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    killAll();
    process.exit(130);
  });
}

/** Spawns a process in its own group so it and everything it starts can be killed together. */
function start(command, args, options = {}) {
  const child = spawn(command, args, { cwd: root, detached: true, ...options });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

async function freePort() {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

/** Waits until `/health/ready` says ready and the MCP endpoint answers HTTP at all. */
async function waitUntilServing(name, child, healthPort, mcpUrl, output) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`${name} exited with code ${child.exitCode}:\n${output()}`);
    }
    try {
      const ready = await fetch(`http://127.0.0.1:${healthPort}/health/ready`);
      // Any HTTP answer from the MCP path (405 for a GET without a session) means it listens.
      if (ready.ok && (await fetch(mcpUrl, { method: 'GET' })).status > 0) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`${name} did not start within ${START_TIMEOUT_MS / 1000} s:\n${output()}`);
}

async function startServer(target) {
  const [mcpPort, healthPort, mgmtPort] = [await freePort(), await freePort(), await freePort()];
  const common = ['--http', String(mcpPort), '--health-port', String(healthPort)];
  const args =
    target === 'factory'
      ? [join(root, 'packages/proxy/bin/mcp-factory.js'), ...common, '-p', 'conformance']
      : [
          join(root, 'packages/proxy/bin/mcp-proxy.js'),
          'serve',
          ...common,
          '--mgmt-port',
          String(mgmtPort),
          '-a',
          'conformance',
        ];
  // The checkout's sources (the `conformance` plugin is a test plugin, not in dist/), as tests run.
  const child = start(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, MCPBOX_BIN: 'source' },
  });
  let log = '';
  child.stdout.on('data', (chunk) => {
    log += chunk;
  });
  child.stderr.on('data', (chunk) => {
    log += chunk;
  });
  const url = `http://127.0.0.1:${mcpPort}/mcp`;
  await waitUntilServing(`mcp-${target}`, child, healthPort, url, () => log);
  return { child, url, log: () => log };
}

/**
 * The scenarios the suite ran, with where it saved each one's checks, read from its output
 * (`=== Running scenario: NAME ===` … `Results saved to DIR`).
 */
function scenarioDirs(output) {
  const dirs = new Map();
  let current;
  for (const line of output.split('\n')) {
    // A requirement set names each scenario it runs; `--scenario` names its one differently.
    const running =
      /^=== Running scenario: (.+) ===$/.exec(line.trim()) ??
      /^Running client scenario '(.+)' against /.exec(line.trim());
    if (running) current = running[1];
    const saved = /^Results saved to (.+)$/.exec(line.trim());
    if (saved && current) dirs.set(current, saved[1]);
  }
  return dirs;
}

/** The scenarios the requirement set runs without scoring, with the reason the suite prints. */
function unscoredScenarios(output) {
  const unscored = new Map();
  const at = output.indexOf('\nNot scored for ');
  if (at < 0) return unscored;
  for (const line of output.slice(at).split('\n').slice(2)) {
    const entry = /^\s+[✓✗] (\S+) \(([^)]+)\)\s*$/.exec(line);
    if (!entry) break;
    unscored.set(entry[1], entry[2]);
  }
  return unscored;
}

function emptyCounts() {
  return { scenarios: 0, failingScenarios: 0, SUCCESS: 0, FAILURE: 0, WARNING: 0 };
}

/** Counts the checks of each scenario into its bucket: `scored`, or its unscored reason. */
function countChecks(output) {
  const unscored = unscoredScenarios(output);
  const buckets = { scored: emptyCounts() };
  const failures = [];
  for (const [scenario, dir] of scenarioDirs(output)) {
    let checks;
    try {
      checks = JSON.parse(readFileSync(join(dir, 'checks.json'), 'utf8'));
    } catch {
      continue;
    }
    const bucket = unscored.get(scenario) ?? 'scored';
    buckets[bucket] ??= emptyCounts();
    const counts = buckets[bucket];
    counts.scenarios += 1;
    let failing = false;
    for (const check of checks) {
      if (fails(scenario, check)) {
        counts.FAILURE += 1;
        failing = true;
        failures.push(`${scenario} / ${check.id}: ${check.status} ${check.errorMessage ?? ''}`);
        continue;
      }
      if (NEUTRAL.has(check.status)) continue;
      if (check.status in counts) counts[check.status] += 1;
      if (bucket === 'scored' && check.status !== 'SUCCESS') {
        failures.push(`${scenario} / ${check.id}: ${check.status} ${check.errorMessage ?? ''}`);
      }
    }
    if (failing) counts.failingScenarios += 1;
  }
  return { buckets, failures };
}

/**
 * Runs the suite with `selection` (a requirement set, or one scenario at a wire version);
 * resolves with its exit code, output and counted checks.
 */
async function runSuite(url, selection) {
  const resultsDir = mkdtempSync(join(tmpdir(), 'mcpbox-conformance-'));
  const args = [...SUITE, 'conformance', 'server', '--url', url, ...selection, '-o', resultsDir];
  const child = start('npx', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const timer = setTimeout(() => {
    output += `\n[conformance.mjs] timed out after ${RUN_TIMEOUT_MS / 1000} s\n`;
    killGroup(child);
  }, RUN_TIMEOUT_MS);
  const [code, signal] = await once(child, 'exit');
  clearTimeout(timer);
  const counted = countChecks(output);
  rmSync(resultsDir, { recursive: true, force: true });
  return { code: code ?? (signal ? 1 : 0), output, ...counted };
}

/** The skills scenarios at `revision`'s wire, one run each, counted together. */
async function runSkillsScenarios(url, revision) {
  const merged = { code: 0, output: '', buckets: { scored: emptyCounts() }, failures: [] };
  for (const scenario of SKILLS_SCENARIOS) {
    const run = await runSuite(url, [
      '--scenario',
      scenario,
      '--spec-version',
      revision,
      '--force',
    ]);
    merged.code ||= run.code;
    merged.output += run.output;
    merged.failures.push(...run.failures);
    for (const [key, value] of Object.entries(run.buckets.scored)) {
      merged.buckets.scored[key] += value;
    }
  }
  return merged;
}

function total(counts) {
  return counts.SUCCESS + counts.FAILURE + counts.WARNING;
}

/** `scored 106/106 passed (37 scenarios)`, plus the unscored buckets. */
function describe(run) {
  const scored = run.buckets.scored;
  const warnings = scored.WARNING ? `, ${scored.WARNING} warning(s)` : '';
  const parts = [
    `scored ${scored.SUCCESS}/${total(scored)} passed${warnings} (${scored.scenarios} scenarios)`,
  ];
  for (const [reason, counts] of Object.entries(run.buckets)) {
    if (reason === 'scored') continue;
    parts.push(
      `unscored ${reason}: ${counts.scenarios} scenario(s), ${counts.failingScenarios} failing, ` +
        `${counts.SUCCESS}/${total(counts)} checks passed`,
    );
  }
  return parts.join('; ');
}

function summaryOf(output) {
  const at = output.indexOf('=== SUMMARY ===');
  return at >= 0 ? output.slice(at).trim() : output.trim().split('\n').slice(-40).join('\n');
}

function parseArgs(argv) {
  const targets = [];
  const revisions = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--target' && argv[i + 1]) targets.push(argv[++i]);
    else if (argv[i] === '--requirements' && argv[i + 1]) revisions.push(argv[++i]);
    else {
      console.error(`conformance: unknown argument ${argv[i]}`);
      process.exit(2);
    }
  }
  const unknown = [
    ...targets.filter((t) => !TARGETS.includes(t)),
    ...revisions.filter((r) => !REVISIONS.includes(r)),
  ];
  if (unknown.length > 0) {
    console.error(
      `conformance: unknown ${unknown.join(', ')} (targets: ${TARGETS.join(', ')}; revisions: ${REVISIONS.join(', ')})`,
    );
    process.exit(2);
  }
  return {
    targets: targets.length > 0 ? targets : TARGETS,
    revisions: revisions.length > 0 ? revisions : REVISIONS,
  };
}

const { targets, revisions } = parseArgs(process.argv.slice(2));
const results = [];
let failed = false;
for (const target of targets) {
  console.log(`\n=== mcp-${target}: starting with the conformance plugin ===`);
  let server;
  try {
    server = await startServer(target);
  } catch (error) {
    console.error(String(error.message ?? error));
    failed = true;
    results.push(`mcp-${target}: did not start — FAILED`);
    continue;
  }
  try {
    for (const revision of revisions) {
      console.log(`=== mcp-${target} × ${revision} against ${server.url} ===`);
      const runs = [
        [revision, await runSuite(server.url, ['--requirements', revision]), 1],
        [
          `${revision} skills`,
          await runSkillsScenarios(server.url, revision),
          SKILLS_SCENARIOS.length,
        ],
      ];
      for (const [label, run, scenarios] of runs) {
        const scored = run.buckets.scored;
        const ok =
          run.code === 0 &&
          scored.FAILURE === 0 &&
          scored.SUCCESS > 0 &&
          scored.scenarios >= scenarios;
        console.log(ok ? summaryOf(run.output) : run.output);
        if (run.failures.length > 0) {
          console.log(`--- scored checks that did not pass ---\n${run.failures.join('\n')}`);
        }
        results.push(`mcp-${target} × ${label}: ${describe(run)}${ok ? '' : ' — FAILED'}`);
        if (!ok) failed = true;
      }
    }
  } finally {
    killGroup(server.child);
    if (server.child.exitCode === null) await once(server.child, 'exit');
  }
}

console.log(`\n=== conformance results ===\n${results.join('\n')}`);
process.exit(failed ? 1 : 0);
