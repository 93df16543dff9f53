// The backend contract against a real Jupyter Server (Debian's python3-jupyter-server), plus what
// is particular to it: a wrong token is refused with a clear error.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type JupyterServer, startJupyterServer } from '../__fixtures__/jupyterServer.ts';
import { runKernelBackendContract } from './backend.contract.ts';
import { KernelClient } from './client.ts';
import { jupyterServerBackend } from './jupyterServerBackend.ts';

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
