/**
 * The framework's upstream test servers as processes: where they live, the stdio params that run
 * one through tsx, and server-everything or the 2026-only fixture started over HTTP in a process
 * group of their own. The generic process helpers (/proc, process groups, free ports) are in
 * `@mcpbox/test-utils`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort, stopGroup } from '@mcpbox/test-utils';

/** The repository root (where `node_modules/.bin` lives). */
export const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
export const everythingBin = `${repoRoot}node_modules/.bin/mcp-server-everything`;
export const fixturePath = (name: string) => fileURLToPath(new URL(`./${name}`, import.meta.url));

/** stdio params running one of these TypeScript fixtures through tsx. */
export function fixtureParams(name: string, env?: Record<string, string>) {
  return {
    command: process.execPath,
    args: ['--import', 'tsx', fixturePath(name)],
    cwd: repoRoot,
    ...(env ? { env } : {}),
  };
}

/**
 * Starts server-everything over HTTP (`streamableHttp` or `sse`) in its own process group and
 * waits until it accepts connections. Stop it with {@link stopGroup}.
 */
export async function startEverythingHttp(
  mode: 'streamableHttp' | 'sse',
): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(everythingBin, [mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'ignore'],
    detached: true,
  });
  const until = Date.now() + 20_000;
  for (;;) {
    try {
      await fetch(`http://127.0.0.1:${port}/`);
      return { child, port };
    } catch {
      if (Date.now() > until || child.exitCode !== null) {
        stopGroup(child);
        throw new Error(`server-everything ${mode} did not start on port ${port}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * The 2026-only fixture (`upstream-modern.ts --http`) in its own process group, started and
 * listening; stop it with {@link stopGroup}.
 */
export function startModernHttp(): Promise<{ child: ChildProcess; url: string }> {
  return startHttpFixture('upstream-modern.ts', ['--http']);
}

/**
 * `upstream-whoami.ts`, which knows its users by bearer token (`tokens`: token → user), in its
 * own process group; stop it with {@link stopGroup}.
 */
export function startWhoamiHttp(
  tokens: Record<string, string>,
): Promise<{ child: ChildProcess; url: string }> {
  return startHttpFixture('upstream-whoami.ts', [], { UPSTREAM_TOKENS: JSON.stringify(tokens) });
}

/** A fixture that prints `{"port":N}` once it serves MCP at `/mcp` on 127.0.0.1. */
async function startHttpFixture(
  name: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fixturePath(name), ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
    detached: true,
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${name} ${args.join(' ')} exited (${code})`)));
  });
  return { child, url: `http://127.0.0.1:${JSON.parse(line).port}/mcp` };
}
