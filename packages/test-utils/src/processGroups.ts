/**
 * Which processes are alive, which belong to a process group or descend from a pid (Linux /proc),
 * waiting until a set of pids is gone, and ending what a test leaves behind: for tests that check
 * no server or upstream process outlives its session.
 *
 * @module
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgid: number;
}

function stat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: split after it.
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { pid, state: rest[0], ppid: Number(rest[1]), pgid: Number(rest[2]) };
  } catch {
    return undefined;
  }
}

/** Alive means present and not a zombie (a container's pid 1 may never reap orphans). */
export function isAlive(pid: number): boolean {
  const s = stat(pid);
  return s !== undefined && s.state !== 'Z';
}

function allStats(): ProcStat[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map((entry) => stat(Number(entry)))
    .filter((s): s is ProcStat => s !== undefined && s.state !== 'Z');
}

/** Live pids of a process group. */
export function groupMembers(pgid: number): number[] {
  return allStats()
    .filter((s) => s.pgid === pgid)
    .map((s) => s.pid);
}

/** Live descendants of `pid` (children, grandchildren, …). */
export function descendants(pid: number): number[] {
  const stats = allStats();
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const s of stats) {
      if (s.ppid === parent) {
        found.push(s.pid);
        walk(s.pid);
      }
    }
  };
  walk(pid);
  return found;
}

/** Resolves with the pids still alive once all are gone or `limitMs` passed (then non-empty). */
export async function waitUntilGone(pids: number[], limitMs = 15_000): Promise<number[]> {
  const until = Date.now() + limitMs;
  for (;;) {
    const alive = pids.filter(isAlive);
    if (alive.length === 0 || Date.now() > until) return alive;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Kills leftovers after a failed test, so nothing outlives the test run. */
export function killAll(pids: Iterable<number>): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** SIGKILLs a process started with `detached: true` together with its group. */
export function stopGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Live pids whose command line contains `text` (e.g. a fixture's file name). */
export function pidsRunning(text: string): number[] {
  return allStats()
    .filter((s) => {
      try {
        return readFileSync(`/proc/${s.pid}/cmdline`, 'utf8').includes(text);
      } catch {
        return false;
      }
    })
    .map((s) => s.pid);
}
