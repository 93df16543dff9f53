/**
 * Sandbox settings: the `--sandbox-config` file (sand. `@anthropic-ai/sandbox-runtime`'s own settings
 * format, validated with its own zod schema) and the policy ipybox puts around it.
 *
 * The policy, on top of what the file says:
 * - network: only `allowedDomains` (empty by default), through the sandbox's filtering proxy;
 * - reads: everywhere except the workspace's `.env` and the file's `denyRead`;
 * - writes: the workspace and the kernel's private runtime directory (IPython profile, temp
 *   files, kernel sockets) plus the file's `allowWrite`, but never the host's compile cache
 *   (see `withHostCodeDenied`);
 * - Unix sockets: allowed, because the kernel's channels and the tool server are Unix sockets
 *   (the sandbox has no network namespace, so TCP to the host is impossible).
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import {
  FilesystemConfigSchema,
  NetworkConfigSchema,
  type SandboxRuntimeConfig,
  SandboxRuntimeConfigSchema,
} from '@anthropic-ai/sandbox-runtime';
import { compileCacheDirectories } from '@mcpbox/framework/launch';

/** A sandbox-runtime settings object as a user writes it: every section and list optional. */
export interface SandboxSettings {
  network?: Partial<SandboxRuntimeConfig['network']>;
  filesystem?: Partial<SandboxRuntimeConfig['filesystem']>;
  [key: string]: unknown;
}

export class SandboxConfigError extends Error {
  /** The settings file, when the settings came from one. */
  readonly path: string | undefined;

  constructor(message: string, path?: string) {
    super(message);
    this.name = 'SandboxConfigError';
    this.path = path;
  }
}

/** Reads and validates a settings file; errors name the file and the field. */
export async function loadSandboxConfig(path: string): Promise<SandboxSettings> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : String(error);
    throw new SandboxConfigError(`sandbox config ${path}: ${reason}`, path);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SandboxConfigError(
      `sandbox config ${path}: not valid JSON (${(error as Error).message})`,
      path,
    );
  }
  validateSandboxSettings(parsed, path);
  return parsed as SandboxSettings;
}

/**
 * `denyWrite` with the directories the host loads compiled code from at its next start (Node's
 * compile cache of our bins): sandboxed code that wrote there would run outside the sandbox.
 * Only a workspace or `allowWrite` that holds them (`~`) reaches them at all; the sandbox then
 * keeps them read-only, and a deny outside every writable path is left out by sandbox-runtime.
 */
export function withHostCodeDenied(denyWrite: string[]): string[] {
  return [...compileCacheDirectories(), ...denyWrite];
}

/** Fills the lists sandbox-runtime requires, so a file may say only what it changes. */
export function withRequiredLists(settings: SandboxSettings): SandboxSettings {
  return {
    ...settings,
    network: { allowedDomains: [], deniedDomains: [], ...settings.network },
    filesystem: { denyRead: [], allowWrite: [], denyWrite: [], ...settings.filesystem },
  };
}

/**
 * Throws {@link SandboxConfigError} naming `source` and the first wrong fields. Unknown keys are
 * errors too (the library's schema would drop them silently, and a misspelt `denyRead` must not
 * quietly allow reads).
 */
export function validateSandboxSettings(
  value: unknown,
  source = 'sandbox settings',
): asserts value is SandboxSettings {
  const where = source === 'sandbox settings' ? source : `sandbox config ${source}`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SandboxConfigError(`${where}: must be a JSON object`, source);
  }
  const issues: string[] = [];
  const unknownKeys = (object: unknown, known: object, prefix: string) => {
    if (typeof object !== 'object' || object === null) return;
    for (const key of Object.keys(object)) {
      if (!(key in known)) issues.push(`${prefix}${key}: unknown field`);
    }
  };
  unknownKeys(value, SandboxRuntimeConfigSchema.innerType().shape, '');
  const record = value as Record<string, unknown>;
  unknownKeys(record.network, NetworkConfigSchema.shape, 'network.');
  unknownKeys(record.filesystem, FilesystemConfigSchema.shape, 'filesystem.');
  if (issues.length === 0) {
    const result = SandboxRuntimeConfigSchema.safeParse(withRequiredLists(record));
    if (!result.success) issues.push(...result.error.issues.map(describeIssue));
  }
  if (issues.length > 0) {
    throw new SandboxConfigError(`${where}: ${issues.slice(0, 5).join('; ')}`, source);
  }
}

/**
 * sandbox-runtime validates with its own zod (3.x), so its issues are not zod 4's `$ZodIssue`;
 * only the path and message are read.
 */
function describeIssue(issue: { path: PropertyKey[]; message: string }): string {
  const field = issue.path.map(String).join('.') || '(top level)';
  return `${field}: ${issue.message}`;
}

export interface SandboxPolicyOptions {
  /** The kernel's working directory: writable, its `.env` unreadable. */
  workspace: string;
  /** The kernel's private directory (profile, temp files, sockets): writable. */
  runtimeDir: string;
  settings?: SandboxSettings;
  /** Absolute path of the socat sandbox-runtime should run (see `socatWithParent`). */
  socatPath?: string;
}

/** Relative filesystem entries are meant relative to the workspace, the kernel's cwd. */
function inWorkspace(workspace: string, paths: string[] | undefined): string[] {
  return (paths ?? []).map((path) =>
    isAbsolute(path) || path.startsWith('~') ? path : resolve(workspace, path),
  );
}

/** The sandbox-runtime configuration for one kernel. */
export function sandboxPolicy(options: SandboxPolicyOptions): SandboxRuntimeConfig {
  const { workspace, runtimeDir, socatPath } = options;
  const settings = withRequiredLists(options.settings ?? {});
  const network = settings.network as SandboxRuntimeConfig['network'];
  const filesystem = settings.filesystem as SandboxRuntimeConfig['filesystem'];
  return {
    ...(settings as SandboxRuntimeConfig),
    ...(socatPath && settings.socatPath === undefined ? { socatPath } : {}),
    network: { ...network, allowAllUnixSockets: true },
    filesystem: {
      ...filesystem,
      denyRead: [join(workspace, '.env'), ...inWorkspace(workspace, filesystem.denyRead)],
      allowRead: filesystem.allowRead && inWorkspace(workspace, filesystem.allowRead),
      allowWrite: [workspace, runtimeDir, ...inWorkspace(workspace, filesystem.allowWrite)],
      denyWrite: withHostCodeDenied(inWorkspace(workspace, filesystem.denyWrite)),
    },
  };
}
