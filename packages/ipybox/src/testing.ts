/**
 * `@mcpbox/ipybox/testing`: ipybox's test helpers, for the tests and benchmarks of the other
 * packages (an ipybox in a temporary workspace, code mode's mirrored servers, a real Jupyter
 * Server). Resolved only under the `mcpbox-source` condition the tests run with: never built
 * into dist/ nor published, so it widens no public API.
 *
 * @module
 */
export { startJupyterServer } from './__fixtures__/jupyterServer.ts';
export { executeCode, mirroredServers } from './codemode/testing.ts';
export { registerEverything, tempWorkspace } from './server/testing.ts';
