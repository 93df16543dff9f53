/**
 * The two environments of an ipybox server, kept apart on purpose:
 *
 * - the **host** environment (this process's variables, plus `<workspace>/.env` for the names not
 *   already set) feeds the `${VAR}` placeholders of MCP server params, expanded at connect time
 *   on the host — so API keys never reach the kernel;
 * - the **kernel** environment gets only the `KERNEL_ENV_*` variables of the host environment,
 *   with the prefix stripped (`KERNEL_ENV_SECRET_1` → `SECRET_1`), and nothing else.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseEnv } from 'node:util';

export const KERNEL_ENV_PREFIX = 'KERNEL_ENV_';

export type EnvMap = Readonly<Record<string, string | undefined>>;

export interface IpyboxEnvironment {
  /** For `${VAR}` placeholders in server params: `.env` values under the real environment. */
  host: Record<string, string>;
  /** For the kernel: `KERNEL_ENV_*` of {@link host}, prefix stripped. */
  kernel: Record<string, string>;
}

/** Reads `<workspace>/.env` (dotenv syntax); a missing file is an empty one. */
export async function readDotEnv(workspace: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(join(workspace, '.env'), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  return parseEnv(text) as Record<string, string>;
}

/** Merges `.env` under `env` (the real environment wins) and derives the kernel's variables. */
export function buildEnvironment(dotEnv: Record<string, string>, env: EnvMap): IpyboxEnvironment {
  const host: Record<string, string> = { ...dotEnv };
  for (const [name, value] of Object.entries(env)) if (value !== undefined) host[name] = value;
  const kernel: Record<string, string> = {};
  for (const [name, value] of Object.entries(host)) {
    if (name.startsWith(KERNEL_ENV_PREFIX) && name.length > KERNEL_ENV_PREFIX.length) {
      kernel[name.slice(KERNEL_ENV_PREFIX.length)] = value;
    }
  }
  return { host, kernel };
}

/** {@link readDotEnv} + {@link buildEnvironment}. */
export async function loadEnvironment(workspace: string, env: EnvMap): Promise<IpyboxEnvironment> {
  return buildEnvironment(await readDotEnv(workspace), env);
}
