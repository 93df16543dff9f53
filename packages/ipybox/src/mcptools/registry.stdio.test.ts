/**
 * Registrations survive a restart (issue 14's defect: the `mcptools/` modules remained but every
 * call failed with `ToolNotFound … registered: none`): the real `ipybox` bin over stdio, a server
 * registered by a 2025 client, ipybox stopped and started again on the same workspace, and the
 * tool called from Python by a 2026 client. The `${VAR}` placeholder in the params is expanded
 * at connect time in the new process and never written down.
 */
import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fixtureParams } from '@mcpbox/framework/testing';
import { runCell, startStdioIpybox, tempWorkspace, textOf } from '../server/testing.ts';
import { registryFile } from './registry.ts';

const MODERN = '2026-07-28';
// biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${VAR} placeholder
const PLACEHOLDER = '${START_LOG}';
const CALL = [
  'from mcptools._runtime import ToolCallError',
  'from mcptools.modern import echo',
  'try:',
  "    print(echo.run({'text': 'after restart'}))",
  'except ToolCallError as e:',
  "    print(type(e).__name__, '|', e)",
].join('\n');

describe('register_mcp_server across a restart of ipybox', () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let state: Awaited<ReturnType<typeof tempWorkspace>>;
  let env: Record<string, string>;
  before(async () => {
    ws = await tempWorkspace();
    state = await tempWorkspace('ipybox-state-');
    env = { XDG_STATE_HOME: state.dir, START_LOG: join(state.dir, 'starts.log') };
  });
  after(async () => {
    await ws?.remove();
    await state?.remove();
  });

  test('a registration with a placeholder is remembered and works after the restart', async () => {
    const params = fixtureParams('upstream-modern.ts', { UPSTREAM_START_LOG: PLACEHOLDER });
    const first = await startStdioIpybox(ws.dir, { env });
    try {
      const registered = await first.client.callTool({
        name: 'register_mcp_server',
        arguments: { server_name: 'modern', server_params: params },
      });
      assert.equal(registered.isError, undefined, textOf(registered));
      assert.doesNotMatch(textOf(registered), /Not remembered/);
    } finally {
      await first.close();
    }
    const stored = await readFile(registryFile(ws.dir, env), 'utf8');
    assert.ok(stored.includes(PLACEHOLDER), stored);
    assert.ok(!stored.includes(env.START_LOG as string), 'the expanded value is not on disk');

    const second = await startStdioIpybox(ws.dir, {
      env,
      clientOptions: { versionNegotiation: { mode: { pin: MODERN } } },
    });
    try {
      assert.equal(second.client.getNegotiatedProtocolVersion(), MODERN);
      const result = await runCell(second.client, CALL);
      assert.equal(textOf(result), 'echo: after restart');
      // The placeholder reached the upstream expanded: it logged its start to START_LOG.
      assert.match(await readFile(env.START_LOG as string, 'utf8'), /^\d+\n/);
    } finally {
      await second.close();
    }
  });

  test('a registration with a literal secret says it is not remembered; after a restart the call says to register again', async () => {
    const params = fixtureParams('upstream-modern.ts', { API_KEY: 'abc-literal-123' });
    const first = await startStdioIpybox(ws.dir, { env });
    try {
      const registered = await first.client.callTool({
        name: 'register_mcp_server',
        arguments: { server_name: 'modern', server_params: params },
      });
      assert.match(textOf(registered), /Not remembered across restarts.*env\.API_KEY/);
      assert.equal(textOf(await runCell(first.client, CALL)), 'echo: after restart');
    } finally {
      await first.close();
    }
    assert.ok(!(await readFile(registryFile(ws.dir, env), 'utf8')).includes('abc-literal-123'));

    const second = await startStdioIpybox(ws.dir, { env });
    try {
      assert.match(
        textOf(await runCell(second.client, CALL)),
        /^ToolNotFound \| unknown MCP server 'modern' \(registered: none\); register it with the register_mcp_server tool/,
      );
    } finally {
      await second.close();
    }
    await rm(join(ws.dir, 'mcptools', 'modern'), { recursive: true, force: true });
  });
});
