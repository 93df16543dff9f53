/**
 * The SDK's `ServerEventBus` over a {@link RecordStore}'s channel, for change events that do not
 * follow from shared state (each replica's catalog changes by itself when it applies the plugin
 * set): a plugin's `notifyResourceUpdated(uri)` on one replica reaches subscribers on all.
 *
 * `publish` delivers to this bus's listeners at once (as the SDK's in-memory bus does) and to
 * the other buses of the store; an event that comes back through the store is delivered only
 * by the buses that did not publish it. Over the cluster's Redis the messages are signed, so an
 * event pushed into Redis by anyone else is dropped.
 *
 * @module
 */
import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import { nodeCrypto } from '../lazy.ts';
import { createLogger, type Logger } from '../logging/index.ts';
import type { RecordStore } from './records.ts';

const CHANNEL = 'events';

export class SharedEventBus implements ServerEventBus {
  readonly #records: RecordStore;
  /** This bus among those of the store (a replica's id, or drawn). */
  readonly #origin: string;
  readonly #listeners = new Set<(event: ServerEvent) => void>();
  readonly #logger: Logger;
  #stop: (() => void) | undefined;

  private constructor(records: RecordStore, origin: string, logger: Logger) {
    this.#records = records;
    this.#origin = origin;
    this.#logger = logger;
  }

  /** A bus on `records`, subscribed once this resolves. */
  static async create(
    records: RecordStore,
    options: { origin?: string; logger?: Logger } = {},
  ): Promise<SharedEventBus> {
    const origin = options.origin ?? nodeCrypto().randomBytes(6).toString('hex');
    const bus = new SharedEventBus(records, origin, options.logger ?? createLogger('cluster'));
    bus.#stop = await records.subscribe(CHANNEL, (message) => bus.#received(message));
    return bus;
  }

  publish(event: ServerEvent): void {
    this.#deliver(event);
    const message = JSON.stringify({ replica: this.#origin, event });
    void this.#records.publish(CHANNEL, message).catch((error: unknown) => {
      this.#logger.warn(
        `cluster: a ${event.kind} event reached this replica's clients only (${String(error)})`,
      );
    });
  }

  subscribe(listener: (event: ServerEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  close(): void {
    this.#stop?.();
    this.#listeners.clear();
  }

  #received(message: string): void {
    let parsed: { replica?: unknown; event?: ServerEvent };
    try {
      parsed = JSON.parse(message);
    } catch {
      return;
    }
    if (parsed.replica !== this.#origin && parsed.event) this.#deliver(parsed.event);
  }

  #deliver(event: ServerEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.#logger.warn(`cluster: an event listener failed: ${String(error)}`);
      }
    }
  }
}
