/**
 * The whole path with a real IPython kernel: cell code imports a generated module, calls `run`,
 * the tool server asks for approval and calls a real upstream MCP server. The kernel gets only
 * the tool server's address and token (`kernelEnv()`), never the server params.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { UpstreamPool } from '@mcpbox/framework';
import { ApprovalQueue } from '../approval/approvalQueue.ts';
import { CodeExecutor } from '../executor.ts';
import { CodeExecutionError } from '../kernel/errors.ts';
import { generateMcpSources } from '../mcptools/generate.ts';
import { ToolServer } from './toolServer.ts';

const EVERYTHING = fileURLToPath(
  new URL('../../../../node_modules/.bin/mcp-server-everything', import.meta.url),
);
const silent = { debug() {}, info() {}, warn() {}, error() {} };

describe('tool calls from a real kernel', () => {
  let root: string;
  let server: ToolServer;
  let executor: CodeExecutor;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'toolkernel-'));
    const pool = new UpstreamPool({ logger: silent });
    await pool.define('everything', { command: EVERYTHING, args: ['stdio'] });
    server = await ToolServer.start({
      connections: pool,
      socketPath: join(root, '.tools.sock'),
      logger: silent,
    });
    await generateMcpSources('everything', {}, root, {
      listTools: () => pool.get('everything').listTools(),
    });
    executor = new CodeExecutor({ kernelEnv: server.kernelEnv(), workingDir: root });
    await executor.start();
  });
  after(async () => {
    await executor?.stop();
    await server?.close();
    await rm(root, { recursive: true, force: true });
  });

  test('cell code calls an upstream tool through the generated module', async () => {
    server.approval.policy = 'auto';
    const result = await executor.execute(
      "from mcptools.everything import echo, get_structured_content\nprint(echo.run({'message': 'from the kernel'}))",
    );
    assert.equal(result.text.trim(), 'Echo: from the kernel');
  });

  test('a rejected call is a ToolRejected exception in the cell; the kernel stays usable', async () => {
    server.approval.policy = 'deny';
    const failed = executor.execute("echo.run({'message': 'x'})");
    await assert.rejects(failed, (error: unknown) => {
      assert.ok(error instanceof CodeExecutionError);
      assert.equal(error.ename, 'ToolRejected');
      return true;
    });
    const caught = await executor.execute(
      "from mcptools._runtime import ApprovalError\ntry:\n    echo.run({'message': 'x'})\nexcept ApprovalError as e:\n    print(type(e).__name__)",
    );
    assert.equal(caught.text.trim(), 'ToolRejected');
  });

  test('approvals can be decided in the host loop while the cell waits (ApprovalQueue)', async (t) => {
    server.approval.policy = 'ask';
    const queue = new ApprovalQueue(server.approval);
    t.after(() => queue.close());
    const decided: string[] = [];
    void (async () => {
      for await (const request of queue) {
        decided.push(String(request));
        if (request.toolArgs.message === 'no') request.reject();
        else request.accept();
      }
    })();
    const result = await executor.execute(
      [
        'from mcptools._runtime import ToolRejected',
        "print(echo.run({'message': 'yes'}))",
        'try:',
        "    echo.run({'message': 'no'})",
        'except ToolRejected:',
        "    print('rejected')",
      ].join('\n'),
    );
    assert.equal(result.text.trim(), 'Echo: yes\nrejected');
    assert.deepEqual(decided, ['everything.echo(message="yes")', 'everything.echo(message="no")']);
  });
});
