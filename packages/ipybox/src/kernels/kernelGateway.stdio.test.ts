/**
 * `ipybox --kernel-gateway URL`: kernels on a real Jupyter Server (Debian's python3-jupyter-server),
 * the real `ipybox` bin under an SDK client over stdio. Kernel code calls MCP tools back through
 * the advertised tool server address; the server's token never shows in what ipybox writes; a
 * restarted Jupyter server is reported to the next cell.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { type JupyterServer, startJupyterServer } from '../__fixtures__/jupyterServer.ts';
import {
  callEcho,
  IPYBOX_BIN,
  registerEverything,
  runCell,
  type StdioIpybox,
  startStdioIpybox,
  tempWorkspace,
  textOf,
} from '../server/testing.ts';

const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

describe('ipybox --kernel-gateway: kernels on a Jupyter server', () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let jupyter: JupyterServer;
  let box: StdioIpybox;

  const kernelsOnServer = async () => {
    const response = await fetch(`${jupyter.url}/api/kernels`, {
      headers: { Authorization: `token ${jupyter.token}` },
    });
    return ((await response.json()) as { id: string }[]).length;
  };

  before(async () => {
    ws = await tempWorkspace();
    jupyter = await startJupyterServer(ENV);
    box = await startStdioIpybox(ws.dir, {
      args: ['--kernel-gateway', jupyter.url, '--advertise-url', 'http://127.0.0.1'],
      env: { IPYBOX_KERNEL_GATEWAY_TOKEN: jupyter.token },
    });
  });
  after(async () => {
    await box?.close();
    await jupyter?.stop();
    await ws?.remove();
  });

  test('cells run in a kernel of the Jupyter server, and keep their state', async () => {
    assert.equal(await kernelsOnServer(), 0);
    assert.equal(textOf(await runCell(box.client, 'x = 41')), '');
    assert.equal(await kernelsOnServer(), 1);
    assert.equal(textOf(await runCell(box.client, 'x + 1')), '42');
  });

  test('kernel code calls MCP tools through the advertised tool server address', async () => {
    await registerEverything(box.client);
    const address = await runCell(box.client, 'import os\nos.environ["IPYBOX_TOOL_SERVER"]');
    assert.match(textOf(address), /^'http:\/\/127\.0\.0\.1:\d+'$/);
    const result = await runCell(box.client, callEcho('from the gateway kernel'));
    assert.equal(textOf(result), 'Echo: from the gateway kernel');
  });

  test('a restarted Jupyter server: the next cell says the state is lost, nothing ran; then a fresh kernel', async () => {
    await runCell(box.client, 'y = 1');
    const { port } = new URL(jupyter.url);
    await jupyter.stop();
    jupyter = await startJupyterServer(ENV, { port: Number(port), token: jupyter.token });
    const lost = await runCell(box.client, 'y = y + 1\ny');
    assert.equal(lost.isError, true);
    assert.match(
      textOf(lost),
      /The kernel was lost while no cell ran \(the Jupyter Server at http:\/\/127\.0\.0\.1:\d+ no longer has kernel [0-9a-f-]+: it was restarted, or the kernel was shut down there\): its variables and imports are gone\. Nothing ran\./,
    );
    assert.equal(textOf(await runCell(box.client, '"y" in globals()')), 'False');
    assert.equal(await kernelsOnServer(), 1);
  });

  test("the Jupyter server's token is in nothing ipybox wrote", () => {
    assert.doesNotMatch(box.stderr(), new RegExp(jupyter.token));
  });
});

describe('ipybox --kernel-gateway: bad input', () => {
  test('a wrong token: the cell fails naming the refusal, and ipybox stays up', async (t) => {
    const ws = await tempWorkspace();
    t.after(() => ws.remove());
    const jupyter = await startJupyterServer(ENV);
    t.after(() => jupyter.stop());
    const box = await startStdioIpybox(ws.dir, {
      args: ['--kernel-gateway', jupyter.url, '--kernel-gateway-token', 'not-the-token'],
    });
    t.after(() => box.close());
    const result = await runCell(box.client, '1 + 1');
    assert.equal(result.isError, true);
    assert.match(textOf(result), /POST \/api\/kernels answered 403/);
    assert.doesNotMatch(textOf(result) + box.stderr(), /not-the-token/);
    assert.ok((await box.client.listTools()).tools.length > 0);
  });

  test('--kernel-gateway with --sandbox is refused at start, saying why', async (t) => {
    const ws = await tempWorkspace();
    t.after(() => ws.remove());
    const run = spawnSync(
      process.execPath,
      [IPYBOX_BIN, '--workspace', ws.dir, '--kernel-gateway', 'http://127.0.0.1:1', '--sandbox'],
      { input: '', encoding: 'utf8', timeout: 120_000 },
    );
    assert.equal(run.status, 1);
    assert.match(
      run.stderr,
      /kernel_gateway runs kernels on another server, where the sandbox \(sandbox, sandbox_config\) cannot confine them/,
    );
  });
});
