/**
 * Pinned definitions: the pin book, the catalog's screen, and how a server opens them — over
 * the cluster's Redis when there is one (every replica shares one book), else in memory, saved
 * to `pins.file`.
 *
 * @module
 */
import type { AuditTrail } from '../audit/trail.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { ClusterLink } from '../cluster/link.ts';
import type { Logger } from '../contract/logger.ts';
import { MemoryRecordStore } from '../state/memoryRecords.ts';
import { PinBook } from './book.ts';
import { loadPinFile, pinFileSaver } from './file.ts';
import { PinScreen } from './screen.ts';
import type { PinMode } from './types.ts';

export { PinBook, type PinBookOptions } from './book.ts';
export { definitionOf, fingerprint, MAX_DEFINITION_BYTES } from './definition.ts';
export { PinScreen } from './screen.ts';
export type * from './types.ts';

/** `pins:` as the server takes it. */
export interface PinSettings {
  /** How a plugin or mirrored server that says nothing (`pin:`) is pinned. Default `strict`. */
  mode?: PinMode;
  /** Where a server alone keeps its book; none: in memory only (tests, embedded servers). */
  file?: string;
}

/**
 * The server's pin book, screening every batch `catalog` takes from then on. Without settings
 * it pins nothing, unless a plugin's own `pin:` asks.
 */
export function openPinBook(options: {
  catalog: Catalog;
  settings: PinSettings | undefined;
  cluster: ClusterLink | undefined;
  audit: AuditTrail;
  logger: Logger;
}): PinBook {
  const { settings, cluster, catalog } = options;
  const records = cluster?.records ?? new MemoryRecordStore();
  const file = cluster ? undefined : settings?.file;
  const book = new PinBook({
    records,
    mode: settings ? (settings.mode ?? 'strict') : 'off',
    audit: options.audit,
    logger: options.logger,
    ...(file
      ? { load: () => loadPinFile(records, file), persist: pinFileSaver(records, file) }
      : {}),
  });
  const screen = new PinScreen(book);
  screen.releaseTo((batch) => catalog.release(batch));
  catalog.setScreen(screen);
  return book;
}
