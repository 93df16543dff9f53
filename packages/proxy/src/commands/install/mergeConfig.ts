/**
 * Adds one server entry to a client's JSON configuration file without losing anything else in
 * it: every other key and server stays as it was, the previous file is copied to `FILE.bak`
 * first, and the new file replaces the old one in one rename (a crash leaves the old or the new
 * file, never half of one). A file that is not JSON (comments, trailing commas, a typo) is
 * refused and left alone; so is one whose shape is not what the client expects.
 *
 * @module
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';

/** Why a file was left alone; the message says what to do. */
export class ConfigFileError extends Error {
  readonly code = 'CONFIG_FILE';
  constructor(message: string) {
    super(message);
    this.name = 'ConfigFileError';
  }
}

export interface Merged {
  /** The file written (a symlink's target, when the path was a symlink). */
  file: string;
  /** The copy of the previous file; undefined when there was none. */
  backup?: string;
  /** An entry of that name was there before and is now replaced. */
  replaced: boolean;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * @param key the top-level key holding servers (`mcpServers`, or `servers` for VS Code)
 * @param byHand what to tell a user whose file is refused: the entry to add themselves
 */
export function mergeServerEntry(
  path: string,
  key: string,
  name: string,
  entry: Record<string, unknown>,
  byHand: string,
): Merged {
  // Write through a symlink (dotfiles kept in a repository), not over it.
  const file = existsSync(path) ? realpathSync(path) : path;
  const refuse = (why: string) =>
    new ConfigFileError(
      `${file} ${why}; nothing was changed. Fix the file or add the entry by hand:\n${byHand}`,
    );

  let config: Record<string, unknown> = {};
  let mode: number | undefined;
  if (existsSync(file)) {
    const text = readFileSync(file, 'utf8');
    mode = statSync(file).mode & 0o777;
    if (text.trim() !== '') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (err) {
        throw refuse(
          `is not valid JSON (${(err as Error).message}; comments and trailing commas are not JSON)`,
        );
      }
      if (!isPlainObject(parsed)) throw refuse('does not hold a JSON object');
      config = parsed;
    }
  }
  const servers = config[key] ?? {};
  if (!isPlainObject(servers)) throw refuse(`has a "${key}" that is not an object`);
  const replaced = Object.hasOwn(servers, name);

  const next = { ...config, [key]: { ...servers, [name]: entry } };
  let backup: string | undefined;
  if (mode !== undefined) {
    backup = `${file}.bak`;
    copyFileSync(file, backup);
  } else {
    mkdirSync(dirname(file), { recursive: true });
  }
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode: mode ?? 0o644 });
  renameSync(temporary, file);
  return { file, backup, replaced };
}
