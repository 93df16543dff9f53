/**
 * Checks, before anything is started, that this host can run the sandbox: the three programs
 * sandbox-runtime needs on Linux, and a kernel that lets an unprivileged process create a user
 * namespace (bubblewrap's `--unshare-user`). Each failure names the Debian packages to install,
 * so the user sees the fix, not a bwrap error from deep inside a kernel start.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { findProgram } from '@mcpbox/framework';

export const SANDBOX_INSTALL_HINT = 'apt-get install bubblewrap socat ripgrep';

/** The programs sandbox-runtime runs on Linux, with the Debian package that ships each. */
const REQUIRED_PROGRAMS = [
  { program: 'bwrap', debianPackage: 'bubblewrap' },
  { program: 'socat', debianPackage: 'socat' },
  { program: 'rg', debianPackage: 'ripgrep' },
] as const;

export class SandboxUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxUnavailableError';
  }
}

export interface SandboxHost {
  bwrap: string;
  socat: string;
  rg: string;
}

/**
 * Throws {@link SandboxUnavailableError} when the sandbox cannot work here; returns the programs'
 * absolute paths otherwise. `path` defaults to this process's `PATH` (tests pass a reduced one).
 */
export function checkSandboxHost(path: string | undefined = process.env.PATH): SandboxHost {
  if (process.platform !== 'linux') {
    throw new SandboxUnavailableError(
      `the ipybox sandbox is built and tested for Linux only (this is ${process.platform})`,
    );
  }
  const found: Partial<Record<'bwrap' | 'socat' | 'rg', string>> = {};
  const missing: string[] = [];
  for (const { program, debianPackage } of REQUIRED_PROGRAMS) {
    const location = findProgram(program, path);
    if (location === undefined) missing.push(`${program} (Debian package ${debianPackage})`);
    else found[program] = location;
  }
  if (missing.length > 0) {
    throw new SandboxUnavailableError(
      `the sandbox needs programs that are not on PATH: ${missing.join(', ')}. Install them with: ${SANDBOX_INSTALL_HINT}`,
    );
  }
  const host = found as SandboxHost;
  checkUserNamespaces(host.bwrap);
  return host;
}

const probed = new Map<string, string | null>();

/** bubblewrap without setuid needs unprivileged user namespaces; ask it once per binary. */
function checkUserNamespaces(bwrap: string): void {
  let refusal = probed.get(bwrap);
  if (refusal === undefined) {
    const probe = spawnSync(bwrap, ['--unshare-user', '--dev-bind', '/', '/', 'true'], {
      timeout: 10_000,
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    refusal =
      probe.error === undefined && probe.status === 0
        ? null
        : (probe.error?.message ?? probe.stderr.trim().split('\n')[0] ?? `status ${probe.status}`);
    probed.set(bwrap, refusal);
  }
  if (refusal !== null) {
    throw new SandboxUnavailableError(
      `bubblewrap cannot create a user namespace here (${bwrap}: ${refusal}). The kernel must allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or user.max_user_namespaces > 0), and the sandbox needs: ${SANDBOX_INSTALL_HINT}`,
    );
  }
}
