/**
 * A kernel backend for kernels on a Jupyter Server (or Kernel/Enterprise Gateway): the kernel is
 * created with `POST /api/kernels`, its channels travel as JSON over the
 * `/api/kernels/<id>/channels` WebSocket, interrupt and stop are REST calls. Slower than the
 * ZeroMQ backend (one more hop, and the stock server's WebSocket does not set TCP_NODELAY), but
 * the way to reach kernels on another machine.
 *
 * The server decides the kernel's environment and working directory: `env` and `cwd` given to
 * `start()` are not forwarded (Jupyter Server 1.x has no API for them).
 *
 * @see https://jupyter-server.readthedocs.io/en/latest/developers/rest-api.html
 * @module
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import type { KernelBackend, KernelExit, KernelStartOptions, RunningKernel } from './backend.ts';
import { type KernelChannels, ListenerSet, type MessageListener } from './channels.ts';
import { KernelError } from './errors.ts';
import type { ChannelName, JupyterMessage } from './messages.ts';

export interface JupyterServerBackendOptions {
  /** The server's base URL, e.g. `http://127.0.0.1:8888`. */
  url: string;
  /** The server's token; sent as `Authorization: token …`, never in a URL. */
  token?: string;
  /** Kernel spec name. Default `python3`. */
  kernelName?: string;
}

class WebSocketChannels implements KernelChannels {
  readonly #socket: WebSocket;
  readonly #listeners = new ListenerSet();

  constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.on('message', (data, isBinary) => {
      // Binary frames carry messages with buffers (widgets); not used by this client.
      if (isBinary) return;
      let message: JupyterMessage & { channel?: ChannelName };
      try {
        message = JSON.parse(data.toString());
      } catch {
        return;
      }
      if (message.channel) this.#listeners.emit(message.channel, { ...message, buffers: [] });
    });
  }

  send(channel: Exclude<ChannelName, 'iopub'>, message: JupyterMessage<object>): Promise<void> {
    const { buffers: _, ...rest } = message;
    return new Promise((resolve, reject) =>
      this.#socket.send(JSON.stringify({ ...rest, channel }), (error) =>
        error ? reject(error) : resolve(),
      ),
    );
  }

  listen(listener: MessageListener): () => void {
    return this.#listeners.add(listener);
  }

  close(): void {
    this.#socket.close();
  }
}

export function jupyterServerBackend(options: JupyterServerBackendOptions): KernelBackend {
  const base = options.url.replace(/\/+$/, '');
  const headers: Record<string, string> = options.token
    ? { Authorization: `token ${options.token}` }
    : {};

  async function call(method: string, path: string, body?: object): Promise<Response> {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!response.ok) {
      throw new KernelError(
        'KERNEL_START_FAILED',
        `Jupyter Server ${method} ${path} answered ${response.status} ${response.statusText}`,
      );
    }
    return response;
  }

  async function start({ signal }: KernelStartOptions): Promise<RunningKernel> {
    const created = await call('POST', '/api/kernels', { name: options.kernelName ?? 'python3' });
    const { id } = (await created.json()) as { id: string };
    const remove = () =>
      call('DELETE', `/api/kernels/${id}`).then(
        () => {},
        () => {},
      );
    const wsUrl = `${base.replace(/^http/, 'ws')}/api/kernels/${id}/channels?session_id=${randomUUID()}`;
    const socket = new WebSocket(wsUrl, { headers });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('open', resolve);
        socket.once('error', reject);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    } catch (error) {
      socket.terminate();
      await remove();
      throw error;
    }
    const channels = new WebSocketChannels(socket);
    const exited = new Promise<KernelExit>((resolve) => {
      socket.once('close', (code) =>
        resolve({
          reason: `the Jupyter Server closed the kernel connection (WebSocket code ${code})`,
        }),
      );
    });
    let stopping: Promise<void> | undefined;
    return {
      channels,
      pid: undefined,
      exited,
      async interrupt() {
        await call('POST', `/api/kernels/${id}/interrupt`);
      },
      stop() {
        stopping ??= (async () => {
          channels.close();
          await remove();
        })();
        return stopping;
      },
    };
  }

  return { name: 'jupyter-server', start };
}
