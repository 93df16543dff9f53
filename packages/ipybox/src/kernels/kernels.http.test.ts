/**
 * Kernels for callers without a session, over real HTTP, against the real `ipybox --http` and
 * `mcp-proxy -a ipybox`, with real SDK v2 clients of both eras: an unauthenticated 2026 request
 * without a handle gets a new kernel and its handle (never another caller's state); handles keep
 * state per kernel and isolate kernels; forged, foreign and reaped handles get clear errors and
 * touch nothing; `max_kernels` counts every kind; with OAuth (a local introspection server) a
 * principal keeps one default kernel across its clients, isolated from other principals.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, type TestContext, test } from 'node:test';
import { type Era, versionOfEra } from '@mcpbox/framework';
import { runServerBin, startIntrospectionServer, startProxy } from '@mcpbox/test-utils';
import {
  type CallToolResult,
  Client,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { IPYBOX_BIN, tempWorkspace, textOf, waitForExit } from '../server/testing.ts';
import { KERNEL_META_KEY } from '../tools/kernelTools.ts';

/**
 * kernel_idle_timeout of the max_kernels test: long enough that neither kernel is reaped while
 * the test still fills the room on a loaded machine (2 s was not), short enough to wait for.
 */
const IDLE_S = 8;

interface Served {
  url: URL;
}

/** Starts a server of one kind with ipybox settings (snake_case, as in YAML) and OAuth. */
type Start = (
  t: TestContext,
  workspace: string,
  settings: { max_kernels?: number; kernel_idle_timeout?: number },
  oauth?: string,
) => Promise<Served>;

const startIpybox: Start = async (t, workspace, settings, oauth) => {
  const args = ['--workspace', workspace, '--http', '0'];
  if (settings.max_kernels) args.push('--max-kernels', String(settings.max_kernels));
  if (settings.kernel_idle_timeout) {
    args.push('--kernel-idle-timeout', String(settings.kernel_idle_timeout));
  }
  if (oauth) args.push('--oauth-server-url', oauth, '--oauth-public-url', 'http://127.0.0.1/mcp');
  const run = await runServerBin(t, IPYBOX_BIN, args, /ipybox MCP endpoint: (\S+)/);
  assert.ok(run.match, run.stderr());
  return { url: new URL(run.match[1] as string) };
};

const startProxyWithIpybox: Start = async (t, workspace, settings, oauth) => {
  const lines = ['plugins:', '  ipybox:', `    workspace: ${JSON.stringify(workspace)}`];
  for (const [key, value] of Object.entries(settings)) lines.push(`    ${key}: ${value}`);
  if (oauth) lines.push(`oauth_server_url: ${oauth}`, 'oauth_public_url: http://127.0.0.1/mcp');
  const config = join(workspace, 'proxy.yaml'); // removed with the workspace
  await writeFile(config, `${lines.join('\n')}\n`);
  const proxy = await startProxy(
    ['--http', '0', '--mgmt-port', '0', '--health-port', '0', '-c', config, '-a', 'ipybox'],
    { env: { HOME: workspace }, timeoutMs: 120_000 },
  );
  t.after(() => proxy.stop());
  return { url: new URL(proxy.mcpUrl as string) };
};

const SERVERS: [string, Start][] = [
  ['ipybox --http', startIpybox],
  ['mcp-proxy -a ipybox', startProxyWithIpybox],
];

async function connect(t: TestContext, url: URL, era: Era, token?: string): Promise<Client> {
  const client = new Client(
    { name: `kernels-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } } },
  );
  const headers = token ? { authorization: `Bearer ${token}` } : undefined;
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  t.after(() => client.close());
  return client;
}

async function cell(client: Client, code: string, kernel?: string): Promise<CallToolResult> {
  return (await client.callTool(
    { name: 'execute_ipython_cell', arguments: { code, ...(kernel && { kernel }) } },
    { timeout: 300_000 },
  )) as CallToolResult;
}

/** The value a cell printed, failing with the result's text when it was an error. */
async function value(client: Client, code: string, kernel?: string): Promise<string> {
  const result = await cell(client, code, kernel);
  assert.equal(result.isError, undefined, textOf(result));
  return textOf(result).split('\n')[0] as string;
}

function handleOf(result: CallToolResult): string {
  const handle = result._meta?.[KERNEL_META_KEY];
  assert.equal(typeof handle, 'string', JSON.stringify(result));
  return handle as string;
}

async function newKernel(client: Client): Promise<string> {
  const result = (await client.callTool({ name: 'new_kernel', arguments: {} })) as CallToolResult;
  assert.equal(result.isError, undefined, textOf(result));
  assert.equal(textOf(result), handleOf(result));
  return handleOf(result);
}

async function workspace(t: TestContext): Promise<string> {
  const ws = await tempWorkspace();
  t.after(() => ws.remove());
  return ws.dir;
}

for (const [kind, start] of SERVERS) {
  describe(`kernels over HTTP without authentication (${kind})`, () => {
    test('a 2026 call without a handle gets a new kernel and its handle; handles keep and isolate state', async (t) => {
      const dir = await workspace(t);
      const { url } = await start(t, dir, { max_kernels: 8 });
      const alice = await connect(t, url, 'modern');
      const bob = await connect(t, url, 'modern');

      const first = await cell(alice, "x = 'alice'\nimport os\nos.getpid()");
      assert.equal(first.isError, undefined, textOf(first));
      const handle = handleOf(first);
      assert.match(handle, /^ipk_[0-9a-f]{12}_[A-Za-z0-9_-]{24}$/);
      assert.match(textOf(first), new RegExp(`\\[new kernel: pass kernel="${handle}"`));

      // Without the handle: never the state of the kernel opened before.
      const other = await cell(bob, "'x' in globals()");
      assert.equal(textOf(other).split('\n')[0], 'False');
      assert.notEqual(handleOf(other), handle);
      // With it: the same kernel, whichever client sends it (no authentication: a bearer handle).
      assert.equal(await value(bob, 'x', handle), "'alice'");
      const second = await cell(alice, 'x += "!"\nos.getpid()', handle);
      assert.equal(textOf(second), textOf(first).split('\n')[0], 'same kernel process');
      assert.equal(handleOf(second), handle);
      assert.doesNotMatch(textOf(second), /new kernel/, 'a known handle is not announced again');

      // new_kernel: independent state; reset of one leaves the other.
      const fresh = await newKernel(alice);
      assert.equal(await value(alice, "'x' in globals()", fresh), 'False');
      assert.equal(await value(alice, "y = 1\n'y'", fresh), "'y'");
      const reset = await alice.callTool({ name: 'reset', arguments: { kernel: fresh } });
      assert.equal(reset.isError, undefined, textOf(reset));
      assert.equal(await value(alice, "'y' in globals()", fresh), 'False');
      assert.equal(await value(alice, 'x', handle), "'alice!'");

      // reset without a handle has no kernel to reset: an error, no kernel opened or touched.
      const blind = (await alice.callTool({ name: 'reset', arguments: {} })) as CallToolResult;
      assert.equal(blind.isError, true);
      assert.match(textOf(blind), /name the kernel \(kernel="ipk_\.\.\."\)/);
      assert.equal(await value(alice, 'x', handle), "'alice!'");
    });

    test('forged, tampered and 2025-session handles: clear errors, nothing runs', async (t) => {
      const dir = await workspace(t);
      const { url } = await start(t, dir, { max_kernels: 8 });
      const modern = await connect(t, url, 'modern');
      const legacy = await connect(t, url, 'legacy');
      const mine = handleOf(await cell(legacy, 'z = 1'));
      const real = await newKernel(modern);
      const marker = join(dir, 'ran.txt');
      const touch = `open(${JSON.stringify(marker)}, 'w').write('ran')`;

      const tampered = `${real.slice(0, -4)}${real.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
      for (const forged of [
        'ipk_000000000000_AAAAAAAAAAAAAAAAAAAAAAAA',
        'not-a-handle',
        tampered,
      ]) {
        const refused = await cell(modern, touch, forged);
        assert.equal(refused.isError, true, forged);
        assert.match(textOf(refused), /unknown kernel handle: .*Nothing ran/);
        assert.equal(textOf(refused).includes(real), false, 'the error never names a real handle');
      }
      // A 2025 session's kernel belongs to that session: another caller's handle.
      const foreign = await cell(modern, touch, mine);
      assert.equal(foreign.isError, true);
      assert.match(textOf(foreign), /belongs to another caller .*it was not touched/);
      const reset = (await modern.callTool({
        name: 'reset',
        arguments: { kernel: mine },
      })) as CallToolResult;
      assert.equal(reset.isError, true);
      assert.equal(existsSync(marker), false, 'no refused cell ran');
      // The session still has its state: nothing was reset.
      assert.equal(await value(legacy, 'z'), '1');
      assert.equal(await value(legacy, 'z', mine), '1', 'its own handle works in the session');
    });

    test('max_kernels counts every kind; a reaped handle says its state is gone, and why', async (t) => {
      const dir = await workspace(t);
      const { url } = await start(t, dir, { max_kernels: 2, kernel_idle_timeout: IDLE_S });
      const legacy = await connect(t, url, 'legacy');
      const modern = await connect(t, url, 'modern');
      const pid = Number(await value(legacy, 'import os; os.getpid()'));
      const handle = await newKernel(modern);
      const handlePid = Number(await value(modern, 'w = 5\nimport os; os.getpid()', handle));

      const refused = await cell(modern, '1 + 1');
      assert.equal(refused.isError, true);
      assert.match(textOf(refused), /all 2 kernels \(max_kernels\) are in use/);
      const noRoom = (await modern.callTool({
        name: 'new_kernel',
        arguments: {},
      })) as CallToolResult;
      assert.equal(noRoom.isError, true);
      assert.match(textOf(noRoom), /max_kernels/);

      // Idle past kernel_idle_timeout: both are closed, whatever their kind.
      assert.ok(await waitForExit(pid, 30_000), "the 2025 session's idle kernel reaped");
      assert.ok(await waitForExit(handlePid, 30_000), "the handle's idle kernel reaped");
      const gone = await cell(modern, 'w', handle);
      assert.equal(gone.isError, true);
      assert.match(
        textOf(gone),
        new RegExp(
          `kernel [0-9a-f]{12} is gone: it was closed after ${IDLE_S} s idle \\(kernel_idle_timeout\\); its variables and imports are lost\\. Nothing ran\\.`,
        ),
      );
      // Said again on every use of the handle, never a NameError in a fresh kernel.
      assert.match(textOf(await cell(modern, 'w', handle)), /is gone/);
      // The session hears once that its kernel went; its next call starts afresh.
      const told = await cell(legacy, 'os');
      assert.equal(told.isError, true);
      assert.match(
        textOf(told),
        new RegExp(`your kernel was closed after ${IDLE_S} s idle .*Nothing ran`),
      );
      assert.equal(await value(legacy, "'os' in globals()"), 'False');
    });

    test("a 2025 session's kernel ends when the client closes the session (DELETE)", async (t) => {
      const dir = await workspace(t);
      const { url } = await start(t, dir, { max_kernels: 2 });
      const transport = new StreamableHTTPClientTransport(url);
      const client = new Client(
        { name: 'leaving', version: '1.0.0' },
        { versionNegotiation: { mode: 'legacy' } },
      );
      await client.connect(transport);
      t.after(() => client.close());
      const first = await cell(client, 'import os; os.getpid()');
      const handle = handleOf(first);
      const pid = Number(textOf(first));
      // A kernel the session opened with new_kernel belongs to the session too.
      const extra = await newKernel(client);
      const extraPid = Number(await value(client, 'import os; os.getpid()', extra));
      await transport.terminateSession();
      assert.ok(await waitForExit(pid, 30_000), 'the kernel process exited with its session');
      assert.ok(await waitForExit(extraPid, 30_000), 'so did the one it opened with new_kernel');

      // Their room is free at once (max_kernels 2), and a handle of theirs opens nothing.
      const next = await connect(t, url, 'modern');
      const gone = await cell(next, 'os', handle);
      assert.equal(gone.isError, true);
      assert.match(textOf(gone), /belongs to another caller/);
      assert.equal(await value(next, '6 * 7'), '42');
      assert.equal(await value(next, '7 * 7', await newKernel(next)), '49');
    });
  });

  describe(`kernels per OAuth principal (${kind})`, () => {
    test("a principal's clients share its kernel in both eras' requests; other principals never see it", async (t) => {
      const as = await startIntrospectionServer();
      t.after(() => as.close());
      as.tokens.set('alice-1', { active: true, sub: 'alice', client_id: 'app' });
      as.tokens.set('alice-2', { active: true, sub: 'alice', client_id: 'app' });
      as.tokens.set('bob', { active: true, sub: 'bob', client_id: 'app' });
      const dir = await workspace(t);
      const { url } = await start(t, dir, { max_kernels: 8 }, as.url);
      const alice1 = await connect(t, url, 'modern', 'alice-1');
      const alice2 = await connect(t, url, 'modern', 'alice-2');
      const aliceLegacy = await connect(t, url, 'legacy', 'alice-1');
      const bob = await connect(t, url, 'modern', 'bob');

      const first = await cell(alice1, "secret = 'alice'");
      assert.equal(first.isError, undefined, textOf(first));
      assert.doesNotMatch(textOf(first), /new kernel/, 'a principal needs no handle');
      const aliceDefault = handleOf(first);
      assert.equal(await value(alice2, 'secret'), "'alice'", 'same principal, same kernel');
      assert.equal(await value(bob, "'secret' in globals()"), 'False');
      // A 2025 session keeps a kernel of its own, and reaches the principal's by handle.
      assert.equal(await value(aliceLegacy, "'secret' in globals()"), 'False');
      assert.equal(await value(aliceLegacy, 'secret', aliceDefault), "'alice'");

      // Bob holding Alice's handles: refused, nothing touched.
      const extra = await newKernel(alice1);
      assert.equal(await value(alice2, 'n = 3\nn', extra), '3');
      for (const handle of [aliceDefault, extra]) {
        const refused = await cell(bob, "secret = 'stolen'", handle);
        assert.equal(refused.isError, true);
        assert.match(textOf(refused), /belongs to another caller .*it was not touched/);
        const reset = (await bob.callTool({
          name: 'reset',
          arguments: { kernel: handle },
        })) as CallToolResult;
        assert.equal(reset.isError, true);
      }
      assert.equal(await value(alice1, 'secret'), "'alice'");
      assert.equal(await value(alice1, 'n', extra), '3');
    });
  });
}
