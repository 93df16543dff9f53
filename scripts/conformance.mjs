#!/usr/bin/env node
// Runs the official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16, on Node 22
// through the npm package `node@22`) against mcp-factory and mcp-proxy, each serving the
// `conformance` plugin over Streamable HTTP on free loopback ports.
//
// - The active suite must pass in full (no expected-failures baseline): any failure exits 1.
// - Pending scenarios are run and reported: `json-schema-2020-12` passes reliably and is
//   required; `server-sse-polling` is reported only (see PENDING below).
// - Every server and suite process runs in its own process group and is killed on exit,
//   on Ctrl-C, and when a run exceeds its timeout.
//
// Usage: node scripts/conformance.mjs [--target factory|proxy]...
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SUITE = ['-y', '-p', 'node@22', '-p', '@modelcontextprotocol/conformance@0.1.16'];
/** The first run may download Node 22 and the suite (about a minute here). */
const RUN_TIMEOUT_MS = 300_000;
const START_TIMEOUT_MS = 60_000;

/** Pending scenarios: `required` ones fail CI like active ones; the others are only reported. */
const PENDING = [
  { scenario: 'json-schema-2020-12', required: true },
  // The suite's raw POST announces protocol 2025-03-26, and the SDK transport sends SSE
  // priming events only to 2025-11-25 clients, so this scenario yields warnings, not passes.
  { scenario: 'server-sse-polling', required: false },
];

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
      // Any HTTP answer from the MCP path (400 without a session) means it is listening.
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
  const child = start(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
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

/** Counts check statuses from the `checks.json` files the suite writes with `-o`. */
function countChecks(dir) {
  const counts = { SUCCESS: 0, FAILURE: 0, WARNING: 0, scenarios: 0 };
  for (const run of readdirSync(dir)) {
    let checks;
    try {
      checks = JSON.parse(readFileSync(join(dir, run, 'checks.json'), 'utf8'));
    } catch {
      continue;
    }
    counts.scenarios += 1;
    for (const check of checks) {
      if (check.status in counts) counts[check.status] += 1;
    }
  }
  return counts;
}

/** Runs the suite once; resolves with its exit code, output and the checks' statuses. */
async function runSuite(url, extraArgs) {
  const resultsDir = mkdtempSync(join(tmpdir(), 'mcpbox-conformance-'));
  const args = [...SUITE, 'conformance', 'server', '--url', url, '-o', resultsDir, ...extraArgs];
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
  const counts = countChecks(resultsDir);
  rmSync(resultsDir, { recursive: true, force: true });
  return { code: code ?? (signal ? 1 : 0), output, ...counts };
}

/** `X/Y checks passed, n warnings` — Y counts every scored check (passed, failed, warned). */
function describe(run) {
  const total = run.SUCCESS + run.FAILURE + run.WARNING;
  const warnings = run.WARNING ? `, ${run.WARNING} warning(s)` : '';
  return `${run.SUCCESS}/${total} checks passed, ${run.FAILURE} failed${warnings} (${run.scenarios} scenarios)`;
}

function summaryOf(output) {
  const at = output.indexOf('=== SUMMARY ===');
  return at >= 0 ? output.slice(at).trim() : output.trim().split('\n').slice(-40).join('\n');
}

function parseTargets(argv) {
  const targets = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--target' && argv[i + 1]) targets.push(argv[++i]);
  }
  const unknown = targets.filter((t) => t !== 'factory' && t !== 'proxy');
  if (unknown.length > 0) {
    console.error(`conformance: unknown target ${unknown.join(', ')} (use factory or proxy)`);
    process.exit(2);
  }
  return targets.length > 0 ? targets : ['factory', 'proxy'];
}

const results = [];
let failed = false;
for (const target of parseTargets(process.argv.slice(2))) {
  console.log(`\n=== mcp-${target}: starting with -p conformance ===`);
  let server;
  try {
    server = await startServer(target);
  } catch (error) {
    console.error(String(error.message ?? error));
    failed = true;
    results.push(`mcp-${target}: did not start`);
    continue;
  }
  try {
    console.log(`=== mcp-${target}: active suite against ${server.url} ===`);
    const active = await runSuite(server.url, []);
    const ok = active.code === 0 && active.FAILURE === 0 && active.SUCCESS > 0;
    console.log(ok ? summaryOf(active.output) : active.output);
    results.push(`mcp-${target} active suite: ${describe(active)}${ok ? '' : ' — FAILED'}`);
    if (!ok) failed = true;

    for (const { scenario, required } of PENDING) {
      const run = await runSuite(server.url, ['--scenario', scenario]);
      const ok = run.code === 0 && run.FAILURE === 0 && run.scenarios === 1;
      console.log(`--- pending ${scenario} ---\n${ok ? summaryOf(run.output) : run.output}`);
      const note = required ? '' : ' (reported only)';
      results.push(
        `mcp-${target} pending ${scenario}: ${describe(run)}${ok ? '' : ' — FAILED'}${note}`,
      );
      if (!ok && required) failed = true;
    }
  } finally {
    killGroup(server.child);
    if (server.child.exitCode === null) await once(server.child, 'exit');
  }
}

console.log(`\n=== conformance results ===\n${results.join('\n')}`);
process.exit(failed ? 1 : 0);
