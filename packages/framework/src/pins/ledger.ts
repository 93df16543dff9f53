/**
 * Where the pin book keeps its records: in this replica's memory for the synchronous decisions,
 * written behind to the {@link RecordStore} (a map of entries, one per definition), announced
 * on the `pins` channel so other replicas re-read it, and re-read here when they announce.
 * Kept apart from the book's rules: this is only storage, order and notification.
 *
 * @module
 */
import type { Logger } from '../contract/logger.ts';
import { errorMessage } from '../errors.ts';
import { nodeCrypto } from '../lazy.ts';
import type { RecordStore } from '../state/records.ts';
import { fieldOf, PINS_RECORD, type PinRecord, parseRecord } from './record.ts';

const CHANNEL = 'pins';

export interface PinLedgerOptions {
  records: RecordStore;
  logger?: Logger;
  /** Runs before the book is first read: loads the file of a server alone into `records`. */
  load?: () => Promise<void>;
  /** Runs after each write to the store settles: saves the file of a server alone. */
  persist?: () => Promise<void>;
}

export class PinLedger {
  readonly #store: RecordStore;
  readonly #logger: Logger | undefined;
  readonly #load: (() => Promise<void>) | undefined;
  readonly #persist: (() => Promise<void>) | undefined;
  /** Field → record: the book as this replica knows it. */
  #pins = new Map<string, PinRecord>();
  /** Server → how many pins it has. */
  #known = new Map<string, number>();
  /** Written here, not yet in the store. */
  readonly #dirty = new Map<string, PinRecord>();
  readonly #listeners = new Set<() => void>();
  /** Tells this replica's own messages from the others'; made on first use (see #origin). */
  #originId: string | undefined;
  #writing: Promise<void> = Promise.resolve();
  #writeQueued = false;
  #notifyQueued = false;
  #ready: Promise<void> | undefined;
  #unsubscribe: (() => void) | undefined;

  /** Made when first needed: node:crypto is not loaded by a start-up that never uses pins. */
  get #origin(): string {
    this.#originId ??= nodeCrypto().randomUUID();
    return this.#originId;
  }

  constructor(options: PinLedgerOptions) {
    this.#store = options.records;
    this.#logger = options.logger;
    this.#load = options.load;
    this.#persist = options.persist;
  }

  /** Reads the book and follows the other replicas' changes; settles once (later calls too). */
  ready(): Promise<void> {
    this.#ready ??= (async () => {
      await this.#load?.();
      this.#unsubscribe = await this.#store.subscribe(CHANNEL, (message) => {
        if (message === this.#origin) return;
        void this.#reread().catch((error) =>
          this.#logger?.warn(`pins: re-reading the pin book failed: ${errorMessage(error)}`),
        );
      });
      await this.#reread();
    })();
    return this.#ready;
  }

  /** Stops following other replicas; waits for writes in flight. */
  async close(): Promise<void> {
    this.#unsubscribe?.();
    await this.flush();
  }

  /** Settles when every record put so far is in the store (and the file). */
  async flush(): Promise<void> {
    await this.#writing;
  }

  get(field: string): PinRecord | undefined {
    return this.#pins.get(field);
  }

  values(): IterableIterator<PinRecord> {
    return this.#pins.values();
  }

  /** Whether the server has any pin. */
  known(server: string): boolean {
    return (this.#known.get(server) ?? 0) > 0;
  }

  /** Keeps the record here at once, writes it behind, and tells the listeners soon. */
  put(field: string, record: PinRecord): void {
    const clean = Object.fromEntries(
      Object.entries(record).filter(([, value]) => value !== undefined),
    ) as unknown as PinRecord;
    if (!this.#pins.has(field))
      this.#known.set(record.server, (this.#known.get(record.server) ?? 0) + 1);
    this.#pins.set(field, clean);
    this.#dirty.set(field, clean);
    this.#queueWrite();
    this.#queueNotify();
  }

  /** Called after records change, here or on another replica. Returns a remover. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #queueWrite(): void {
    if (this.#writeQueued) return;
    this.#writeQueued = true;
    this.#writing = this.#writing.then(async () => {
      this.#writeQueued = false;
      const batch = [...this.#dirty];
      this.#dirty.clear();
      try {
        await Promise.all(
          batch.map(([field, record]) =>
            this.#store.setEntry(PINS_RECORD, field, JSON.stringify(record)),
          ),
        );
        await this.#store.publish(CHANNEL, this.#origin);
        await this.#persist?.();
      } catch (error) {
        this.#logger?.error(`pins: saving the pin book failed: ${errorMessage(error)}`);
      }
    });
  }

  #queueNotify(): void {
    if (this.#notifyQueued) return;
    this.#notifyQueued = true;
    queueMicrotask(() => {
      this.#notifyQueued = false;
      for (const listener of this.#listeners) {
        try {
          listener();
        } catch {
          // One listener's failure must not keep the change from the others.
        }
      }
    });
  }

  /** Replaces what this replica knows with the store's book (and what it has not written yet). */
  async #reread(): Promise<void> {
    const entries = await this.#store.entries(PINS_RECORD);
    const pins = new Map<string, PinRecord>();
    for (const [field, text] of entries) {
      const record = parseRecord(text);
      // An entry under another's field is not trusted: a signed entry moved to a new place.
      if (record && fieldOf(record.server, record.kind, record.name) === field)
        pins.set(field, record);
    }
    for (const [field, record] of this.#dirty) pins.set(field, record);
    const known = new Map<string, number>();
    for (const record of pins.values())
      known.set(record.server, (known.get(record.server) ?? 0) + 1);
    this.#pins = pins;
    this.#known = known;
    this.#queueNotify();
  }
}
