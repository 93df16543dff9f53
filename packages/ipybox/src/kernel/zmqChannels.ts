/**
 * Jupyter channels over ZeroMQ: Dealer sockets for shell, control and stdin (stdin shares the
 * shell's routing identity, as the protocol requires for `input_request`), a Subscriber for iopub.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Dealer, Socket, Subscriber } from 'zeromq';
import { zeromq } from '../lazy.ts';
import { type KernelChannels, ListenerSet, type MessageListener } from './channels.ts';
import { type ConnectionInfo, channelAddress } from './connectionFile.ts';
import type { ChannelName, JupyterMessage } from './messages.ts';
import { MessageSigner } from './wire.ts';

export interface ZmqChannelsOptions {
  /** Called with messages that fail to parse or verify; they are dropped either way. */
  onInvalidMessage?: (channel: ChannelName, error: Error) => void;
}

type SendChannel = Exclude<ChannelName, 'iopub'>;

export class ZmqChannels implements KernelChannels {
  readonly #signer: MessageSigner;
  readonly #listeners = new ListenerSet();
  readonly #sockets: Record<SendChannel, Dealer>;
  readonly #iopub: Subscriber;
  /** zeromq v6 allows one send in flight per socket: later sends wait for the earlier ones. */
  readonly #sendChains: Record<SendChannel, Promise<void>>;
  readonly #onInvalid: ZmqChannelsOptions['onInvalidMessage'];
  #closed = false;

  constructor(info: ConnectionInfo, options: ZmqChannelsOptions = {}) {
    this.#signer = new MessageSigner(info.key, info.signature_scheme);
    this.#onInvalid = options.onInvalidMessage;
    const identity = randomUUID();
    const { Dealer, Subscriber } = zeromq();
    this.#sockets = {
      shell: new Dealer({ routingId: identity, linger: 0 }),
      control: new Dealer({ linger: 0 }),
      stdin: new Dealer({ routingId: identity, linger: 0 }),
    };
    // No high-water mark on our side: output bursts (50,000 lines) must not be dropped here.
    this.#iopub = new Subscriber({ linger: 0, receiveHighWaterMark: 0 });
    this.#iopub.subscribe();
    this.#iopub.connect(channelAddress(info, 'iopub'));
    for (const channel of ['shell', 'control', 'stdin'] as const) {
      this.#sockets[channel].connect(channelAddress(info, channel));
    }
    this.#sendChains = {
      shell: Promise.resolve(),
      control: Promise.resolve(),
      stdin: Promise.resolve(),
    };
    void this.#receive('iopub', this.#iopub);
    for (const channel of ['shell', 'control', 'stdin'] as const) {
      void this.#receive(channel, this.#sockets[channel]);
    }
  }

  send(channel: SendChannel, message: JupyterMessage<object>): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('kernel channels are closed'));
    const frames = this.#signer.encode(message);
    const socket = this.#sockets[channel];
    const sent = this.#sendChains[channel].then(() => socket.send(frames));
    this.#sendChains[channel] = sent.catch(() => {});
    return sent;
  }

  listen(listener: MessageListener): () => void {
    return this.#listeners.add(listener);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#iopub.close();
    for (const socket of Object.values(this.#sockets)) socket.close();
  }

  async #receive(channel: ChannelName, socket: Socket & AsyncIterable<Buffer[]>): Promise<void> {
    try {
      for await (const frames of socket) {
        let message: JupyterMessage;
        try {
          message = this.#signer.decode(frames);
        } catch (error) {
          this.#onInvalid?.(channel, error as Error);
          continue;
        }
        this.#listeners.emit(channel, message);
      }
    } catch (error) {
      // Closing a socket ends its receive loop with an error; anything else is unexpected.
      if (!this.#closed) this.#onInvalid?.(channel, error as Error);
    }
  }
}
