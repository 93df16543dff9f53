/**
 * `@mcpbox/framework/testing`: the framework's test helpers that need the framework itself, for
 * the tests and benchmarks of the other packages (helpers that need none of it are in
 * `@mcpbox/test-utils`). Resolved only under the `mcpbox-source` condition the tests run with:
 * never built into dist/ nor published, so it widens no public API.
 *
 * @module
 */
export {
  fixtureParams,
  startModernHttp,
  startWhoamiHttp,
} from './__fixtures__/upstream-processes.ts';
export { clusterLinks } from './cluster/testing.ts';
export { ENVIRONMENT_KEYS } from './config/environment.ts';
export { knownConfigKeys } from './config/schema.ts';
