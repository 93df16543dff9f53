// Test plugin: one of each kind (tool, resource, resource template, prompt).
import { ResourceTemplate } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { PluginServer } from '../../contract/plugin.ts';

export const description = 'alpha test plugin';

export function register(server: PluginServer): void {
  server.registerTool(
    'alpha_echo',
    { description: 'Echo a message', inputSchema: { message: z.string() } },
    async ({ message }) => `alpha: ${message}`,
  );
  server.registerResource(
    'alpha-memo',
    'memo://alpha',
    { mimeType: 'text/plain' },
    async (uri) => ({
      contents: [{ uri: uri.href, text: 'alpha memo' }],
    }),
  );
  server.registerResource(
    'alpha-item',
    new ResourceTemplate('alpha://items/{id}', { list: undefined }),
    {},
    async (_uri, variables) => `item ${variables.id}`,
  );
  server.registerPrompt(
    'alpha_prompt',
    { description: 'Say hi', argsSchema: { who: z.string() } },
    ({ who }) => `Say hi to ${who}`,
  );
}
