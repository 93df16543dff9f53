// Process probes for tests. A process counts as gone when signalling it fails with ESRCH, or when
// it is a zombie: an orphan re-parented to an init that does not reap still answers kill(pid, 0).
import { readFileSync } from 'node:fs';

export function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
    throw error;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** Polls until `pid` is gone; false if it is still there after `attempts` × 100 ms. */
export async function waitUntilGone(pid: number, attempts = 100): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (isGone(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return isGone(pid);
}

/** Ends a process group left behind by a failed test (no-op when already gone). */
export function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // gone
  }
}
