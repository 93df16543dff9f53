/**
 * Runs the example cluster on loopback until Ctrl-C: Redis, a Jupyter server, three
 * `mcp-proxy -a ipybox` replicas sharing state through Redis with kernels on the Jupyter server,
 * and HAProxy in front. Prints the URL to give MCP clients.
 *
 *   examples/cluster/run.sh                 # ports of haproxy.cfg's comment (clients: 8000)
 *   examples/cluster/run.sh --free-ports    # any free ports (what the test does)
 *
 * Needs Debian's redis-server, haproxy and python3-jupyter-server (npm test installs them).
 *
 * @module
 */
import { DEFAULT_PORTS, freePorts, startCluster } from './cluster.ts';

const say = (line: string) => process.stderr.write(`${line}\n`);
const ports = process.argv.includes('--free-ports') ? await freePorts() : DEFAULT_PORTS;

say('starting Redis, a Jupyter server, three replicas and HAProxy …');
let cluster: Awaited<ReturnType<typeof startCluster>>;
try {
  cluster = await startCluster({ ports, log: say });
} catch (error) {
  say(`the cluster did not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
say(`HAProxy stats:  ${cluster.statsUrl}`);
say('');
say(`MCP endpoint:   ${cluster.url}`);
say('Ctrl-C stops everything.');

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  say(`stopping (${signal}) …`);
  await cluster.stop();
  say('stopped');
  process.exit(0);
};
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
