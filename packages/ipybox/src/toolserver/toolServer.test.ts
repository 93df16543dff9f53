/**
 * End to end without a kernel: a real `/usr/bin/python3` process imports the generated modules
 * and calls `run`, which reaches this tool server over HTTP (TCP or a Unix socket), which calls
 * real upstream MCP servers over stdio (our fixture and the npm `server-everything`).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { UpstreamPool } from '@mcpbox/framework';
import { pythonJson } from '../__fixtures__/toolserver-python.ts';
import { ApprovalClient } from '../approval/approvalClient.ts';
import type { ApprovalOutcome, ApprovalRequest } from '../approval/approvalRequest.ts';
import { generateMcpSources } from '../mcptools/generate.ts';
import { ToolServer } from './toolServer.ts';

const FIXTURE = fileURLToPath(new URL('../__fixtures__/toolserver-upstream.ts', import.meta.url));
const EVERYTHING = fileURLToPath(
  new URL('../../../../node_modules/.bin/mcp-server-everything', import.meta.url),
);
const SECRET = 'sk-test-9f8e7d6c5b4a';

interface Attempt {
  ok?: unknown;
  error?: string;
  message?: string;
}

describe('tool server, called from Python through generated modules', () => {
  let root: string;
  let pool: UpstreamPool;
  let server: ToolServer;

  /** Runs `expression` in a fresh Python process; returns its value or its exception. */
  function callFromPython(
    expression: string,
    env: Record<string, string> = server.kernelEnv(),
  ): Promise<Attempt> {
    return pythonJson<Attempt>(
      `
import json
from mcptools._runtime import ToolCallError
from mcptools.fixture import weather, echo_args, fail, crash, pid, slow, secret, hostile
from mcptools.everything import echo
from mcptools._runtime import call_tool
try:
    out = {'ok': ${expression}}
except ToolCallError as e:
    out = {'error': type(e).__name__, 'message': str(e)}
print(json.dumps(out))
`,
      { root, env },
    );
  }

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'toolserver-'));
    // Placeholders are expanded from this env at connect time only.
    pool = new UpstreamPool({ env: { ...process.env, FIXTURE_SECRET_SOURCE: SECRET } });
    await pool.define('fixture', {
      command: process.execPath,
      args: ['--import', 'tsx', FIXTURE],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${VAR} placeholder
      env: { FIXTURE_SECRET: '${FIXTURE_SECRET_SOURCE}' },
    });
    await pool.define('everything', { command: EVERYTHING, args: ['stdio'] });
    server = await ToolServer.start({
      connections: pool,
      socketPath: join(root, 'tools.sock'),
    });
    server.approval.policy = 'auto';
    for (const name of ['fixture', 'everything']) {
      await generateMcpSources(name, {}, root, { listTools: () => pool.get(name).listTools() });
    }
  });
  after(async () => {
    await server?.close();
    await rm(root, { recursive: true, force: true });
  });

  test('echo on the npm reference server, over the Unix socket and over TCP', async () => {
    assert.match(server.address, /^unix:/);
    assert.deepEqual(await callFromPython(`echo.run({'message': 'hi'})`), { ok: 'Echo: hi' });
    const tcp = { ...server.kernelEnv(), IPYBOX_TOOL_SERVER: server.url! };
    assert.deepEqual(await callFromPython(`echo.run({'message': 'tcp'})`, tcp), {
      ok: 'Echo: tcp',
    });
  });

  test('results.load: refused, saying why, by a tool server with no result store', async () => {
    const load = (handle: string) =>
      callFromPython(`__import__('mcptools.results').results.load(${handle})`);
    assert.deepEqual(await load(`'results://${'A'.repeat(22)}'`), {
      error: 'ResultUnavailable',
      message: `No stored result "results://${'A'.repeat(22)}": this server keeps no results by reference (it runs without the mcpbox catalog).`,
    });
    const wrongToken = await callFromPython(`__import__('mcptools.results').results.load('x')`, {
      ...server.kernelEnv(),
      IPYBOX_TOOL_SERVER_TOKEN: 'wrong',
    });
    assert.deepEqual(wrongToken, {
      error: 'ToolCallError',
      message: 'missing or wrong tool server token',
    });
  });

  test('a tool with an output schema returns its structured content', async () => {
    assert.deepEqual(await callFromPython(`weather.run({'city': 'Oslo'})`), {
      ok: { city: 'Oslo', temperature: 21.5, conditions: 'sunny' },
    });
  });

  test('reserved words and odd property names arrive under their real keys', async () => {
    const sent = { class: 'A', 'x-y': 3, mode: 'fast', filter: { field: 'f', range: { min: 1 } } };
    const result = await callFromPython(`echo_args.run(${JSON.stringify(sent)})`);
    assert.deepEqual(JSON.parse(result.ok as string), sent);
  });

  test('the upstream validates arguments: a missing required key is a ToolError', async () => {
    const result = await callFromPython(`echo_args.run({'x-y': 1})`);
    assert.equal(result.error, 'ToolError');
    assert.match(result.message!, /class/);
  });

  test('unknown server and unknown tool raise ToolNotFound', async () => {
    const server1 = await callFromPython(`call_tool('nope', 'echo', {})`);
    assert.deepEqual(server1.error, 'ToolNotFound');
    assert.match(
      server1.message!,
      /unknown MCP server 'nope' \(registered: 'fixture', 'everything'\)/,
    );
    const tool = await callFromPython(`call_tool('fixture', 'no_such_tool', {})`);
    assert.equal(tool.error, 'ToolNotFound');
    assert.match(tool.message!, /has no tool 'no_such_tool'/);
  });

  test('a failing tool raises ToolError with its message', async () => {
    const result = await callFromPython('fail.run()');
    assert.equal(result.error, 'ToolError');
    assert.match(result.message!, /disk on fire/);
  });

  test('an upstream that crashes mid-call gives ToolError, and the next call restarts it', async () => {
    const before = (await callFromPython('pid.run()')).ok as string;
    const crashed = await callFromPython('crash.run()');
    assert.equal(crashed.error, 'ToolError');
    assert.match(crashed.message!, /restarted on the next call/);
    const after = (await callFromPython('pid.run()')).ok as string;
    assert.match(after, /^\d+$/);
    assert.notEqual(after, before, 'a new upstream process answers');
  });

  test('a call over its timeout raises ToolTimeout', async () => {
    const result = await callFromPython(`slow.run({'ms': 30000}, timeout=0.3)`);
    assert.equal(result.error, 'ToolTimeout');
    assert.match(result.message!, /within 0\.3 s/);
  });

  // biome-ignore lint/suspicious/noTemplateCurlyInString: names the placeholder syntax
  test('a ${VAR} placeholder is expanded for the upstream, and no secret is on disk', async () => {
    assert.deepEqual(await callFromPython('secret.run()'), { ok: SECRET });
    const dir = join(root, 'mcptools');
    for (const entry of await readdir(dir, { recursive: true })) {
      if (!entry.endsWith('.py')) continue;
      assert.ok(!(await readFile(join(dir, entry), 'utf8')).includes(SECRET), entry);
    }
    const env = server.kernelEnv();
    assert.ok(!Object.values(env).some((v) => v.includes(SECRET)), 'the kernel env has no secret');
  });

  test('a hostile tool description is data: the module imports and its code never runs', async () => {
    assert.deepEqual(await callFromPython('hostile.run()'), { ok: 'harmless' });
    assert.equal(existsSync(join(root, 'PWNED')), false);
  });

  test('arun: calls awaited together all complete', async () => {
    const result = await pythonJson<string[]>(
      `
import asyncio, json
from mcptools.fixture import slow
from mcptools.everything import echo
async def main():
    return await asyncio.gather(slow.arun({'ms': 200}), echo.arun({'message': 'a'}), slow.arun({'ms': 100}))
print(json.dumps(asyncio.run(main())))
`,
      { root, env: server.kernelEnv() },
    );
    assert.deepEqual(result, ['done', 'Echo: a', 'done']);
  });

  test('a wrong token is refused', async () => {
    const result = await callFromPython(`echo.run({'message': 'x'})`, {
      ...server.kernelEnv(),
      IPYBOX_TOOL_SERVER_TOKEN: 'guess',
    });
    assert.equal(result.error, 'ToolCallError');
    assert.match(result.message!, /wrong tool server token/);
  });

  describe('approval', () => {
    before(() => {
      server.approval.policy = 'ask';
    });
    after(() => {
      server.approval.policy = 'auto';
      server.approval.timeoutMs = undefined;
    });

    async function connectClient(
      decide: (request: ApprovalRequest) => boolean | undefined,
    ): Promise<ApprovalClient> {
      const client = new ApprovalClient({ url: server.approvalUrl!, token: server.approvalToken });
      client.onApproval(decide);
      await client.connect();
      return client;
    }

    test('policy deny: ToolRejected, even with a client that would accept', async (t) => {
      server.approval.policy = 'deny';
      t.after(() => {
        server.approval.policy = 'ask';
      });
      const client = await connectClient(() => true);
      t.after(() => client.close());
      const result = await callFromPython('pid.run()');
      assert.equal(result.error, 'ToolRejected');
      assert.match(result.message!, /denied by policy/);
    });

    test('no approval client connected: ApprovalUnavailable', async () => {
      const result = await callFromPython(`echo.run({'message': 'x'})`);
      assert.equal(result.error, 'ApprovalUnavailable');
      assert.match(result.message!, /no approval client connected/);
    });

    test('accepted by the client: the call runs; the client saw what was asked', async (t) => {
      const seen: string[] = [];
      const client = await connectClient((request) => {
        seen.push(String(request));
        return true;
      });
      t.after(() => client.close());
      assert.deepEqual(await callFromPython(`echo.run({'message': 'ok'})`), { ok: 'Echo: ok' });
      assert.deepEqual(seen, ['everything.echo(message="ok")']);
    });

    test('rejected by the client: ToolRejected, and the tool did not run', async (t) => {
      const client = await connectClient(() => false);
      t.after(() => client.close());
      const result = await callFromPython('pid.run()');
      assert.equal(result.error, 'ToolRejected');
      assert.match(result.message!, /fixture\.pid rejected/);
    });

    test('interrupting the waiting Python code withdraws the approval request', async (t) => {
      let settled: Promise<ApprovalOutcome> | undefined;
      const client = await connectClient((request) => {
        settled = request.settled;
        return undefined; // never decides: the user is still looking at the prompt
      });
      t.after(() => client.close());
      const result = await pythonJson<string>(
        `
import json, signal
from mcptools.fixture import pid
def interrupt(*_):
    raise KeyboardInterrupt
signal.signal(signal.SIGALRM, interrupt)
signal.setitimer(signal.ITIMER_REAL, 2.0)
try:
    pid.run()
    print(json.dumps('returned'))
except KeyboardInterrupt:
    print(json.dumps('interrupted'))
`,
        { root, env: server.kernelEnv() },
      );
      assert.equal(result, 'interrupted');
      assert.ok(settled, 'the client was asked');
      assert.equal(await settled, 'cancelled');
    });

    test('no decision in time: ApprovalTimeout, distinct from ToolRejected', async (t) => {
      server.approval.timeoutMs = 200;
      t.after(() => {
        server.approval.timeoutMs = undefined;
      });
      const client = await connectClient(() => undefined); // never decides
      t.after(() => client.close());
      const result = await callFromPython('pid.run()');
      assert.equal(result.error, 'ApprovalTimeout');
    });
  });
});
