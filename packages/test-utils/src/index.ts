/**
 * `@mcpbox/test-utils`: what the tests and benchmarks of every package share, so no test copies
 * a helper or reaches into another package's `src/`. It imports none of the mcpbox packages at
 * run time (they import it: no workspace cycle). The browser helper is its own entry
 * (`@mcpbox/test-utils/browser`), so a test that does not drive Chromium does not load
 * puppeteer.
 *
 * @module
 */
export * from './cluster.ts';
export * from './introspectionServer.ts';
export * from './otlpReceiver.ts';
export * from './ports.ts';
export * from './processGroups.ts';
export * from './proxyProcess.ts';
export * from './rawModern.ts';
export * from './redisServer.ts';
export * from './schemaLint.ts';
export * from './serverProcess.ts';
export * from './tempDirs.ts';
export * from './text.ts';
export * from './toolListener.ts';
export * from './totp.ts';
export * from './waitFor.ts';
