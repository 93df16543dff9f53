// Test plugin: registers a tool, then fails, so nothing may reach the catalog.
import type { PluginServer } from '../../contract/plugin.ts';

export function register(server: PluginServer): void {
  server.registerTool('thrower_tool', {}, () => 'should never be callable');
  throw new Error('database unreachable');
}
