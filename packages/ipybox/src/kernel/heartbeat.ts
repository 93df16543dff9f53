/**
 * Heartbeat watch: ipykernel echoes whatever arrives on its `hb` socket from a thread that never
 * takes the GIL, so a kernel busy in a long cell still answers. Silence longer than `timeout`
 * means the process is gone, frozen or unreachable.
 *
 * @module
 */
import type { Dealer } from 'zeromq';
import { zeromq } from '../lazy.ts';

export interface HeartbeatOptions {
  /** Ping period in ms. */
  interval: number;
  /** Declare the kernel dead after this many ms without an echo. */
  timeout: number;
  onDead: () => void;
}

export class Heartbeat {
  readonly #socket: Dealer = new (zeromq().Dealer)({ linger: 0, sendTimeout: 0 });
  readonly #timer: NodeJS.Timeout;
  #lastEcho = Date.now();
  #stopped = false;

  constructor(address: string, options: HeartbeatOptions) {
    this.#socket.connect(address);
    void this.#receive();
    this.#timer = setInterval(() => {
      if (Date.now() - this.#lastEcho > options.timeout) {
        this.stop();
        options.onDead();
        return;
      }
      // sendTimeout 0: if the pipe is full (kernel gone) the ping is dropped, not queued forever.
      this.#socket.send('ping').catch(() => {});
    }, options.interval);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#socket.close();
  }

  async #receive(): Promise<void> {
    try {
      for await (const _ of this.#socket) this.#lastEcho = Date.now();
    } catch {
      // closed
    }
  }
}
