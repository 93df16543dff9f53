// A tiny stdio MCP server for tests: the fixture plugins' `kitchen` plus a built-in tool.
// Run as: node --import tsx stdioServer.ts
import { createLogger } from '../logging/index.ts';
import { createServer } from '../server.ts';
import { FIXTURE_PLUGINS } from './testServer.ts';

const server = createServer({
  name: 'stdio-fixture',
  transport: 'stdio',
  pluginDirs: [FIXTURE_PLUGINS],
});
const loaded = await server.registry.loadPlugin('kitchen');
if (!loaded.ok) throw new Error(loaded.error);
server.registerTool('pid', { description: 'The server process id' }, () => String(process.pid));
await server.start();
await server.closed;
createLogger('stdio-fixture').info('client gone, exiting');
