/**
 * Connect-time expansion of `${VAR}` / `${VAR:-default}` in upstream params (command, args,
 * env values, cwd, url, header values). Only the transient copy handed to the transport holds
 * the values; the stored params keep their placeholders.
 *
 * @module
 */
import { interpolateTree } from '../config/interpolate.ts';
import { UpstreamError } from './errors.ts';
import type { UpstreamParams } from './params.ts';

export type EnvMap = Readonly<Record<string, string | undefined>>;

/**
 * Returns a copy of `params` with every placeholder expanded from `env`.
 *
 * @throws {UpstreamError} `EXPANSION_FAILED` naming the upstream, the field and the variable —
 *   e.g. `upstream 'github': env.GITHUB_TOKEN: environment variable GH_TOKEN is not set …` —
 *   never a value.
 */
export function expandUpstreamParams(
  name: string,
  params: UpstreamParams,
  env: EnvMap,
): UpstreamParams {
  const { value, issues } = interpolateTree(params, env);
  if (issues.length > 0) {
    const problems = issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new UpstreamError('EXPANSION_FAILED', `upstream '${name}': ${problems.join('; ')}`);
  }
  const expanded = value as UpstreamParams;
  if ('url' in expanded && !URL.canParse(expanded.url)) {
    // The written form is safe to show; the expanded one may carry a token in its query.
    const written = 'url' in params ? params.url : '';
    throw new UpstreamError(
      'EXPANSION_FAILED',
      `upstream '${name}': url ${JSON.stringify(written)} is not a valid URL after expansion`,
    );
  }
  return expanded;
}
