/**
 * The seam between a kernel backend and the protocol: a backend delivers decoded Jupyter messages
 * per channel and sends them; everything above (request/reply correlation, execution, output) is
 * shared by all backends.
 *
 * @module
 */
import type { ChannelName, JupyterMessage } from './messages.ts';

export type MessageListener = (channel: ChannelName, message: JupyterMessage) => void;

export interface KernelChannels {
  /** Sends on a client-to-kernel channel. Resolves once the message is handed to the transport. */
  send(channel: Exclude<ChannelName, 'iopub'>, message: JupyterMessage<object>): Promise<void>;
  /** Adds a listener for every message the kernel sends, in arrival order per channel. */
  listen(listener: MessageListener): () => void;
  /** Closes the transport; pending sends are dropped. */
  close(): void;
}

/** A set of listeners; backends use it to implement `listen`. */
export class ListenerSet {
  readonly #listeners = new Set<MessageListener>();

  add(listener: MessageListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(channel: ChannelName, message: JupyterMessage): void {
    for (const listener of this.#listeners) listener(channel, message);
  }
}
