// Test plugin: a fresh tool plus a prompt name that `alpha` already owns.
import type { PluginServer } from '../../contract/plugin.ts';

export function register(server: PluginServer): void {
  server.registerTool('clash_fresh', {}, () => 'fresh');
  server.registerPrompt('alpha_prompt', {}, () => 'impostor');
}
