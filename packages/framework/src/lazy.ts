/**
 * Dependencies loaded on first use rather than at import: the framework's entry module re-exports
 * everything, so whatever its modules import at the top is paid by every server at start-up,
 * also by one that never serves OAuth or metrics or reads YAML (`mcp-factory -p echo` over stdio;
 * bench/startup.ts measures it). Each is a package with a CommonJS build, so the first use
 * loads it synchronously (`require`) and call sites stay synchronous.
 *
 * @module
 */
import { createRequire } from 'node:module';

/**
 * A function returning the package `name`, required on its first call, resolved from `from`
 * (the calling module's `import.meta.url`; this package's by default). For CommonJS packages:
 * `require` of a package with both builds gets its CommonJS one, a copy apart from the ES
 * module an `import` elsewhere gets, so use it only for packages nothing else imports.
 */
export function lazyRequire<T>(name: string, from: string = import.meta.url): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= createRequire(from)(name) as T;
    return loaded;
  };
}

export const legacyAuth = lazyRequire<typeof import('@modelcontextprotocol/server-legacy/auth')>(
  '@modelcontextprotocol/server-legacy/auth',
);
export const promClient = lazyRequire<typeof import('prom-client')>('prom-client');
export const yaml = lazyRequire<typeof import('yaml')>('yaml');
export const zodToJsonSchemaPackage =
  lazyRequire<typeof import('zod-to-json-schema')>('zod-to-json-schema');
export const otpauth = lazyRequire<typeof import('otpauth')>('otpauth');
/** MiniSearch's CommonJS build exports the class itself. */
export const miniSearch = lazyRequire<typeof import('minisearch').default>('minisearch');
/**
 * node:crypto, on its first use: a stdio server answers its first request without it. Imported
 * at the top of a module, it was loaded by every start-up: its own modules and OpenSSL's
 * bindings, about 20 M instructions and 0.24 MB of heap (bench/startup.ts; callgrind).
 */
export const nodeCrypto = lazyRequire<typeof import('node:crypto')>('node:crypto');
/** jsdiff, for a pin's readable diff (pins/record.ts): ~25 ms of modules a start-up never uses. */
export const diffPackage = lazyRequire<typeof import('diff')>('diff');
/** JSONPath queries over a stored result (results/reading.ts), only when a caller asks one. */
export const jsonPathPlus = lazyRequire<typeof import('jsonpath-plus')>('jsonpath-plus');
/** zod 3's API, only for a plugin's zod 3 schemas (zod 3 is recognised by shape, not by copy). */
export const zodV3 = lazyRequire<typeof import('zod/v3')>('zod/v3');
