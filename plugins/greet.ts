/**
 * greet — a plugin that reads its own settings.
 *
 * `register(server, config)` receives the plugin's settings: the keys of its `plugins:` entry in
 * the configuration file (mcp-proxy also reads `<plugin-dir>/greet/config.yaml`). Values there
 * may use `${VAR}` / `${VAR:-default}` placeholders, expanded from the environment.
 *
 * ```yaml
 * plugins:
 *   greet:
 *     greeting: Good morning   # default "Hello"
 * ```
 */
import type { PluginServer } from '@mcpbox/framework';
import { z } from 'zod';

export const description = 'Greets someone by name.';

export function register(server: PluginServer, config: Record<string, unknown>): void {
  // Settings are free-form: check them here and fail loudly, so a typo shows up at load time
  // as this plugin's load error rather than as odd output later.
  const greeting = config.greeting ?? 'Hello';
  if (typeof greeting !== 'string') {
    throw new Error(`plugins.greet.greeting must be a string, got ${JSON.stringify(greeting)}`);
  }

  server.registerTool(
    'greet',
    {
      title: 'Greet',
      description: `Says "${greeting}, <name>!".`,
      inputSchema: { name: z.string().min(1).describe('Who to greet') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ name }) => `${greeting}, ${name}!`,
  );
}
