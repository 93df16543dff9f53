/**
 * The credentials an upstream server is configured with — its `env` values (stdio) or `headers`
 * values (HTTP), expanded as when connecting — remembered for the tool-call logs, which then
 * redact them wherever they turn up: the server may echo its key back in a result, bare. A
 * mirrored plugin remembers them while it is loaded, an `UpstreamPool` while its connection to
 * the server is open (ipybox's `register_mcp_server`, code mode).
 * The logs keep those under a secret's name (`API_KEY`, `Authorization`, `redact_keys`), so
 * `NODE_ENV: production` stays readable.
 *
 * @module
 */

import { rememberSecretValues } from '../toollog/secretValues.ts';
import { type EnvMap, expandUpstreamParams } from './expand.ts';
import { isStdioParams, type UpstreamParams } from './params.ts';

/** Remembers the upstream's configured values until the returned function is called. */
export function rememberUpstreamSecrets(
  name: string,
  params: UpstreamParams,
  env: EnvMap = process.env,
): () => void {
  let expanded: UpstreamParams;
  try {
    expanded = expandUpstreamParams(name, params, env);
  } catch {
    // Connecting fails the same way, and says why; there is nothing to remember.
    return () => {};
  }
  return rememberSecretValues((isStdioParams(expanded) ? expanded.env : expanded.headers) ?? {});
}
