/**
 * Private temp directories that name their owner process, and the sweep of those whose owner is
 * dead. A kernel's directory holds its connection file (with the kernel's signing key), a
 * sandbox's its runtime files, the tool server's its socket; the owner removes them when it
 * stops, but a SIGKILLed owner cannot. The next ipybox (or kernel launch) removes them instead.
 *
 * Each directory is `<prefix><pid>-XXXXXX` and holds an `owner` file: the owner's pid, its start
 * time (so a reused pid is not mistaken for the owner) and its PID namespace (a process in another
 * namespace cannot tell whether the owner lives, so it leaves the directory alone). A directory
 * without a readable `owner` file (being created, or made by an older version) is never touched,
 * nor one another user owns.
 *
 * @module
 */
import { readFileSync, readlinkSync, rmSync } from 'node:fs';
import { lstat, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type OwnedDirPrefix = 'mcpbox-kernel-' | 'mcpbox-sandbox-' | 'mcpbox-tools-';
const PREFIXES: readonly OwnedDirPrefix[] = ['mcpbox-kernel-', 'mcpbox-sandbox-', 'mcpbox-tools-'];
const OWNER_FILE = 'owner';
/** What follows the prefix in the name of a directory {@link makeOwnedDir} made. */
const OWNED_NAME = /^\d+-/;

interface Owner {
  pid: number;
  /** Clock ticks since boot when the process started (`/proc/<pid>/stat`, field 22). */
  started: string;
  /** `pid:[inode]` of the owner's PID namespace. */
  pidNamespace: string;
}

/** The start time of a live, non-zombie process, or undefined when there is none. */
function startTimeOf(pid: number | 'self'): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is the state (field 3), so field 22 is fields[19].
    return fields[0] === 'Z' ? undefined : fields[19];
  } catch {
    return undefined;
  }
}

let self: Owner | null | undefined;

/** This process as an owner; null where /proc cannot tell (not Linux). */
function thisOwner(): Owner | null {
  if (self !== undefined) return self;
  try {
    const started = startTimeOf('self');
    self = started
      ? { pid: process.pid, started, pidNamespace: readlinkSync('/proc/self/ns/pid') }
      : null;
  } catch {
    self = null;
  }
  return self;
}

/** Creates `<parent>/<prefix><pid>-XXXXXX` (mode 0700) with its `owner` record. */
export async function makeOwnedDir(parent: string, prefix: OwnedDirPrefix): Promise<string> {
  const dir = await mkdtemp(join(parent, `${prefix}${process.pid}-`));
  const owner = thisOwner();
  if (owner) await writeFile(join(dir, OWNER_FILE), JSON.stringify(owner), { mode: 0o600 });
  return dir;
}

/** True when the directory's recorded owner is certainly gone. */
async function ownerIsDead(dir: string, me: Owner): Promise<boolean> {
  let owner: Owner;
  try {
    owner = JSON.parse(await readFile(join(dir, OWNER_FILE), 'utf8')) as Owner;
  } catch {
    return false;
  }
  if (owner.pidNamespace !== me.pidNamespace || !Number.isSafeInteger(owner.pid)) return false;
  if (owner.pid === me.pid && owner.started === me.started) return false;
  return startTimeOf(owner.pid) !== owner.started;
}

/**
 * Removes the entries of `parent` whose name matches, of the given kind, owned by our user, that
 * `isStale` condemns. Returns their paths. The sweep behind both kinds of leftovers.
 */
export async function removeStale(
  parent: string,
  matches: (name: string) => boolean,
  kind: 'directory' | 'socket',
  isStale: (path: string) => Promise<boolean>,
): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(parent);
  } catch {
    return [];
  }
  const uid = process.getuid?.();
  // Every entry at once, not one after another: the sweep runs before ipybox answers its first
  // request, and a temp directory with dozens of entries made that many round trips in a row.
  const judged = await Promise.all(
    names.filter(matches).map(async (name) => {
      const path = join(parent, name);
      try {
        const info = await lstat(path);
        const isKind = kind === 'directory' ? info.isDirectory() : info.isSocket();
        if (!isKind || (uid !== undefined && info.uid !== uid)) return undefined;
        if (!(await isStale(path))) return undefined;
        await rm(path, { recursive: true, force: true });
        return path;
      } catch {
        // Gone meanwhile, or not ours to remove.
        return undefined;
      }
    }),
  );
  return judged.filter((path): path is string => path !== undefined);
}

/**
 * Removes the owned directories in `parent` whose owner process is dead. Returns their paths.
 * Does nothing where /proc cannot tell who is alive.
 */
export async function sweepDeadOwners(parent: string = tmpdir()): Promise<string[]> {
  const me = thisOwner();
  if (!me) return [];
  return removeStale(
    parent,
    // `<prefix><pid>-`: a name without the pid (an older version's) has no owner file to read.
    (name) =>
      PREFIXES.some(
        (prefix) => name.startsWith(prefix) && OWNED_NAME.test(name.slice(prefix.length)),
      ),
    'directory',
    (dir) => ownerIsDead(dir, me),
  );
}

const sweeps = new Map<string, Promise<string[]>>();

/** {@link sweepDeadOwners}, once per directory per process. */
export function sweepDeadOwnersOnce(parent: string = tmpdir()): Promise<string[]> {
  let sweep = sweeps.get(parent);
  if (!sweep) {
    sweep = sweepDeadOwners(parent);
    sweeps.set(parent, sweep);
  }
  return sweep;
}

let socketDir: Promise<string> | undefined;

/**
 * A private directory for this process's Unix sockets (the sandboxed kernels' tool servers):
 * outside the user's workspace, removed when the process exits, swept when it was killed.
 */
export function processSocketDir(): Promise<string> {
  socketDir ??= makeOwnedDir(tmpdir(), 'mcpbox-tools-').then((dir) => {
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return dir;
  });
  return socketDir;
}
