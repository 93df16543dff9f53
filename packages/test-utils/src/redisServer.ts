/**
 * A real `redis-server` (Debian's) for tests: on a free loopback port, nothing persisted
 * (`--save '' --appendonly no`), ended after the test. `stop()` and `start()` again on the same
 * port let a test take Redis away mid-run and bring it back.
 *
 * @example
 * ```ts
 * const redis = await startRedisServer(t);
 * // ... MCP_REDIS_URL=redis.url
 * await redis.stop(); // Redis lost
 * await redis.start(); // and back, same port, empty
 * ```
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';
import { spawnTiedToTest } from './serverProcess.ts';

type After = { after(fn: () => unknown): void };

export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** Ends the server (SIGKILL: a crash, not a goodbye); resolves once it has exited. */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty); resolves once it accepts connections. */
  start(): Promise<void>;
}

/** Starts `redis-server` for the test `t`; it (and its scratch folder) go in `t.after`. */
export async function startRedisServer(t: After): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'mcpbox-redis-'));
  let child: ChildProcess | undefined;
  let exited: Promise<unknown> = Promise.resolve();

  async function start(): Promise<void> {
    const spawned = spawnTiedToTest(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = spawned;
    let output = '';
    spawned.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    spawned.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    exited = new Promise((resolve) => spawned.once('exit', resolve));
    // Ready once it answers PING; a generous deadline for a loaded machine.
    const deadline = Date.now() + 30_000;
    while (!(await answersPing(port))) {
      if (spawned.exitCode !== null) throw new Error(`redis-server exited: ${output}`);
      if (Date.now() > deadline)
        throw new Error(`redis-server did not answer on ${port}: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function stop(): Promise<void> {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    child = undefined;
  }

  t.after(async () => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  });
  await start();
  return { port, url: `redis://127.0.0.1:${port}`, stop, start };
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('error', () => done(false));
    socket.setTimeout(2000, () => done(false));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}
