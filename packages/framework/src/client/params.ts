/**
 * How to reach an upstream MCP server: a command to spawn (stdio) or a URL (Streamable HTTP,
 * falling back to SSE). The object keeps `${VAR}` placeholders as written — they are expanded
 * only when connecting (see `expand.ts`), so params can be stored, listed and logged without
 * leaking the secrets they refer to.
 *
 * @module
 */
import { z } from 'zod';
import { UpstreamError } from './errors.ts';

export interface StdioUpstreamParams {
  /** Executable to spawn: a name looked up on PATH, or a path (relative to `cwd`). */
  command: string;
  args?: string[];
  /** Added to a minimal inherited environment (PATH, HOME, USER, …); never the whole of ours. */
  env?: Record<string, string>;
  /** Working directory of the child. Default: ours. */
  cwd?: string;
}

export interface HttpUpstreamParams {
  /** Streamable HTTP endpoint (or a legacy SSE endpoint, tried when Streamable HTTP is refused). */
  url: string;
  /** Sent with every request, e.g. `Authorization: Bearer ${TOKEN}`. */
  headers?: Record<string, string>;
}

export type UpstreamParams = StdioUpstreamParams | HttpUpstreamParams;

export function isStdioParams(params: UpstreamParams): params is StdioUpstreamParams {
  return 'command' in params;
}

/** A string field whose type error reads the same as the others' ("expected a string"). */
const text = (message = 'expected a string') => z.string({ error: message });
const stringMap = z.record(z.string(), text('expected a string value'), {
  error: 'expected an object of strings',
});

const stdioSchema = z
  .object({
    command: text().min(1, 'must not be empty'),
    args: z.array(text(), { error: 'expected an array of strings' }).optional(),
    env: stringMap.optional(),
    cwd: text().min(1, 'must not be empty').optional(),
  })
  .strict();

const httpSchema = z
  .object({
    // Placeholders are allowed anywhere, so the URL is checked only after expansion.
    url: text().min(1, 'must not be empty'),
    headers: stringMap.optional(),
  })
  .strict();

/**
 * The zod schema of {@link UpstreamParams}. Unknown keys are errors, so a misspelt `arg:` does
 * not silently start the server without its arguments.
 */
export const upstreamParamsSchema: z.ZodType<UpstreamParams> = z.union([stdioSchema, httpSchema]);

/**
 * Validates user-supplied server parameters.
 *
 * @param label names the value in messages, e.g. `server_params` or `plugins.github`.
 * @throws {UpstreamError} `INVALID_PARAMS`, naming the field: `server_params: needs either
 *   'command' (stdio) or 'url' (HTTP)`, `server_params.args.1: expected a string`, …
 */
export function parseUpstreamParams(value: unknown, label = 'server_params'): UpstreamParams {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(`${label}: expected an object with 'command' (stdio) or 'url' (HTTP)`);
  }
  const hasCommand = 'command' in value && value.command !== undefined;
  const hasUrl = 'url' in value && value.url !== undefined;
  if (hasCommand && hasUrl) {
    throw invalid(`${label}: give either 'command' (stdio) or 'url' (HTTP), not both`);
  }
  if (!hasCommand && !hasUrl) {
    throw invalid(`${label}: needs either 'command' (stdio) or 'url' (HTTP)`);
  }
  // Validate against the one branch the user meant, so messages are about their fields.
  const result = (hasCommand ? stdioSchema : httpSchema).safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const where = [label, ...issue.path].join('.');
    if (keys.length > 0) {
      const allowed = hasCommand ? "'command', 'args', 'env', 'cwd'" : "'url', 'headers'";
      return `${where}: unknown key ${keys.map((k) => `'${k}'`).join(', ')} (allowed: ${allowed})`;
    }
    return `${where}: ${issue.message}`;
  });
  throw invalid(problems.join('; '));
}

function invalid(message: string): UpstreamError {
  return new UpstreamError('INVALID_PARAMS', message);
}

/** A one-line description without placeholders expanded, safe for logs and status output. */
export function describeUpstream(params: UpstreamParams): string {
  if (isStdioParams(params)) return [params.command, ...(params.args ?? [])].join(' ');
  return params.url;
}
