/**
 * One client's conversation with a kernel over any backend's channels: a session that creates
 * messages, routing of replies and iopub messages to whoever sent the request (by the parent
 * header's `msg_id`), and the start-up handshake.
 *
 * @module
 */
import type { KernelChannels, MessageListener } from './channels.ts';
import { type JupyterMessage, KernelSession } from './messages.ts';

export class KernelConnection {
  readonly session = new KernelSession();
  readonly channels: KernelChannels;
  readonly #routes = new Map<string, MessageListener>();

  constructor(channels: KernelChannels) {
    this.channels = channels;
    channels.listen((channel, message) => {
      const parent = message.parent_header.msg_id;
      if (parent !== undefined) this.#routes.get(parent)?.(channel, message);
    });
  }

  /**
   * Delivers every message whose parent is `msgId` to `listener` until the returned function is
   * called. Route before sending: a reply can arrive before `send` resolves.
   */
  route(msgId: string, listener: MessageListener): () => void {
    this.#routes.set(msgId, listener);
    return () => this.#routes.delete(msgId);
  }

  /** Sends a request and resolves with its reply on the same channel; rejects after `timeout` ms. */
  async request(
    channel: 'shell' | 'control',
    msgType: string,
    content: object,
    timeout: number,
  ): Promise<JupyterMessage> {
    const message = this.session.message(msgType, content);
    let unroute = () => {};
    let timer: NodeJS.Timeout | undefined;
    try {
      return await new Promise<JupyterMessage>((resolve, reject) => {
        unroute = this.route(message.header.msg_id, (from, reply) => {
          if (from === channel) resolve(reply);
        });
        timer = setTimeout(
          () => reject(new Error(`no ${msgType} reply within ${timeout} ms`)),
          timeout,
        );
        this.channels.send(channel, message).catch(reject);
      });
    } finally {
      clearTimeout(timer);
      unroute();
    }
  }

  /**
   * Resolves once the kernel answers `kernel_info_request` AND its iopub `status: idle` for that
   * request arrives. The second half is the point: a ZeroMQ subscription takes effect some time
   * after `connect`, and iopub messages published before that are lost (the "slow joiner"), so the
   * request is repeated until one round trip is seen on both channels. Rejects when `signal` aborts.
   */
  async waitUntilReady(signal: AbortSignal, retryInterval = 50): Promise<JupyterMessage> {
    const unroutes: (() => void)[] = [];
    let timer: NodeJS.Timeout | undefined;
    let onAbort = () => {};
    try {
      return await new Promise<JupyterMessage>((resolve, reject) => {
        let info: JupyterMessage | undefined;
        let idle = false;
        const settle = () => {
          if (info && idle) resolve(info);
        };
        const ask = () => {
          const message = this.session.message('kernel_info_request', {});
          unroutes.push(
            this.route(message.header.msg_id, (channel, reply) => {
              if (channel === 'shell' && reply.header.msg_type === 'kernel_info_reply')
                info = reply;
              else if (
                channel === 'iopub' &&
                reply.header.msg_type === 'status' &&
                reply.content.execution_state === 'idle'
              ) {
                idle = true;
              }
              settle();
            }),
          );
          this.channels.send('shell', message).catch(reject);
          timer = setTimeout(ask, retryInterval);
        };
        onAbort = () => reject(signal.reason);
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        ask();
      });
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      for (const unroute of unroutes) unroute();
    }
  }
}
