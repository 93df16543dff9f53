/**
 * A kernel backend for kernels on a Jupyter Server (or Kernel/Enterprise Gateway): the kernel is
 * created with `POST /api/kernels`, its channels travel as JSON over the
 * `/api/kernels/<id>/channels` WebSocket, interrupt and stop are REST calls. Slower than the
 * ZeroMQ backend (one more hop, and the stock server's WebSocket does not set TCP_NODELAY), but
 * the way to reach kernels on another machine.
 *
 * The server decides how the kernel process starts: `env` and `cwd` given to `start()` are not
 * forwarded (Jupyter Server 1.x has no API for them); the backend is `remote`, so the client sets
 * them by a silent cell once the kernel answers.
 *
 * @see https://jupyter-server.readthedocs.io/en/latest/developers/rest-api.html
 * @module
 */
import { randomUUID } from 'node:crypto';
import type WebSocket from 'ws';
import { type KernelChannels, ListenerSet, type MessageListener } from '../channels.ts';
import { KernelError } from '../errors.ts';
import type { ChannelName, JupyterMessage } from '../messages.ts';
import type { KernelBackend, KernelExit, KernelStartOptions, RunningKernel } from './backend.ts';

export interface JupyterServerBackendOptions {
  /** The server's base URL, e.g. `http://127.0.0.1:8888`. */
  url: string;
  /** The server's token; sent as `Authorization: token …`, never in a URL. */
  token?: string;
  /** Kernel spec name. Default `python3`. */
  kernelName?: string;
  /** The kernel is shared with other clients (cluster mode): see {@link SharedRemoteKernel}. */
  shared?: SharedRemoteKernel;
}

/**
 * A kernel on the server that other clients drive too (cluster mode: any replica runs a caller's
 * cells). `start()` attaches to `id` when set, else creates a kernel and tells `onCreated`;
 * `stop()` only detaches (the kernel is not ours alone), `end()` shuts it down on the server.
 */
export interface SharedRemoteKernel {
  id: string | undefined;
  /** A kernel found gone when attaching (its loss was told): the next start creates a fresh one. */
  lost?: string;
  onCreated?(id: string): void;
}

export interface JupyterServerBackend extends KernelBackend {
  /** Shuts a kernel down on the server (a shared kernel its owner ends). Never throws. */
  endKernel(id: string): Promise<void>;
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

export function jupyterServerBackend(options: JupyterServerBackendOptions): JupyterServerBackend {
  const api = new JupyterServerApi(options.url, options.token);
  /** Kernels whose loss this backend reported as their exit (the client told the caller). */
  const reportedLost = new Set<string>();
  return {
    name: 'jupyter-server',
    remote: true,
    shared: options.shared !== undefined,
    start: (startOptions) => startRemoteKernel(api, options, reportedLost, startOptions),
    endKernel: (id) => api.endKernel(id),
  };
}

/** The server's REST API, as far as this backend uses it. */
class JupyterServerApi {
  readonly base: string;
  readonly headers: Record<string, string>;

  constructor(url: string, token: string | undefined) {
    this.base = url.replace(/\/+$/, '');
    this.headers = token ? { Authorization: `token ${token}` } : {};
  }

  async call(method: string, path: string, body?: object): Promise<Response> {
    const { base } = this;
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: { ...this.headers, 'Content-Type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? String(error);
      throw new KernelError(
        'KERNEL_START_FAILED',
        `cannot reach the Jupyter Server at ${base} (${cause}): is it running, and is the URL (kernel_gateway.url, --kernel-gateway) right?`,
      );
    }
    if (!response.ok) {
      throw new KernelError(
        'KERNEL_START_FAILED',
        `Jupyter Server ${method} ${path} answered ${response.status} ${response.statusText}`,
      );
    }
    return response;
  }

  /** Whether the server still lists the kernel (false also when the server does not answer). */
  async kernelStillThere(id: string): Promise<boolean> {
    try {
      const response = await fetch(`${this.base}/api/kernels/${id}`, {
        headers: this.headers,
        signal: AbortSignal.timeout(5000),
      });
      return response.ok;
    } catch {
      return false;
    }
  }

  lostMessage(id: string): string {
    return `the Jupyter Server at ${this.base} no longer has kernel ${id}: it was restarted, or the kernel was shut down there`;
  }

  /** Shuts the kernel down on the server. Never throws. */
  endKernel(id: string): Promise<void> {
    return this.call('DELETE', `/api/kernels/${id}`).then(
      () => {},
      () => {},
    );
  }
}

/** The kernel to drive: the shared one when there is one, else a new one. */
async function kernelId(
  api: JupyterServerApi,
  options: JupyterServerBackendOptions,
  reportedLost: Set<string>,
): Promise<{ id: string; created: boolean }> {
  const { shared } = options;
  if (shared?.id !== undefined && !reportedLost.has(shared.id)) {
    const id = shared.id;
    if (await api.kernelStillThere(id)) return { id, created: false };
    shared.id = undefined; // the next start creates a fresh one, once this loss was told
    shared.lost = id;
    throw new KernelError(
      'KERNEL_DIED',
      `The kernel was lost (${api.lostMessage(id)}): its variables and imports are gone. Nothing ran. Call again to start a fresh kernel, and re-run the cells it needs.`,
    );
  }
  const created = await api.call('POST', '/api/kernels', { name: options.kernelName ?? 'python3' });
  const { id } = (await created.json()) as { id: string };
  return { id, created: true };
}

/** Opens the kernel's channels WebSocket; a kernel this start created is ended if that fails. */
async function openChannels(
  api: JupyterServerApi,
  { id, created }: { id: string; created: boolean },
  signal: AbortSignal,
): Promise<WebSocket> {
  const wsUrl = `${api.base.replace(/^http/, 'ws')}/api/kernels/${id}/channels?session_id=${randomUUID()}`;
  // Loaded with the first kernel: an ipybox whose kernels run locally starts without it.
  const { default: WebSocketClient } = await import('ws');
  const socket = new WebSocketClient(wsUrl, { headers: api.headers });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  } catch (error) {
    socket.terminate();
    if (created) await api.endKernel(id);
    throw error;
  }
  return socket;
}

async function startRemoteKernel(
  api: JupyterServerApi,
  options: JupyterServerBackendOptions,
  reportedLost: Set<string>,
  { signal }: KernelStartOptions,
): Promise<RunningKernel> {
  const kernel = await kernelId(api, options, reportedLost);
  const { id, created } = kernel;
  const { shared } = options;
  // Ours alone: gone with the connection. Shared: other clients may still be using it.
  const remove = () => (shared ? Promise.resolve() : api.endKernel(id));
  const socket = await openChannels(api, kernel, signal);
  if (shared && created) {
    shared.id = id;
    shared.onCreated?.(id);
  }
  const channels = new WebSocketChannels(socket);
  let stopping: Promise<void> | undefined;
  const exited = new Promise<KernelExit>((resolve) => {
    socket.once('close', (code) => {
      if (stopping) return resolve({ reason: 'stopped' });
      void api.kernelStillThere(id).then((there) => {
        if (!there) reportedLost.add(id);
        resolve({
          reason: there
            ? `the Jupyter Server at ${api.base} closed the kernel connection (WebSocket code ${code})`
            : api.lostMessage(id),
        });
      });
    });
  });
  const stop = () => {
    stopping ??= (async () => {
      channels.close();
      await remove();
    })();
    return stopping;
  };
  return {
    channels,
    pid: undefined,
    exited,
    async interrupt() {
      await api.call('POST', `/api/kernels/${id}/interrupt`);
    },
    stop,
    async end() {
      await stop();
      await api.endKernel(id);
      if (shared?.id === id) shared.id = undefined;
    },
  };
}
