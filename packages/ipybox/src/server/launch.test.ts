/**
 * The ways a user starts ipybox, each end to end with a real SDK client over stdio:
 * the README's client configuration (`npx --prefix <clone> ipybox …`, started outside the
 * clone), `mcp-factory -p ipybox` with settings from a YAML config, and a raw check that under
 * stdio nothing but JSON-RPC reaches stdout even at debug log level.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  EVERYTHING_BIN,
  FACTORY_BIN,
  IPYBOX_BIN,
  runCell,
  tempWorkspace,
  textOf,
  waitForExit,
} from './testing.ts';

const REPO = fileURLToPath(new URL('../../../../', import.meta.url)).replace(/\/$/, '');

async function connect(command: string, args: string[], cwd: string): Promise<Client> {
  const client = new Client({ name: 'ipybox-launch-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command,
      args,
      cwd,
      env: process.env as Record<string, string>,
      stderr: 'ignore',
    }),
  );
  return client;
}

describe('starting ipybox', () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  before(async () => {
    ws = await tempWorkspace();
  });
  after(async () => {
    await ws?.remove();
  });

  test("the README's client configuration works from outside the clone", async (t) => {
    const workspace = join(ws.dir, 'from-readme'); // does not exist yet: created
    const client = await connect(
      'npx',
      ['--prefix', REPO, 'ipybox', '--workspace', workspace],
      tmpdir(),
    );
    let pid = 0;
    t.after(async () => {
      await client.close();
      if (pid) assert.ok(await waitForExit(pid), 'kernel exits when the client closes');
    });
    const result = await runCell(client, 'import os\nprint(os.getcwd())\nos.getpid()');
    const [cwd, kernelPid] = textOf(result).split('\n');
    assert.equal(cwd, workspace);
    pid = Number(kernelPid);
  });

  test('mcp-factory -p ipybox takes its settings from plugins.ipybox in the YAML config', async (t) => {
    const workspace = join(ws.dir, 'from-yaml');
    const config = join(ws.dir, 'factory.yaml');
    await writeFile(
      config,
      `plugins:\n  ipybox:\n    workspace: ${workspace}\n    approval: deny\n`,
    );
    const client = await connect(
      process.execPath,
      [FACTORY_BIN, '-c', config, '-p', 'echo', 'ipybox'],
      ws.dir,
    );
    t.after(() => client.close());
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of [
      'echo',
      'execute_ipython_cell',
      'install_package',
      'register_mcp_server',
      'reset',
    ]) {
      assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
    }
    assert.equal(textOf(await runCell(client, 'import os; os.getcwd()')), `'${workspace}'`);
    // approval: deny from the YAML applies to calls from code.
    await client.callTool({
      name: 'register_mcp_server',
      arguments: {
        server_name: 'everything',
        server_params: { command: EVERYTHING_BIN, args: ['stdio'] },
      },
    });
    const denied = await runCell(
      client,
      "from mcptools.everything import echo\necho.run({'message': 'x'})",
    );
    assert.equal(denied.isError, true);
    assert.match(textOf(denied), /ToolRejected: .*denied by policy/);
  });

  test('under stdio, stdout carries only JSON-RPC, even at debug level', async (t) => {
    const child = spawn(
      process.execPath,
      [IPYBOX_BIN, '--workspace', join(ws.dir, 'raw'), '--log-level', 'DEBUG'],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    t.after(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'execute_ipython_cell', arguments: { code: "print('to the client')" } },
    });
    while (!stdout.includes('"id":2')) await new Promise((resolve) => setTimeout(resolve, 50));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.stdin.end();
    await exited;
    const lines = stdout.trim().split('\n');
    assert.equal(lines.length, 2);
    for (const line of lines) assert.equal(JSON.parse(line).jsonrpc, '2.0');
    assert.match(lines[1] ?? '', /to the client/);
    assert.match(stderr, /DEBUG|serving MCP over stdio/);
  });
});
