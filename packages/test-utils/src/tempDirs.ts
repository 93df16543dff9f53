/**
 * Temporary folders of a test file, removed once more when its process exits. A test's
 * after-hooks run in the order they were registered, so a folder is often removed while a server
 * it gave a HOME or a workspace is still up, and that server's last tool-call log flush makes it
 * again. When the test file's process exits, every server it started has stopped.
 *
 * @module
 */
import { rmSync } from 'node:fs';

const leftovers = new Set<string>();

/** `dir`, which is removed (again) when this process exits. */
export function removeAtExit(dir: string): string {
  if (leftovers.size === 0) {
    process.once('exit', () => {
      for (const folder of leftovers) rmSync(folder, { recursive: true, force: true });
    });
  }
  leftovers.add(dir);
  return dir;
}
