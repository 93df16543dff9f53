/**
 * The `ipybox` command: a framework server with the ipybox plugin, over stdio or Streamable
 * HTTP, until a signal or (stdio) the client closing our stdin. Kernels, tool servers and
 * upstream servers are closed on the way out.
 *
 * @module
 */
import {
  configureLogging,
  createLogger,
  createServer,
  createShutdown,
  joinCluster,
  type LogLevel,
  type Security,
} from '@mcpbox/framework';
import * as plugin from '../plugin.ts';
import type { WrittenSettings } from '../settings.ts';

export interface ServeIpyboxOptions {
  workspace: string;
  logLevel?: LogLevel;
  /** Streamable HTTP on this port; stdio when undefined. */
  httpPort?: number;
  host?: string;
  /** HTTP middleware and routes, e.g. OAuth from the CLI's flags. */
  httpOptions?: Security['httpOptions'];
  python?: string;
  approval?: WrittenSettings['approval'];
  approvalTimeout?: number;
  /** Kernel code may call privileged tools, each after an approval. */
  allowPrivilegedTools?: boolean;
  maxKernels?: number;
  kernelIdleTimeout?: number;
  sandbox?: boolean;
  sandboxConfig?: string;
  /** Kernels on this Jupyter Server / Kernel Gateway; token from the flag or the environment. */
  kernelGateway?: string;
  kernelGatewayToken?: string;
  /** `tool_server_url`: this machine as the kernels see it. */
  advertiseUrl?: string;
  toolServerBind?: string;
  maxOutputChars?: number;
  maxOutputCharsLimit?: number;
}

export async function serveIpybox(options: ServeIpyboxOptions): Promise<void> {
  configureLogging({ level: options.logLevel ?? 'info' });
  const log = createLogger('ipybox');
  // Cluster mode (`MCP_REDIS_URL`): replicas share the gate's state, the requestState key,
  // resource updates and (with kernel_gateway) the kernel directory. Redis down: a clear error.
  const redisUrl = process.env.MCP_REDIS_URL;
  const cluster = await joinCluster(
    redisUrl ? { redisUrl, name: 'mcpbox', fallback: 'none' } : undefined,
    { logger: log },
  );
  const server = createServer({
    name: 'ipybox',
    transport: options.httpPort === undefined ? 'stdio' : 'http',
    port: options.httpPort,
    host: options.host,
    requestStateKey: cluster?.requestStateKey,
    cluster: cluster?.link,
    ...options.httpOptions,
  });
  await cluster?.relay(server.catalog);
  const config: WrittenSettings = {
    workspace: options.workspace,
    python: options.python,
    approval: options.approval,
    approval_timeout: options.approvalTimeout,
    allow_privileged_tools: options.allowPrivilegedTools,
    max_kernels: options.maxKernels,
    kernel_idle_timeout: options.kernelIdleTimeout,
    sandbox: options.sandbox,
    sandbox_config: options.sandboxConfig,
    kernel_gateway:
      options.kernelGateway === undefined
        ? undefined
        : { url: options.kernelGateway, token: options.kernelGatewayToken },
    tool_server_url: options.advertiseUrl,
    tool_server_bind: options.toolServerBind,
    max_output_chars: options.maxOutputChars,
    max_output_chars_limit: options.maxOutputCharsLimit,
  };
  const loaded = await server.registry.loadPlugin('ipybox', {
    module: plugin,
    config: Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined)),
  });
  if (!loaded.ok) throw new Error(loaded.error ?? 'the ipybox plugin did not load');

  // A kernel ignoring signals gets longer than the default grace before the process exits.
  const shutdown = createShutdown(
    async () => {
      await server.close();
      await plugin.closeAll();
      await cluster?.close();
    },
    log,
    { graceMs: 5000 },
  );

  const url = await server.start();
  void server.closed.then(() => shutdown('server closed'));
  if (url) process.stderr.write(`ipybox MCP endpoint: ${url}\n`);
}
