/**
 * The process-wide sandbox-runtime: `SandboxManager` is a singleton that runs the filtering HTTP
 * and SOCKS proxies (in this process) and the socat bridges to them. It is started by the first
 * sandboxed process and stopped when the last one is released.
 *
 * The proxies consult one network policy for the whole process, so every sandbox in a process
 * must share its `network` settings; filesystem rules are applied per wrapped command.
 *
 * @module
 */
import { SandboxManager, type SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import { SandboxConfigError } from './sandboxConfig.ts';

/** POSIX single-quoting: the argument reaches the program byte for byte. */
export function shellQuote(argument: string): string {
  return `'${argument.replaceAll("'", `'\\''`)}'`;
}

/** What decides the shared proxies and bridges; it must match for every lease in a process. */
function processWideKey(config: SandboxRuntimeConfig): string {
  return JSON.stringify({ network: config.network, socatPath: config.socatPath });
}

let active: { key: string; leases: number; ready: Promise<void> } | undefined;

export interface SandboxLease {
  /**
   * The command line that runs `argv` inside the sandbox. `env` entries are set inside it, after
   * sandbox-runtime's own (it sets `TMPDIR`, for one); `unsetEnv` names are removed.
   */
  wrap(
    argv: string[],
    options?: { env?: Record<string, string>; unsetEnv?: string[] },
  ): Promise<string[]>;
  /** Stops the proxies and bridges when this was the last lease. Idempotent. */
  release(): Promise<void>;
}

/** Starts (or joins) the process-wide sandbox-runtime for a sandbox with this policy. */
export async function acquireSandbox(config: SandboxRuntimeConfig): Promise<SandboxLease> {
  const key = processWideKey(config);
  if (active && active.key !== key) {
    throw new SandboxConfigError(
      'a sandbox with different network settings already runs in this process: the sandbox proxy is shared, so all sandboxes of one process need the same "network" settings',
    );
  }
  if (!active) active = { key, leases: 0, ready: SandboxManager.initialize(config) };
  // Counted before waiting, so a release meanwhile cannot stop the proxies under us.
  const lease = active;
  lease.leases += 1;
  try {
    await lease.ready;
  } catch (error) {
    lease.leases -= 1;
    if (active === lease) {
      active = undefined;
      await SandboxManager.reset().catch(() => undefined);
    }
    throw error;
  }
  let released = false;
  return {
    async wrap(argv, options = {}) {
      const prefix = [
        'exec env',
        ...(options.unsetEnv ?? []).map((name) => `-u ${shellQuote(name)}`),
        ...Object.entries(options.env ?? {}).map(([name, value]) => shellQuote(`${name}=${value}`)),
      ].join(' ');
      // `exec` all the way down: no shell stays between bwrap and the program, and bwrap itself
      // is our direct child, so its --die-with-parent fires when this process dies.
      const inner = `${prefix} ${argv.map(shellQuote).join(' ')}`;
      const wrapped = await SandboxManager.wrapWithSandbox(inner, undefined, {
        filesystem: config.filesystem,
      });
      return ['/bin/sh', '-c', `exec ${wrapped}`];
    },
    async release() {
      if (released) return;
      released = true;
      lease.leases -= 1;
      if (lease.leases === 0 && active === lease) {
        active = undefined;
        await SandboxManager.reset();
      }
    },
  };
}
