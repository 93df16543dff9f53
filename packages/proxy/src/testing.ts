/**
 * `@mcpbox/proxy/testing`: the proxy's test helpers, for the benchmarks (a proxy with its plugin
 * manager in-process, plugin folders to load it from). Resolved only under the `mcpbox-source`
 * condition the tests run with: never built into dist/ nor published, so it widens no public API.
 *
 * @module
 */
export { inProcessProxy } from './__fixtures__/inProcess.ts';
export { testdir, writeFile } from './proxy/__fixtures__/testdir.ts';
