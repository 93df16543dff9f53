/**
 * The pin book of a server alone, in a JSON file (`pins.file`, default `~/.mcp_pins.json`):
 * read into the memory store at start, written whole after each change — to a temporary file
 * renamed over the old one, so a crash mid-write leaves the previous book, never half of one.
 *
 * @module
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { McpboxError } from '../errors.ts';
import type { RecordStore } from '../state/records.ts';
import { PINS_RECORD } from './record.ts';

/** Reads the file's pins into `records`; a missing file is an empty book. */
export async function loadPinFile(records: RecordStore, file: string): Promise<void> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new McpboxError('PINS_FILE', `pins.file: cannot read ${file} (${String(error)})`);
  }
  let pins: unknown;
  try {
    pins = (JSON.parse(text) as { pins?: unknown }).pins;
  } catch (error) {
    throw new McpboxError(
      'PINS_FILE',
      `pins.file: ${file} is not JSON (${String(error)}); fix or remove it (every definition is then pinned anew)`,
    );
  }
  if (!Array.isArray(pins)) return;
  for (const entry of pins) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string') continue;
    await records.setEntry(PINS_RECORD, entry[0], JSON.stringify(entry[1]));
  }
}

/** A saver for the book's `persist`: writes `records`' pins to `file`, atomically. */
export function pinFileSaver(records: RecordStore, file: string): () => Promise<void> {
  return async () => {
    const entries = [...(await records.entries(PINS_RECORD))].map(
      ([field, text]) => [field, JSON.parse(text)] as const,
    );
    const temporary = `${file}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify({ version: 1, pins: entries }, null, 1)}\n`, {
      mode: 0o600,
    });
    await rename(temporary, file);
  };
}
