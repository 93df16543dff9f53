/**
 * An in-process proxy for tests: the real server, registry, plugin manager and management tools,
 * with an SDK client connected over an in-memory transport.
 */
import { createServer, loadConfig, type McpboxServer, type WrittenConfig } from '@mcpbox/framework';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { testdir, versionPlugin } from '../proxy/__fixtures__/testdir.ts';
import { CommandRegistry } from '../proxy/commands.ts';
import { InnerClient } from '../proxy/innerClient.ts';
import { PluginManager } from '../proxy/manager.ts';
import { MANAGEMENT_PLUGIN, managementTools } from '../tools/managementTools.ts';

/** The repository's own plugins (echo, greet, ...). */
export const REPO_PLUGINS = new URL('../../../../plugins', import.meta.url).pathname;

export interface InProcessProxy {
  server: McpboxServer;
  manager: PluginManager;
  client: Client;
  /** Calls a tool and returns its first text block (and whether it was an error). */
  call(tool: string, args?: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  close(): Promise<void>;
}

export async function inProcessProxy(
  written: WrittenConfig,
  env: Record<string, string | undefined> = {},
): Promise<InProcessProxy> {
  const config = loadConfig({ env, defaults: written });
  const commands = new CommandRegistry();
  const server = createServer(config, { proxy: commands.slot });
  server.registry.pluginDirs.push(...config.plugin_dirs);
  const manager = new PluginManager({ registry: server.registry, config, commands, env });
  const inner = new InnerClient(server);
  await manager.loadInternal(
    MANAGEMENT_PLUGIN,
    managementTools({
      manager,
      inner,
      dynamicDispatch: config.dynamic_dispatch,
      status: () => ({ server: config.server_name, transport: config.transport }),
    }),
  );
  for (const name of config.autoload) {
    const result = await manager.load(name);
    if (!result.ok) throw new Error(result.error);
  }
  manager.markStartupDone();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    server,
    manager,
    client,
    async call(tool, args = {}) {
      const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
      const first = result.content[0];
      return { text: first?.type === 'text' ? first.text : '', isError: result.isError === true };
    },
    async close() {
      await client.close();
      await inner.close();
      await server.close();
      await manager.closeAll();
    },
  };
}

/**
 * A proxy with `dynamic_dispatch: true`, `autoload` from the repository's plugins, and a
 * `counter` plugin (tool `version`) ready to load: loaded after start-up, its tool is dynamic.
 * Closed after the test.
 */
export async function dynamicDispatchProxy(
  t: { after(fn: () => unknown): void },
  autoload: string[],
): Promise<InProcessProxy> {
  const dir = testdir({ 'counter.ts': versionPlugin('v1') }, t);
  const proxy = await inProcessProxy({
    plugin_dirs: [dir, REPO_PLUGINS],
    autoload,
    dynamic_dispatch: true,
  });
  t.after(() => proxy.close());
  return proxy;
}
