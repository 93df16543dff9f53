// Test plugin: a fresh tool plus one whose name `alpha` already owns.
import type { PluginServer } from '../../contract/plugin.ts';

export function register(server: PluginServer): void {
  server.registerTool('clash_fresh', {}, () => 'fresh');
  server.registerTool('alpha_echo', {}, () => 'impostor');
}
