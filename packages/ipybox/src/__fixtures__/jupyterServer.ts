/**
 * A stock Jupyter Server from Debian's python3-jupyter-server for tests and bench/kernel.ts: the
 * architecture of the Python ipybox (REST + WebSocket in front of the kernel). Runs on a free
 * loopback port with a random token and private Jupyter directories; `stop()` ends its process
 * group and its kernels.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@mcpbox/test-utils';

export interface JupyterServer {
  url: string;
  token: string;
  stop(): Promise<void>;
}

/**
 * Starts the server and resolves once `GET /api/status` answers. `port` and `token`: those of a
 * server stopped before, to restart it (its kernels are gone, as after a real restart).
 */
export async function startJupyterServer(
  env: Record<string, string>,
  { port: wantedPort, token: wantedToken }: { port?: number; token?: string } = {},
): Promise<JupyterServer> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-jupyter-'));
  const token = wantedToken ?? randomBytes(24).toString('hex');
  const port = wantedPort ?? (await freePort());
  const child: ChildProcess = spawn(
    '/usr/bin/python3',
    [
      '-c',
      // Die with this process even on SIGKILL (PR_SET_PDEATHSIG); its kernels watch the server.
      'import ctypes, runpy, signal, sys; ctypes.CDLL(None).prctl(1, signal.SIGKILL); sys.argv[0] = "jupyter-server"; runpy.run_module("jupyter_server", run_name="__main__")',
      '--allow-root',
      '--no-browser',
      '--ip=127.0.0.1',
      `--port=${port}`,
      '--port-retries=0',
      `--ServerApp.token=${token}`,
      `--ServerApp.root_dir=${dir}`,
      '--ServerApp.log_level=WARN',
    ],
    {
      env: {
        ...env,
        JUPYTER_CONFIG_DIR: join(dir, 'config'),
        JUPYTER_DATA_DIR: join(dir, 'data'),
        JUPYTER_RUNTIME_DIR: join(dir, 'runtime'),
        IPYTHONDIR: join(dir, 'ipython'),
      },
      stdio: 'ignore',
      detached: true,
    },
  );
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {}
    if (child.exitCode === null && child.signalCode === null) {
      await new Promise((resolve) => child.once('exit', resolve));
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (let attempt = 0; attempt < 600; attempt++) {
    if (child.exitCode !== null) break;
    try {
      const response = await fetch(`${url}/api/status`, {
        headers: { Authorization: `token ${token}` },
      });
      if (response.ok) return { url, token, stop };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await stop();
  throw new Error('the Jupyter server did not start');
}
