// stdio: a real child process speaking MCP on its stdin/stdout, driven by the SDK's stdio client.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { firstText } from '@mcpbox/test-utils';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const SCRIPT = join(fileURLToPath(new URL('.', import.meta.url)), '../__fixtures__/stdioServer.ts');

test('a createServer() child serves MCP over stdio, logs to stderr, and exits when the client leaves', async (t) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', SCRIPT],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  t.after(async () => {
    await client.close().catch(() => undefined);
  });
  await client.connect(transport);
  const pid = transport.pid;
  assert.ok(pid);

  const echoed = await client.callTool({ name: 'echo', arguments: { message: 'through pipes' } });
  assert.equal(firstText(echoed), 'through pipes');
  assert.equal(firstText(await client.callTool({ name: 'pid', arguments: {} })), String(pid));
  const failed = await client.callTool({ name: 'fail', arguments: {} });
  assert.equal(failed.isError, true);
  await assert.rejects(
    client.callTool({ name: 'missing', arguments: {} }),
    /Tool missing not found/,
  );
  // Still up after the bad input.
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  assert.ok(names.includes('echo') && names.includes('pid'));

  await client.close();
  // The server noticed stdin closing and exited on its own (the SDK client would SIGTERM later).
  await waitForExit(pid);
  assert.match(stderr, /serving MCP over stdio/);
  assert.match(stderr, /client gone, exiting/);
});

async function waitForExit(pid: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch (error) {
      assert.equal((error as NodeJS.ErrnoException).code, 'ESRCH');
      return;
    }
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGKILL');
      throw new Error(`process ${pid} did not exit`);
    }
    await sleep(50);
  }
}

test('requests written together are all answered, each once, with its own id and result', async (t) => {
  // Answers finished in one tick leave in one write (stdioTransport.ts): none may be lost,
  // doubled, held back or interleaved with another.
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  t.after(() => child.kill('SIGKILL'));
  const lines = createInterface({ input: child.stdout });
  const answers = new Map<unknown, { result?: { content?: { text: string }[] } }>();
  let onAnswer: () => void = () => undefined;
  lines.on('line', (line) => {
    const message = JSON.parse(line) as { id?: unknown; result?: { content?: { text: string }[] } };
    assert.ok(!answers.has(message.id), `answered twice: ${line}`);
    answers.set(message.id, message);
    onAnswer();
  });
  const until = (count: number) =>
    new Promise<void>((resolve) => {
      onAnswer = () => {
        if (answers.size >= count) resolve();
      };
      onAnswer();
    });
  const send = (messages: object[]) =>
    child.stdin.write(
      messages.map((m) => `${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`).join(''),
    );
  send([
    {
      id: 'init',
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      },
    },
  ]);
  await until(1);
  const calls = Array.from({ length: 20 }, (_, i) => ({
    id: i,
    method: 'tools/call',
    params: { name: 'echo', arguments: { message: `m${i}` } },
  }));
  send([{ method: 'notifications/initialized' }, ...calls]);
  await until(21);
  for (let i = 0; i < 20; i++) assert.equal(answers.get(i)?.result?.content?.[0]?.text, `m${i}`);
});
