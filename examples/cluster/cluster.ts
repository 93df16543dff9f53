/**
 * The whole example cluster on loopback: Redis (shared state), a Jupyter server (the kernels),
 * three `mcp-proxy -a ipybox` replicas in cluster mode with their kernels on that server, and
 * HAProxy in front (`haproxy.cfg`). Everything it starts lives under one scratch directory (its
 * configuration, Redis's folder, Jupyter's directories and kernels' files), removed by `stop()`.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  freePort,
  HAPROXY_CONFIG,
  type Haproxy,
  type Proc,
  type Replica,
  spawnGroup,
  startHaproxy,
  startRedis,
  startReplica,
  waitFor,
} from './processes.ts';

/** Debian's interpreter: the one with python3-jupyter-server (not a pyenv or venv python3). */
const SYSTEM_PYTHON = '/usr/bin/python3';

export interface ClusterPorts {
  /** HAProxy: where clients connect. */
  front: number;
  stats: number;
  redis: number;
  jupyter: number;
  /**
   * Each replica's MCP port (its health port is the next one). Without them, each replica
   * takes free ports as it starts (HAProxy is configured with those afterwards).
   */
  replicas?: [number, number, number];
}

/** The ports `run.ts` uses unless told `--free-ports` (see haproxy.cfg). */
export const DEFAULT_PORTS: ClusterPorts = {
  front: 8000,
  stats: 8404,
  redis: 6390,
  jupyter: 8890,
  replicas: [8101, 8111, 8121],
};

export interface Cluster {
  /** Give this to MCP clients: HAProxy's `/mcp`. */
  readonly url: string;
  readonly statsUrl: string;
  readonly redisUrl: string;
  readonly jupyterUrl: string;
  readonly replicas: Replica[];
  readonly haproxy: Haproxy;
  /** The scratch directory everything runs in. */
  readonly dir: string;
  /** Stops everything (HAProxy, replicas, Jupyter, Redis, in that order) and removes `dir`. */
  stop(): Promise<void>;
}

export async function freePorts(): Promise<ClusterPorts> {
  return {
    front: await freePort(),
    stats: await freePort(),
    redis: await freePort(),
    jupyter: await freePort(),
  };
}

function startJupyter(dir: string, port: number, token: string): Proc {
  const jupyter = join(dir, 'jupyter');
  mkdirSync(join(jupyter, 'root'), { recursive: true });
  return spawnGroup(
    'jupyter-server',
    SYSTEM_PYTHON,
    [
      '-m',
      'jupyter_server',
      '--allow-root',
      '--no-browser',
      '--ip=127.0.0.1',
      `--port=${port}`,
      '--port-retries=0',
      `--ServerApp.root_dir=${join(jupyter, 'root')}`,
      '--ServerApp.log_level=WARN',
      // Kernels a replica dropped (it was killed) end after an hour without use.
      '--MappingKernelManager.cull_idle_timeout=3600',
    ],
    {
      env: {
        // The token by variable, not on the command line (where `ps` shows it).
        JUPYTER_TOKEN: token,
        JUPYTER_CONFIG_DIR: join(jupyter, 'config'),
        JUPYTER_DATA_DIR: join(jupyter, 'data'),
        JUPYTER_RUNTIME_DIR: join(jupyter, 'runtime'),
        IPYTHONDIR: join(jupyter, 'ipython'),
      },
    },
  );
}

/** What every replica loads: ipybox with its kernels on the Jupyter server. */
function replicaConfig(dir: string, jupyterUrl: string): string {
  const file = join(dir, 'replica.yaml');
  writeFileSync(
    file,
    [
      'plugins:',
      '  ipybox:',
      `    workspace: ${JSON.stringify(join(dir, 'workspace'))}`,
      '    kernel_gateway:',
      `      url: ${jupyterUrl}`,
      '',
    ].join('\n'),
  );
  return file;
}

/**
 * Starts the cluster; resolves once HAProxy sees all three replicas ready. On failure, what was
 * started is stopped again before the error is thrown.
 */
export async function startCluster(
  options: { ports?: ClusterPorts; log?: (line: string) => void } = {},
): Promise<Cluster> {
  const ports = options.ports ?? DEFAULT_PORTS;
  const log = options.log ?? (() => {});
  const dir = mkdtempSync(join(tmpdir(), 'mcpbox-cluster-'));
  const started: Proc[] = [];
  const stopAll = async () => {
    // Front to back: no new requests, then the replicas (they let go of their kernels), then
    // the Jupyter server (it shuts its kernels down) and Redis.
    for (const proc of [...started].reverse()) await proc.stop();
    rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
  };
  try {
    mkdirSync(join(dir, 'redis'));
    const redis = await startRedis(ports.redis, join(dir, 'redis'));
    started.push(redis);
    const redisUrl = redis.url;
    log(`Redis:          ${redisUrl}`);

    const token = randomBytes(24).toString('hex');
    // The replicas' shared secret (cluster.secret): their records are signed with it.
    const clusterSecret = randomBytes(32).toString('base64url');
    const jupyter = startJupyter(dir, ports.jupyter, token);
    started.push(jupyter);
    const jupyterUrl = `http://127.0.0.1:${ports.jupyter}`;
    await waitFor(
      'the Jupyter server answers',
      async () =>
        (
          await fetch(`${jupyterUrl}/api/status`, {
            headers: { Authorization: `token ${token}` },
            signal: AbortSignal.timeout(5000),
          })
        ).ok,
      { proc: jupyter },
    );
    log(`Jupyter server: ${jupyterUrl}`);

    const replicas = await startReplicas(ports, replicaConfig(dir, jupyterUrl), started, log, {
      MCP_REDIS_URL: redisUrl,
      MCP_CLUSTER_SECRET: clusterSecret,
      IPYBOX_KERNEL_GATEWAY_TOKEN: token,
    });

    // Its own copy, so everything this cluster runs names its directory.
    const haproxyConfig = join(dir, 'haproxy.cfg');
    copyFileSync(HAPROXY_CONFIG, haproxyConfig);
    const haproxy = await startHaproxy(replicas, {
      port: ports.front,
      statsPort: ports.stats,
      config: haproxyConfig,
    });
    started.push(haproxy);
    return {
      url: haproxy.url,
      statsUrl: haproxy.statsUrl,
      redisUrl,
      jupyterUrl,
      replicas,
      haproxy,
      dir,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** The three replicas, started together; each is added to `started` as soon as it runs. */
async function startReplicas(
  ports: ClusterPorts,
  config: string,
  started: Proc[],
  log: (line: string) => void,
  env: Record<string, string>,
): Promise<Replica[]> {
  const starting = await Promise.allSettled(
    [0, 1, 2].map(async (i) => {
      const port = ports.replicas?.[i];
      const replica = await startReplica(
        `replica${i + 1}`,
        'mcp-proxy',
        [
          ...['-a', 'ipybox', '-c', config],
          // Nothing here talks to a replica's management API: any port it gets itself (a port
          // picked free beforehand can be taken by the time the replica binds it).
          ...['--mgmt-port', '0', '--log-level', 'warning'],
        ],
        { port, healthPort: port === undefined ? undefined : port + 1, env },
      );
      started.push(replica);
      log(
        `replica${i + 1}:       ${replica.url} (health http://127.0.0.1:${replica.healthPort}/health)`,
      );
      return replica;
    }),
  );
  // All settled before any error is thrown: a replica still starting would be left behind.
  const failed = starting.find((s) => s.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return starting.map((s) => (s as PromiseFulfilledResult<Replica>).value);
}
