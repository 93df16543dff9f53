/**
 * Test helpers for upstream process lifecycles (Linux /proc): which processes are alive, which
 * belong to a process group, and waiting until a set of pids is gone.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

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

interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgid: number;
}

function stat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: split after it.
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { pid, state: rest[0], ppid: Number(rest[1]), pgid: Number(rest[2]) };
  } catch {
    return undefined;
  }
}

/** Alive means present and not a zombie (a container's pid 1 may never reap orphans). */
export function isAlive(pid: number): boolean {
  const s = stat(pid);
  return s !== undefined && s.state !== 'Z';
}

function allStats(): ProcStat[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map((entry) => stat(Number(entry)))
    .filter((s): s is ProcStat => s !== undefined && s.state !== 'Z');
}

/** Live pids of a process group. */
export function groupMembers(pgid: number): number[] {
  return allStats()
    .filter((s) => s.pgid === pgid)
    .map((s) => s.pid);
}

/** Live descendants of `pid` (children, grandchildren, …). */
export function descendants(pid: number): number[] {
  const stats = allStats();
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const s of stats) {
      if (s.ppid === parent) {
        found.push(s.pid);
        walk(s.pid);
      }
    }
  };
  walk(pid);
  return found;
}

/** Resolves with the pids still alive once all are gone or `limitMs` passed (then non-empty). */
export async function waitUntilGone(pids: number[], limitMs = 15_000): Promise<number[]> {
  const until = Date.now() + limitMs;
  for (;;) {
    const alive = pids.filter(isAlive);
    if (alive.length === 0 || Date.now() > until) return alive;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Kills leftovers after a failed test, so nothing outlives the test run. */
export function killAll(pids: Iterable<number>): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** A port that was free a moment ago (for servers that take their port from the environment). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
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

/** SIGKILLs a process started with `detached: true` together with its group. */
export function stopGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Live pids whose command line contains `text` (e.g. a fixture's file name). */
export function pidsRunning(text: string): number[] {
  return allStats()
    .filter((s) => {
      try {
        return readFileSync(`/proc/${s.pid}/cmdline`, 'utf8').includes(text);
      } catch {
        return false;
      }
    })
    .map((s) => s.pid);
}

/**
 * The 2026-only fixture (`upstream-modern.ts --http`) in its own process group, started and
 * listening; stop it with {@link stopGroup}.
 */
export async function startModernHttp(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fixturePath('upstream-modern.ts'), '--http'],
    {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'ignore'],
      detached: true,
    },
  );
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`upstream-modern --http exited (${code})`)));
  });
  return { child, url: `http://127.0.0.1:${JSON.parse(line).port}/mcp` };
}
