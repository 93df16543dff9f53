/**
 * Which modules a process really loaded: a module for `--import` (through NODE_OPTIONS, so it
 * reaches a process started by anything) that records the URL of every module the process
 * resolves, one a line, in the file named by TRACE_MODULES, through a resolve hook on Node's
 * loader thread. It only watches: resolution goes on as it would without it.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Writes the hook into `dir` (once) and returns the module to pass to `--import`. */
export function traceModules(dir: string): string {
  const hook = join(dir, 'trace-hook.mjs');
  const entry = join(dir, 'trace.mjs');
  if (!existsSync(entry)) {
    writeFileSync(
      hook,
      [
        "import { appendFileSync } from 'node:fs';",
        'export async function resolve(specifier, context, next) {',
        '  const result = await next(specifier, context);',
        "  if (process.env.TRACE_MODULES) appendFileSync(process.env.TRACE_MODULES, result.url + '\\n');",
        '  return result;',
        '}',
        '',
      ].join('\n'),
    );
    writeFileSync(
      entry,
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hook).href)});\n`,
    );
  }
  return entry;
}
