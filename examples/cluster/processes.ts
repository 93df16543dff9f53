/**
 * The processes of the cluster example, each started in its own process group and stopped with
 * everything it started: Redis, a Jupyter server, mcpbox replicas and HAProxy. `run.ts` puts them
 * together; the tests and `bench/cluster.ts` start the parts they need.
 *
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const HAPROXY_CONFIG = fileURLToPath(new URL('haproxy.cfg', import.meta.url));
export const BIN = {
  'mcp-proxy': join(ROOT, 'packages/proxy/bin/mcp-proxy.js'),
  'mcp-factory': join(ROOT, 'packages/proxy/bin/mcp-factory.js'),
};

/** Generous: a loaded 2-core machine starts a replica in seconds, not this many. */
const START_TIMEOUT_MS = 120_000;

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

export interface Proc {
  readonly name: string;
  readonly child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Whether it is still running. */
  running(): boolean;
  /** SIGTERM to its process group, SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL to its process group (a crash); resolves once it has exited. */
  kill(): Promise<void>;
}

/** Starts `command` in a process group of its own, so stopping it ends what it started too. */
export function spawnGroup(
  name: string,
  command: string,
  args: string[],
  { env = {}, cwd = ROOT }: { env?: Record<string, string | undefined>; cwd?: string } = {},
): Proc {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const append = (chunk: Buffer) => {
    // Bounded: a replica that logs for hours must not grow this without end.
    output = (output + chunk.toString('utf8')).slice(-200_000);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    child.once('exit', () => resolve());
    child.once('error', (error) => {
      output += `\n${error.message}`;
      resolve();
    });
  });
  const running = () => child.exitCode === null && child.signalCode === null && !!child.pid;
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-(child.pid ?? 0), sig);
    } catch {
      // already gone
    }
  };
  return {
    name,
    child,
    output: () => output,
    running,
    async stop(graceMs = 10_000) {
      if (!running()) {
        signal('SIGKILL'); // what it started may still run in its group
        return exited;
      }
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
      signal('SIGKILL');
    },
    async kill() {
      signal('SIGKILL');
      await exited;
    },
  };
}

/** Polls `check` until it is true; fails naming `what` (with the process's output) otherwise. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean> | boolean,
  {
    proc,
    timeoutMs = START_TIMEOUT_MS,
  }: { proc?: Pick<Proc, 'name' | 'output' | 'running'>; timeoutMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc && !proc.running()) {
      throw new Error(`${proc.name} exited before ${what}:\n${proc.output().slice(-4000)}`);
    }
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    await sleep(100);
  }
  throw new Error(
    `${what}: not within ${timeoutMs / 1000} s\n${proc?.output().slice(-4000) ?? ''}`,
  );
}

async function answersPing(port: number): Promise<boolean> {
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(2000, () => socket.destroy());
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('close', () => resolve(false));
  });
}

export interface Redis extends Proc {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
}

/**
 * Starts a Redis on loopback that persists nothing (the replicas rebuild the shared state), its
 * files in `dir` (default: where it was started); resolves once it answers PING.
 */
export async function startRedis(port: number, dir?: string): Promise<Redis> {
  const proc = spawnGroup('redis-server', 'redis-server', [
    ...['--port', String(port), '--bind', '127.0.0.1'],
    ...(dir === undefined ? [] : ['--dir', dir]),
    ...['--save', '', '--appendonly', 'no'],
  ]);
  try {
    await waitFor('Redis answers', () => answersPing(port), { proc });
  } catch (error) {
    await proc.stop();
    throw error;
  }
  return { ...proc, url: `redis://127.0.0.1:${port}` };
}

const answers = async (url: string, init?: RequestInit) =>
  (await fetch(url, { ...init, signal: AbortSignal.timeout(5000) })).ok;

export interface Replica extends Proc {
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  readonly port: number;
  readonly healthPort: number;
}

/**
 * Starts an mcpbox bin over HTTP on loopback; resolves once `/health/ready` says ready. Without
 * `port`, it takes free ports, and others when one was taken between the pick and the bind.
 */
export async function startReplica(
  name: string,
  bin: keyof typeof BIN,
  args: string[],
  options: { env?: Record<string, string>; port?: number; healthPort?: number } = {},
): Promise<Replica> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startReplicaOn(name, bin, args, options);
    } catch (error) {
      const clash = /already in use/.test(String(error));
      if (!clash || options.port !== undefined || attempt === 3) throw error;
    }
  }
}

async function startReplicaOn(
  name: string,
  bin: keyof typeof BIN,
  args: string[],
  {
    env = {},
    port,
    healthPort,
  }: { env?: Record<string, string>; port?: number; healthPort?: number },
): Promise<Replica> {
  const mcpPort = port ?? (await freePort());
  const health = healthPort ?? (await freePort());
  const proc = spawnGroup(
    name,
    process.execPath,
    [BIN[bin], ...args, '--http', String(mcpPort), '--health-port', String(health)],
    { env },
  );
  try {
    await waitFor(`${name} ready`, () => answers(`http://127.0.0.1:${health}/health/ready`), {
      proc,
    });
  } catch (error) {
    await proc.stop();
    throw error;
  }
  return { ...proc, url: `http://127.0.0.1:${mcpPort}/mcp`, port: mcpPort, healthPort: health };
}

export interface Haproxy extends Proc {
  /** Where clients connect: `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  readonly statsUrl: string;
  /** Per replica (`replica1`…): HAProxy's status (`UP`, `DOWN`…) and sessions served so far. */
  servers(): Promise<Map<string, { status: string; sessions: number }>>;
}

/**
 * Starts HAProxy with `examples/cluster/haproxy.cfg` (or a copy) in front of three replicas; resolves once
 * it accepts connections and its health checks see every replica up.
 */
export async function startHaproxy(
  replicas: { port: number; healthPort: number }[],
  {
    port,
    statsPort,
    config = HAPROXY_CONFIG,
  }: { port?: number; statsPort?: number; config?: string } = {},
): Promise<Haproxy> {
  if (replicas.length !== 3) throw new Error('haproxy.cfg names three replicas');
  const front = port ?? (await freePort());
  const stats = statsPort ?? (await freePort());
  const env: Record<string, string> = {
    MCPBOX_LB_BIND: `127.0.0.1:${front}`,
    MCPBOX_STATS_BIND: `127.0.0.1:${stats}`,
  };
  replicas.forEach((replica, i) => {
    env[`MCPBOX_REPLICA_${i + 1}`] = `127.0.0.1:${replica.port}`;
    env[`MCPBOX_REPLICA_${i + 1}_HEALTH`] = String(replica.healthPort);
  });
  // -db: stay in the foreground (our child, stopped with us), log to stderr.
  const proc = spawnGroup('haproxy', 'haproxy', ['-db', '-f', config], { env });
  const statsUrl = `http://127.0.0.1:${stats}/`;
  const servers = async () => {
    const csv = await (
      await fetch(`${statsUrl};csv`, { signal: AbortSignal.timeout(5000) })
    ).text();
    const [head, ...rows] = csv.split('\n').map((line) => line.split(','));
    const column = (name: string) => head.indexOf(name === 'pxname' ? '# pxname' : name);
    const result = new Map<string, { status: string; sessions: number }>();
    for (const row of rows) {
      if (
        row[column('pxname')] !== 'replicas' ||
        !/^replica\d$/.test(row[column('svname')] ?? '')
      ) {
        continue;
      }
      result.set(row[column('svname')], {
        status: row[column('status')],
        sessions: Number(row[column('stot')]),
      });
    }
    return result;
  };
  try {
    await waitFor(
      'HAProxy sees every replica up',
      async () => [...(await servers()).values()].filter((s) => s.status === 'UP').length === 3,
      { proc },
    );
  } catch (error) {
    await proc.stop();
    throw error;
  }
  return { ...proc, url: `http://127.0.0.1:${front}/mcp`, statsUrl, servers };
}
