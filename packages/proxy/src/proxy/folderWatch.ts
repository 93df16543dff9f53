/**
 * A file or folder watched for saved changes, debounced (editors write a file in several steps):
 * what `--watch` uses for a plugin's files and what follows a `skills_dir`.
 *
 * The watching is chokidar's: Node 20's own recursive `fs.watch` loses a file once an editor (or
 * `sed -i`) has replaced it by renaming a new file over it, and so stopped seeing changes after
 * a save or two. chokidar watches each directory and file itself and picks the new file up after
 * a rename.
 *
 * @module
 */
import { relative, sep } from 'node:path';
import { lazyRequire } from '@mcpbox/framework';

/** chokidar, on the first watch: a server without `--watch` or a `skills_dir` never loads it. */
const chokidar = lazyRequire<typeof import('chokidar')>('chokidar', import.meta.url);

/** Files nothing is made of: hidden files, editor backups and swap files, dependencies. */
const NOISE = /(^|\/)(\.|node_modules(\/|$))|~$|\.sw[px]$/;

/**
 * Whether a path chokidar met under `root` is to be left alone. Judged by the part below the
 * root, so a dot folder above the watched folder (`.tmp/`) does not hide it; the root itself and
 * the folders above it (chokidar asks about a single file's directory) are never ignored.
 */
function isNoise(root: string, path: string): boolean {
  const below = relative(root, path);
  if (below === '' || below === '..' || below.startsWith(`..${sep}`)) return false;
  return NOISE.test(below.split(sep).join('/'));
}

export interface FolderWatch {
  /** Settles once the initial scan is done: changes from then on are seen. */
  readonly ready: Promise<void>;
  /** Stops watching (a change waiting for its quiet time is dropped). */
  close(): Promise<void>;
}

export interface FolderWatchOptions {
  /** Quiet time after the last change before `onChange`. */
  debounceMs: number;
  onChange: () => void;
  onError: (error: unknown) => void;
}

export function watchFolder(target: string, options: FolderWatchOptions): FolderWatch {
  const watcher = chokidar().watch(target, {
    ignoreInitial: true,
    // The servers keep the process alive; a watcher alone should not.
    persistent: false,
    ignored: (path) => isNoise(target, path),
  });
  let timer: NodeJS.Timeout | undefined;
  watcher.on('all', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      options.onChange();
    }, options.debounceMs);
  });
  watcher.on('error', options.onError);
  const ready = new Promise<void>((resolve) => watcher.once('ready', resolve));
  return {
    ready,
    close: () => {
      clearTimeout(timer);
      return watcher.close();
    },
  };
}
