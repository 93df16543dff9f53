/**
 * The JavaScript isolate's escape suite, in a real mcp-proxy over HTTP with two sessions (two
 * callers) and code mode offering Python (the default) beside TypeScript and JavaScript:
 * - nothing of the host is reachable: process, require, fetch, timers, import(), the Function
 *   constructor or eval (the isolate's own global), the prototype chain of bridged values;
 * - what one execution leaves on globalThis or the built-in prototypes is gone for the next one
 *   and never reaches another caller; `session` is per caller;
 * - an infinite loop and a memory bomb end with a clear error and the next call works; huge
 *   output is cut (head and tail shown, the whole a resource only its caller reads);
 * - a TOTP-gated tool is a thrown error naming the locked group, as from Python;
 * - a call queued by code when its execution ended is refused, never run.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { connectHttp, newSecret, startHttpProxy } from '@mcpbox/test-utils';
import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult, ResourceLink } from '@modelcontextprotocol/server';
import { tempWorkspace } from '../../server/testing.ts';
import { executeCode, toolLogEntries, waitFor } from '../testing.ts';

test('code mode isolate: no escape, no leak between callers, limits contained', async (t) => {
  const { dir, remove } = await tempWorkspace('code-mode-escape-');
  t.after(remove);
  await writeFile(
    join(dir, 'proxy.yaml'),
    `plugins:\n  code_mode:\n    workspace: ${JSON.stringify(join(dir, 'workspace'))}\n`,
  );
  const proxy = await startHttpProxy(
    t,
    ['-c', join(dir, 'proxy.yaml'), '-a', 'echo', 'gated', 'code_mode'],
    {
      env: { HOME: dir, TMPDIR: dir, MCP_GATE_SECRET_SECRETS: newSecret() },
      timeoutMs: 90_000,
    },
  );
  const a = await connectHttp(t, proxy.mcpUrl, { name: 'caller-a' });
  const b = await connectHttp(t, proxy.mcpUrl, { name: 'caller-b' });
  const js = (
    client: Client,
    code: string,
    options: { timeout?: number; max_output_chars?: number } = {},
  ) => executeCode(client, code, { language: 'javascript', ...options });

  // Nothing of the host.
  const host = await js(
    a,
    [
      'const kinds = {};',
      'for (const name of ["process", "require", "fetch", "setTimeout", "module", "Buffer", "WebAssembly"]) kinds[name] = typeof globalThis[name];',
      'kinds.functionGlobal = typeof new Function("return this")().process;',
      'kinds.eval = eval("typeof process");',
      'kinds.bridgeConstructor = tools.echo.echo.constructor.constructor("return typeof process")();',
      'const echoed = await tools.echo.echo({ message: "hi" });',
      'kinds.resultProto = Object.getPrototypeOf(echoed) === Object.prototype || typeof echoed === "string";',
      'try { await import("node:fs"); kinds.import = "loaded"; } catch (e) { kinds.import = e.name; }',
      'kinds',
    ].join('\n'),
  );
  assert.equal(host.isError, false, host.text);
  assert.deepEqual(JSON.parse(host.text), {
    process: 'undefined',
    require: 'undefined',
    fetch: 'undefined',
    setTimeout: 'undefined',
    module: 'undefined',
    Buffer: 'undefined',
    WebAssembly: 'undefined',
    functionGlobal: 'undefined',
    eval: 'undefined',
    bridgeConstructor: 'undefined',
    resultProto: true,
    import: 'ReferenceError',
  });
  const staticImport = await executeCode(a, 'import fs from "node:fs";\nfs', {
    language: 'typescript',
  });
  assert.match(staticImport.text, /code\.ts:1:1: import and export are not available/);

  // Pollution stays in its execution; session stays with its caller.
  await js(
    a,
    'globalThis.leak = 1; Object.prototype.polluted = 1; Array.prototype.map = null; session.owner = "a"',
  );
  const clean =
    'typeof leak + " " + typeof ({}).polluted + " " + typeof [].map + " " + session.owner';
  assert.equal((await js(a, clean)).text, 'undefined undefined function a');
  assert.equal((await js(b, clean)).text, 'undefined undefined function undefined');
  // 2026 requests without authentication name no caller: none of them keeps a session, so one
  // never reads what another left.
  const anonymous = () =>
    connectHttp(t, proxy.mcpUrl, {
      name: 'anonymous',
      options: { versionNegotiation: { mode: 'auto' } },
    });
  const [c, d] = await Promise.all([anonymous(), anonymous()]);
  assert.equal((await js(c, 'session.owner = "c"')).text, 'c');
  assert.equal((await js(d, 'typeof session.owner')).text, 'undefined');

  // Limits: contained, and the next call works.
  const loop = await js(a, 'while (true) {}', { timeout: 2 });
  assert.equal(loop.isError, true);
  assert.match(loop.text, /TimeoutError: the code ran longer than 2 s/);
  const bomb = await js(a, 'const all = []; while (true) all.push("x".repeat(1e6) + all.length);');
  assert.equal(bomb.isError, true);
  assert.match(bomb.text, /out of memory/);
  assert.equal((await js(a, '1 + 1')).text, '2');
  const tooBig = await js(a, 'session.blob = "x".repeat(2e6)');
  assert.match(tooBig.text, /SessionTooLarge: session is \d+ characters as JSON/);
  assert.equal((await js(a, 'session.owner + " " + typeof session.blob')).text, 'a undefined');
  const notJson = await js(a, 'session.n = 1n');
  assert.match(notJson.text, /session is not JSON-serializable/);

  const huge = (await a.callTool(
    {
      name: 'execute_code',
      arguments: {
        language: 'javascript',
        code: 'for (let i = 0; i < 3000; i++) console.log(i + " " + "x".repeat(1000));',
        max_output_chars: 2000,
      },
    },
    { timeout: 300_000 },
  )) as CallToolResult;
  const hugeText = (huge.content[0] as { text: string }).text;
  assert.ok(hugeText.length < 6000, `${hugeText.length} characters shown`);
  assert.match(hugeText, /^0 x/);
  assert.match(hugeText, /2999 x+\s*\S*/);
  const link = huge.content.find((c): c is ResourceLink => c.type === 'resource_link');
  assert.ok(link, hugeText);
  await assert.rejects(b.readResource({ uri: link.uri }), /has no output/);

  // The gate refuses from JavaScript as from Python: a thrown error naming the locked group.
  const gated = await js(a, 'await tools.gated.gated_secret_action({ what: "x" })');
  assert.equal(gated.isError, true);
  assert.match(gated.text, /ToolError: gated\.gated_secret_action: Group 'secrets' is locked/);

  // A call left queued when the execution ends never runs.
  await js(
    a,
    '(async () => { for (let i = 0; i < 50; i++) await null; await tools.echo.echo({ message: "late" }); })();\n"done"',
  );
  await js(a, 'await tools.echo.echo({ message: "after" })');
  await waitFor(
    async () => JSON.stringify(await toolLogEntries(dir)).includes('after'),
    'the later call in the tool-call log',
  );
  const echoed = (await toolLogEntries(dir))
    .filter((entry) => entry.tool === 'echo')
    .map((entry) => (entry.params as { message: string }).message);
  assert.deepEqual(echoed, ['hi', 'after']);
});
