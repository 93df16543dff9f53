/**
 * A bounded, in-memory SSE event store for one Streamable HTTP session, so a client whose stream
 * broke (or that the server told to poll, `closeSSEStream`) can reconnect with `Last-Event-ID`
 * and receive what it missed (MCP spec, basic/transports "Resumability and Redelivery").
 *
 * With an event store the SDK transport also sends each SSE stream a priming event (an id and
 * empty data, plus `retry:`) to clients on protocol 2025-11-25 or later.
 *
 * The store lives and dies with its session and keeps only the most recent events — at most
 * `maxEvents` of them and about `maxBytes` of JSON — so a long session cannot grow it without
 * bound. A client that comes back for an event already dropped gets a 400 and starts over.
 *
 * @module
 */
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

export interface EventStoreLimits {
  /** Default 1000. */
  maxEvents?: number;
  /** Approximate, by the length of each message's JSON. Default 16 MiB. */
  maxBytes?: number;
}

interface StoredEvent {
  streamId: string;
  message: JSONRPCMessage;
  size: number;
}

export class BoundedEventStore implements EventStore {
  readonly #events = new Map<string, StoredEvent>();
  readonly #maxEvents: number;
  readonly #maxBytes: number;
  #bytes = 0;
  #next = 0;

  constructor(limits: EventStoreLimits = {}) {
    this.#maxEvents = limits.maxEvents ?? 1000;
    this.#maxBytes = limits.maxBytes ?? 16 * 1024 * 1024;
  }

  /** How many events are kept (for tests and diagnostics). */
  get size(): number {
    return this.#events.size;
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    return this.store(streamId, message);
  }

  /** Keeps `message` as the next event of `streamId` and returns its id, at once. */
  store(streamId: string, message: JSONRPCMessage | Record<string, never>): string {
    // Ids only need to be unique within the session and ordered; the counter gives both.
    const eventId = String(++this.#next);
    const size = JSON.stringify(message).length;
    this.#events.set(eventId, { streamId, message: message as JSONRPCMessage, size });
    this.#bytes += size;
    this.#evict();
    return eventId;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.streamOf(eventId);
  }

  /** The stream an event kept here belongs to, at once. */
  streamOf(eventId: string): string | undefined {
    return this.#events.get(eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const streamId = this.streamOf(lastEventId);
    if (streamId === undefined) {
      throw new Error(`event ${lastEventId} is unknown or no longer kept`);
    }
    for (const [id, message] of this.eventsAfter(lastEventId)) await send(id, message);
    return streamId;
  }

  /**
   * The events of `lastEventId`'s stream kept after it, at once, with their ids (none when it is
   * unknown or no longer kept).
   */
  eventsAfter(lastEventId: string): Array<[string, JSONRPCMessage]> {
    const last = this.#events.get(lastEventId);
    if (!last) return [];
    const after = Number(lastEventId);
    const missed: Array<[string, JSONRPCMessage]> = [];
    // Map iteration follows insertion, which is id order.
    for (const [id, event] of this.#events) {
      // The priming event (empty object) only marks a position; there is nothing to resend.
      if (Number(id) <= after || event.streamId !== last.streamId) continue;
      if (Object.keys(event.message).length > 0) missed.push([id, event.message]);
    }
    return missed;
  }

  #evict(): void {
    for (const [id, event] of this.#events) {
      if (this.#events.size <= this.#maxEvents && this.#bytes <= this.#maxBytes) return;
      // Keep the newest event even if it alone is over the byte budget: it is still in flight.
      if (this.#events.size === 1) return;
      this.#events.delete(id);
      this.#bytes -= event.size;
    }
  }
}
