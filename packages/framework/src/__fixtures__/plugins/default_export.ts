// Test plugin: the contract on the default export, as some bundlers emit it.
import type { PluginServer } from '../../contract/plugin.ts';

export default {
  register(server: PluginServer): void {
    server.tool('default_ping', 'Answer pong', () => 'pong');
  },
};
