/**
 * `register_mcp_server`, `reset` and calls from kernel code to real upstream MCP servers, end to
 * end: the real `ipybox` bin under the real SDK client over stdio; upstreams are
 * `@modelcontextprotocol/server-everything` and the tool server's own fixture.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { untypedSchemas } from '@mcpbox/test-utils';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { EVERYTHING_BIN, runCell, stdioIpyboxPerSuite, textOf } from '../server/testing.ts';

const FIXTURE = fileURLToPath(new URL('../__fixtures__/toolserver-upstream.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../../../..', import.meta.url));

describe('ipybox over stdio: MCP tools from kernel code', () => {
  const box = stdioIpyboxPerSuite({
    // The secret is only in .env: it reaches the upstream through a ${VAR} placeholder.
    prepare: (dir) => writeFile(join(dir, '.env'), 'FIXTURE_TOKEN=tok-from-dotenv\n'),
  });

  const register = async (server_name: unknown, server_params: unknown) =>
    (await box.client.callTool({
      name: 'register_mcp_server',
      arguments: { server_name, server_params },
    })) as CallToolResult;

  test('register_mcp_server generates mcptools/ and returns the tool names', async () => {
    const result = await register('everything', { command: EVERYTHING_BIN, args: ['stdio'] });
    assert.equal(result.isError, undefined, textOf(result));
    const names = textOf(result).split('\n');
    assert.ok(names.includes('echo'), names.join(','));
    assert.ok(existsSync(join(box.dir, 'mcptools', 'everything', 'echo.py')));
  });

  test('a server named like an mcptools module of ipybox’s own is refused', async () => {
    const result = await register('results', { command: EVERYTHING_BIN, args: ['stdio'] });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /server_name "results" is taken by mcptools\.results/);
    assert.ok(existsSync(join(box.dir, 'mcptools', 'results.py')), 'the module stays');
  });

  test('kernel code calls the upstream through the generated module', async () => {
    const result = await runCell(
      box.client,
      "from mcptools.everything import echo\nprint(echo.run({'message': 'from the kernel'}))",
    );
    assert.equal(result.isError, undefined, textOf(result));
    assert.equal(textOf(result), 'Echo: from the kernel');
  });

  // biome-ignore lint/suspicious/noTemplateCurlyInString: names the placeholder syntax
  test('${VAR} placeholders are filled from .env on the host; the kernel and disk never see the value', async () => {
    const result = await register('fixture', {
      command: process.execPath,
      args: ['--import', 'tsx', FIXTURE],
      cwd: REPO,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a placeholder, resolved by ipybox
      env: { FIXTURE_SECRET: '${FIXTURE_TOKEN}' },
    });
    assert.equal(result.isError, undefined, textOf(result));
    const call = await runCell(
      box.client,
      "import os\nfrom mcptools.fixture import secret\nprint(secret.run({}))\nprint(os.environ.get('FIXTURE_TOKEN'), os.environ.get('FIXTURE_SECRET'))",
    );
    assert.equal(textOf(call), 'tok-from-dotenv\nNone None');
    const init = await readFile(join(box.dir, 'mcptools', 'fixture', '__init__.py'), 'utf8');
    assert.doesNotMatch(init, /tok-from-dotenv/);
  });

  test('a malicious tool description cannot inject code into the generated module', async () => {
    const result = await runCell(
      box.client,
      "import os\nfrom mcptools.fixture import hostile\nprint(hostile.run({}))\nprint(os.path.exists('PWNED'))\nprint('Innocent.' in hostile.run.__doc__)",
    );
    assert.equal(result.isError, undefined, textOf(result));
    assert.equal(textOf(result), 'harmless\nFalse\nTrue');
    assert.equal(existsSync(join(box.dir, 'PWNED')), false);
  });

  test('a tool error, an unknown tool and an unknown server are typed exceptions in the cell', async () => {
    const result = await runCell(
      box.client,
      [
        'from mcptools._runtime import call_tool, ToolError, ToolNotFound',
        'from mcptools.fixture import fail',
        'for f in (lambda: fail.run({}), lambda: call_tool("fixture", "nope", {}), lambda: call_tool("nosuch", "echo", {})):',
        '    try:',
        '        f()',
        '    except (ToolError, ToolNotFound) as e:',
        '        print(type(e).__name__, "|", e)',
      ].join('\n'),
    );
    const lines = textOf(result).split('\n');
    assert.equal(lines.length, 3, textOf(result));
    assert.match(lines[0] ?? '', /^ToolError \| .*disk on fire/);
    assert.match(lines[1] ?? '', /^ToolNotFound \| .*nope/);
    assert.match(lines[2] ?? '', /^ToolNotFound \| .*nosuch/);
  });

  test('an upstream crashing mid-call is a ToolError; the next call restarts it', async () => {
    const result = await runCell(
      box.client,
      [
        'from mcptools._runtime import ToolError',
        'from mcptools.fixture import crash, pid',
        'try:',
        '    crash.run({})',
        'except ToolError as e:',
        "    print('crashed')",
        'print(pid.run({}).isdigit())',
      ].join('\n'),
    );
    assert.equal(textOf(result), 'crashed\nTrue');
  });

  test("every tool's input schema says what each value is (the MCP Inspector's --strict lint)", async () => {
    const { tools } = await box.client.listTools();
    assert.ok(tools.some((tool) => tool.name === 'register_mcp_server'));
    for (const tool of tools) assert.deepEqual(untypedSchemas(tool), [], tool.name);
    // The privileged ones say so in their listing.
    const privileged = tools.filter((tool) => tool._meta?.['io.mcpbox/privileged'] === true);
    assert.deepEqual(privileged.map((tool) => tool.name).sort(), [
      'install_package',
      'register_mcp_server',
    ]);
  });

  test('server_params missing or wrong fields: a clear error naming the field', async () => {
    const none = await register('broken', {});
    assert.equal(none.isError, true);
    assert.match(textOf(none), /server_params: needs either 'command' \(stdio\) or 'url' \(HTTP\)/);
    const typo = await register('broken', { command: 'x', arg: ['y'] });
    assert.equal(typo.isError, true);
    assert.match(textOf(typo), /unknown key 'arg'/);
    const badName = await register('../evil', { command: 'x' });
    assert.equal(badName.isError, true);
    assert.match(textOf(badName), /server_name/);
    const missing = (await box.client.callTool({
      name: 'register_mcp_server',
      arguments: { server_name: 'x' },
    })) as CallToolResult;
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /server_params/);
    const wontStart = await register('ghost', { command: '/nonexistent/server' });
    assert.equal(wontStart.isError, true);
    assert.match(textOf(wontStart), /register_mcp_server ghost: /);
    assert.equal(existsSync(join(box.dir, 'mcptools', 'ghost')), false);
  });

  test('reset: fresh kernel state; workspace files and mcptools/ kept; servers still callable', async () => {
    await runCell(box.client, "kept = 1\nopen('note.txt', 'w').write('still here')");
    const reset = (await box.client.callTool({ name: 'reset', arguments: {} })) as CallToolResult;
    assert.equal(reset.isError, undefined, textOf(reset));
    const after = await runCell(
      box.client,
      "print('kept' in globals())\nprint(open('note.txt').read())\nfrom mcptools.everything import echo\nprint(echo.run({'message': 'again'}))",
    );
    assert.equal(textOf(after), 'False\nstill here\nEcho: again');
  });
});
