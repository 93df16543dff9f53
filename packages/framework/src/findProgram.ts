/**
 * `which`: the first executable of a name on a PATH string.
 *
 * @module
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The first executable called `program` on `path`, like `which`. */
export function findProgram(program: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
