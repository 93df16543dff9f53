/**
 * Line history kept between sessions in a plain file, oldest line first, like a shell's.
 * node:readline holds history newest first, so both functions convert.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const DEFAULT_HISTORY_SIZE = 1000;

export function defaultHistoryFile(): string {
  return join(homedir(), '.mcp_client_history');
}

/** Newest first, at most `max` lines; a missing or unreadable file is an empty history. */
export function loadHistory(file: string, max = DEFAULT_HISTORY_SIZE): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(-max)
    .reverse();
}

/**
 * @param newestFirst readline's history array
 * Written owner-only: typed tool arguments may hold secrets.
 */
export function saveHistory(file: string, newestFirst: string[], max = DEFAULT_HISTORY_SIZE): void {
  const lines = newestFirst.slice(0, max).reverse();
  writeFileSync(file, lines.length > 0 ? `${lines.join('\n')}\n` : '', { mode: 0o600 });
}
