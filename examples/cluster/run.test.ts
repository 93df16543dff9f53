// examples/cluster/run.sh end to end: it starts Redis, a Jupyter server, three mcp-proxy replicas
// with ipybox and HAProxy on free loopback ports, prints the URL; a 2026-07-28 client runs cells
// through HAProxy on one kernel (the requests spread over the replicas, the kernel's state is
// reached from each); Ctrl-C (SIGINT) stops everything, and no process it started is left.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ROOT, waitFor } from './processes.ts';

/** Every live descendant of `root` (parent links from /proc), kernels included. */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The name field may hold spaces and parentheses: the parent id follows its last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const visit = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      found.push(child);
      visit(child);
    }
  };
  visit(root);
  return found;
}

const alive = (pid: number) => {
  try {
    // A zombie still answers kill(0); it has exited, only its parent has not reaped it yet.
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
};

test('examples/cluster/run.sh: one kernel through HAProxy and three replicas; Ctrl-C leaves nothing running', async (t) => {
  const run = spawn(join(ROOT, 'examples/cluster/run.sh'), ['--free-ports'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  run.stdout.on('data', (chunk) => {
    output += chunk;
  });
  run.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => run.once('exit', resolve));
  let tree: number[] = [];
  t.after(async () => {
    // Whatever happened above: nothing of the run outlives the test.
    for (const pid of [run.pid!, ...tree]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
  });

  // run.sh that exits first fails the test at once, with what it printed.
  const runSh = {
    name: 'examples/cluster/run.sh',
    output: () => output,
    running: () => run.exitCode === null && run.signalCode === null,
  };
  await waitFor('the MCP endpoint is printed', () => /MCP endpoint:\s+\S+/.test(output), {
    proc: runSh,
    timeoutMs: 300_000,
  });
  const url = /MCP endpoint:\s+(\S+)/.exec(output)![1];
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

  const client = new Client(
    { name: 'cluster-example-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  assert.equal(client.getProtocolEra(), 'modern');
  type Result = { content: { text: string }[]; _meta?: Record<string, unknown> };
  const cell = async (code: string, kernel?: string) =>
    (await client.callTool(
      { name: 'execute_ipython_cell', arguments: { code, ...(kernel && { kernel }) } },
      { timeout: 300_000 },
    )) as Result;
  const first = await cell('x = 41');
  const handle = first._meta?.['ipybox/kernel'] as string;
  assert.match(handle, /^ipk_/);
  // Round robin: three more requests reach each replica once more.
  for (let i = 0; i < 3; i++) assert.equal((await cell('x + 1', handle)).content[0].text, '42');
  await client.close();

  tree = descendants(run.pid!);
  const names = tree.map((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim());
  for (const name of ['redis-server', 'haproxy', 'python3']) {
    assert.ok(names.includes(name), `${name} among ${names.join(', ')}`);
  }
  assert.ok(names.filter((n) => n === 'node').length >= 3, 'three replicas');

  process.kill(run.pid!, 'SIGINT');
  assert.equal(await exited, 0, output);
  assert.match(output, /stopped/);
  await waitFor(
    'every process of the run has exited (kernels included)',
    () => tree.every((pid) => !alive(pid)),
    { timeoutMs: 60_000 },
  );
});
