/**
 * The modules every `mcptools/` holds whatever servers it has: `_runtime.py` (what generated tool
 * modules call through) and `results.py` (`mcptools.results.load`, stored tool results loaded
 * whole). Written with every generated package, and once when ipybox opens its workspace, so
 * `from mcptools import results` works before any server is registered.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The modules, `mcptools.<name>`: no generated package may take one of these names. */
export const RUNTIME_MODULES: readonly string[] = ['_runtime', 'results'];

/** Writes the runtime modules into `<rootDir>/mcptools/` (each via rename: never seen half). */
export async function writeRuntimeModules(rootDir: string): Promise<void> {
  const mcptoolsDir = join(rootDir, 'mcptools');
  await mkdir(mcptoolsDir, { recursive: true });
  for (const file of RUNTIME_MODULES.map((name) => `${name}.py`)) {
    const source = await readFile(new URL(`../python/${file}`, import.meta.url), 'utf8');
    const target = join(mcptoolsDir, file);
    const temp = `${target}.${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(temp, source, 'utf8');
    await rename(temp, target);
  }
}
