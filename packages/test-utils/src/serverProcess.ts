/**
 * Test helpers for the toolkit's server bins (mcp-factory, mcp-proxy, ipybox) started as real
 * processes: run one until it serves or exits, and ask Linux which address a port is bound to —
 * so a test can check a bind without connecting to anything but loopback.
 */
import {
  type ChildProcess,
  type ChildProcessByStdio,
  type SpawnOptions,
  spawn,
} from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

type After = { after(fn: () => unknown): void };

const SETPRIV = (process.env.PATH ?? '')
  .split(delimiter)
  .map((dir) => join(dir, 'setpriv'))
  .find((path) => existsSync(path));

/**
 * `spawn`, but the child is SIGKILLed by Linux when this process dies, even by SIGKILL
 * (`setpriv --pdeathsig KILL`, util-linux): a test's `after` hooks do not run when its runner is
 * killed, and a server bin must not die with its parent on its own, since a user's shell may
 * start it. Without `setpriv` it is a plain `spawn`.
 */
export function spawnTiedToTest<const Options extends SpawnOptions>(
  command: string,
  args: string[],
  options: Options,
): Spawned<Options> {
  return (
    SETPRIV
      ? spawn(SETPRIV, ['--pdeathsig', 'KILL', '--', command, ...args], options)
      : spawn(command, args, options)
  ) as Spawned<Options>;
}

/** The child as `spawn` types it for these options: a piped stream is there, others `null`. */
type Spawned<Options> = Options extends {
  stdio: readonly [infer In, infer Out, infer Err, ...unknown[]];
}
  ? ChildProcessByStdio<Piped<In, Writable>, Piped<Out, Readable>, Piped<Err, Readable>>
  : ChildProcess;
type Piped<Option, Stream> = Option extends 'pipe' ? Stream : null;

export interface ServerProcess {
  child: ChildProcess;
  /** The match of `ready` on stderr; `undefined` when the process exited first. */
  match: RegExpExecArray | undefined;
  /** Exit code, when the process exited before `ready` appeared. */
  exitCode: number | null | undefined;
  stderr(): string;
  stdout(): string;
}

/**
 * Spawns `node <bin> ...args` in its own process group and resolves once `ready` matches its
 * stderr, or once it exits. The group is ended after the test.
 */
export async function runServerBin(
  t: After,
  bin: string,
  args: string[],
  ready: RegExp,
  options: { env?: Record<string, string>; cwd?: string } = {},
): Promise<ServerProcess> {
  const child = spawnTiedToTest(process.execPath, [bin, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  t.after(() => endProcessGroup(child, exited));
  let stderr = '';
  let stdout = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  const match = await new Promise<RegExpExecArray | undefined>((resolve) => {
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
      const found = ready.exec(stderr);
      if (found) resolve(found);
    });
    void exited.then(() => resolve(undefined));
  });
  const exitCode = match ? undefined : await exited;
  return { child, match, exitCode, stderr: () => stderr, stdout: () => stdout };
}

/**
 * Ends a child started with `detached: true` and everything in its process group: SIGTERM, then
 * SIGKILL after 5 s. Resolves once the child has exited (`exited` is its exit promise).
 */
export async function endProcessGroup(child: ChildProcess, exited: Promise<unknown>) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {}
  }, 5000);
  await exited;
  clearTimeout(timer);
}

/**
 * The IPv4 address a listening TCP socket on `port` is bound to (`127.0.0.1`, `0.0.0.0`), read
 * from /proc/net/tcp; `undefined` when nothing listens there over IPv4.
 */
export function listeningAddress(port: number): string | undefined {
  const LISTEN = '0A';
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const [, local, , state] = line.trim().split(/\s+/);
    if (state !== LISTEN || local === undefined) continue;
    const [hexAddress, hexPort] = local.split(':');
    if (Number.parseInt(hexPort, 16) !== port) continue;
    // Little-endian on x86 and arm64: 0100007F is 127.0.0.1.
    const bytes = hexAddress.match(/../g)!.map((byte) => Number.parseInt(byte, 16));
    return bytes.reverse().join('.');
  }
  return undefined;
}
