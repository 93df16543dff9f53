// The backend contract against a real Jupyter Server (Debian's python3-jupyter-server), plus what
// is particular to it: a wrong token is refused with a clear error.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type JupyterServer, startJupyterServer } from '../../__fixtures__/jupyterServer.ts';
import { KernelClient } from '../client.ts';
import type { KernelError } from '../errors.ts';
import { runKernelBackendContract } from './backend.contract.ts';
import { jupyterServerBackend } from './jupyterServer.ts';

let server: JupyterServer | undefined;
const env = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  MPLBACKEND: 'module://matplotlib_inline.backend_inline',
};

before(async () => {
  server = await startJupyterServer(env);
});
after(async () => {
  await server?.stop();
});

runKernelBackendContract('jupyter server', async () =>
  jupyterServerBackend({ url: server!.url, token: server!.token }),
);

describe('jupyterServerBackend', () => {
  it('refuses a wrong token with the status, without echoing the token', async (t) => {
    const client = new KernelClient({
      backend: jupyterServerBackend({ url: server!.url, token: 'wrong-token' }),
    });
    t.after(() => client.close());
    await assert.rejects(client.start(), (error: Error) => {
      assert.match(error.message, /POST \/api\/kernels answered 403/);
      assert.doesNotMatch(error.message, /wrong-token/);
      return true;
    });
  });
});

describe('jupyterServerBackend: a remote kernel', () => {
  it('gets its variables, PYTHONPATH and working directory by a silent cell, not PATH', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'mcpbox-remote-env-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const client = new KernelClient({
      backend: jupyterServerBackend({ url: server!.url, token: server!.token }),
      env: { IPYBOX_TOOL_SERVER: 'http://127.0.0.1:1', PYTHONPATH: dir, PATH: '/nowhere' },
      cwd: dir,
    });
    t.after(() => client.close());
    const result = await client.execute(
      'import os, sys\n' +
        'print(os.environ["IPYBOX_TOOL_SERVER"], os.getcwd(), sys.path[0], "/nowhere" in os.environ["PATH"])\n' +
        'print(len(In))', // the silent cell is not in the history
    );
    assert.equal(result.text, `http://127.0.0.1:1 ${dir} ${dir} False\n2\n`);
  });

  it('lost with its restarted server: the next cell is told and nothing runs; the one after gets a fresh kernel', async (t) => {
    let own = await startJupyterServer(env);
    t.after(() => own.stop());
    const { port } = new URL(own.url);
    const client = new KernelClient({
      backend: jupyterServerBackend({ url: own.url, token: own.token }),
    });
    t.after(() => client.close());
    await client.execute('x = 41');
    await own.stop();
    own = await startJupyterServer(env, { port: Number(port), token: own.token });
    await assert.rejects(client.execute('x + 1'), (error: KernelError) => {
      assert.equal(error.code, 'KERNEL_DIED');
      assert.match(
        error.message,
        /^The kernel was lost while no cell ran \(the Jupyter Server at http:\/\/127\.0\.0\.1:\d+ no longer has kernel [0-9a-f-]+: it was restarted, or the kernel was shut down there\): its variables and imports are gone\. Nothing ran\./,
      );
      assert.doesNotMatch(error.message, new RegExp(own.token));
      return true;
    });
    assert.equal((await client.execute('"x" in globals()')).text, 'False');
  });
});
