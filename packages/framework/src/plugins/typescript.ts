/**
 * TypeScript plugins without a build step: tsx's ES-module and CommonJS hooks are registered in
 * this process the first time a `.ts` plugin is imported, and only then, so a server whose
 * plugins are JavaScript never loads tsx (a compiled bin starts without it). CommonJS too: a
 * `.ts` file in a folder whose package.json is not `"type": "module"` is CommonJS to Node, and
 * only tsx's CommonJS hook compiles it.
 *
 * @module
 */

/** Shared with the source-mode bins of a checkout, which register tsx themselves. */
const REGISTERED = Symbol.for('mcpbox.typescript');

type Registry = Record<symbol, Promise<void> | undefined>;

/** Whether importing `path` (a file path or URL) needs TypeScript support. */
export function isTypeScriptFile(path: string): boolean {
  const file = path.startsWith('file:') ? new URL(path).pathname : path;
  return /\.[cm]?tsx?$/.test(file);
}

/** Registers tsx once per process; concurrent callers wait for the same registration. */
export function enableTypeScript(): Promise<void> {
  const registry = globalThis as unknown as Registry;
  registry[REGISTERED] ??= (async () => {
    const [esm, cjs] = await Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]);
    esm.register();
    cjs.register();
  })();
  return registry[REGISTERED];
}
