/**
 * Every process of a sandbox ends with its owner: SIGKILL the Node process that started a
 * sandboxed kernel (a signal it cannot handle), and bwrap, the kernel, a subprocess of the kernel
 * and the socat bridges must all be gone.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isGone, waitUntilGone } from '../__fixtures__/processes.ts';

const OWNER = fileURLToPath(new URL('../__fixtures__/sandboxOwner.ts', import.meta.url));

interface ProcessInfo {
  pid: number;
  ppid: number;
  command: string;
}

async function processTable(): Promise<ProcessInfo[]> {
  const table: ProcessInfo[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const command = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).replaceAll('\0', ' ');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.push({ pid: Number(entry), ppid: Number(fields[1]), command });
    } catch {
      // exited while we looked
    }
  }
  return table;
}

async function descendants(root: number): Promise<ProcessInfo[]> {
  const table = await processTable();
  const found: ProcessInfo[] = [];
  const parents = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const process of table) {
      if (parents.has(process.ppid) && !parents.has(process.pid)) {
        parents.add(process.pid);
        found.push(process);
        grew = true;
      }
    }
  }
  return found;
}

test('SIGKILL of the owner leaves no kernel, bwrap or socat of its sandbox', async (t) => {
  const workspace = await mkdtemp(join(tmpdir(), 'sandbox-owner-'));
  const owner = spawn(process.execPath, ['--import', 'tsx', OWNER, workspace], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let tree: ProcessInfo[] = [];
  t.after(async () => {
    owner.kill('SIGKILL');
    // A failed run must not leave the sandbox behind on a shared machine.
    for (const { pid } of tree) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    await rm(workspace, { recursive: true, force: true });
    // A SIGKILLed owner cannot remove its kernel's private directory; bwrap's command line names it.
    for (const dir of new Set(
      tree.flatMap((p) => p.command.match(/\/\S*\/mcpbox-sandbox-\w+/g) ?? []),
    )) {
      await rm(dir, { recursive: true, force: true });
    }
  });
  const [line] = await Promise.race([
    createInterface({ input: owner.stdout })
      [Symbol.asyncIterator]()
      .next()
      .then((r) => [r.value]),
    new Promise<never>((_, reject) => owner.once('exit', () => reject(new Error('owner exited')))),
  ]);
  assert.deepEqual(JSON.parse(line), { ready: true });

  tree = await descendants(owner.pid!);
  const commands = tree.map((p) => p.command);
  assert.ok(
    commands.some((c) => c.startsWith('bwrap ')),
    `no bwrap among ${commands.join('\n')}`,
  );
  assert.ok(
    commands.some((c) => c.includes('bootstrap.py')),
    'no kernel',
  );
  assert.ok(
    commands.some((c) => c.startsWith('sleep 600')),
    'no subprocess of the kernel',
  );
  assert.ok(
    commands.some((c) => /(^|\/)socat UNIX-LISTEN/.test(c)),
    'no host-side socat bridge',
  );

  owner.kill('SIGKILL');
  for (const { pid, command } of tree) {
    assert.ok(await waitUntilGone(pid), `still running after the owner died: ${pid} ${command}`);
  }
  assert.ok(isGone(owner.pid!));
});
