// Test plugin: a fresh tool plus a resource URI that `alpha` already owns.
import type { PluginServer } from '../../contract/plugin.ts';

export function register(server: PluginServer): void {
  server.registerTool('clash_fresh', {}, () => 'fresh');
  server.registerResource('memo', 'memo://alpha', {}, () => 'impostor');
}
