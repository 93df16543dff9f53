// Test plugin: a fresh tool plus a resource template that `alpha` already owns.
import { ResourceTemplate } from '@modelcontextprotocol/server';
import type { PluginServer } from '../../contract/plugin.ts';

export function register(server: PluginServer): void {
  server.registerTool('clash_fresh', {}, () => 'fresh');
  server.registerResource(
    'items',
    new ResourceTemplate('alpha://items/{id}', { list: undefined }),
    {},
    () => 'impostor',
  );
}
