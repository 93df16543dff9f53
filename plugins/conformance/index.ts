/**
 * conformance — the server fixture the official MCP conformance suite
 * (`@modelcontextprotocol/conformance`) tests against, written as an ordinary plugin.
 *
 * Every scenario of the suite names the tools, resources and prompts it calls (`test_*`,
 * `test://…`); this plugin provides them with the plugin API alone, so a passing run shows the
 * framework exposes everything the protocol needs: content types, logging, progress, sampling,
 * elicitation, completions, templates, subscriptions and raw JSON Schema passed through.
 *
 * Try it: `mcp-factory --http 8000 -p conformance`, then
 * `npx -p node@22 -p @modelcontextprotocol/conformance@0.1.16 conformance server --url http://127.0.0.1:8000/mcp`
 * (or `scripts/conformance.sh`, which does both for mcp-factory and mcp-proxy).
 */
import type { PluginServer } from '@mcpbox/framework';
import { registerPrompts } from './prompts.ts';
import { registerResources } from './resources.ts';
import { registerTools } from './tools.ts';

export const description =
  'The MCP conformance suite fixture: test_* tools, resources and prompts.';

export function register(server: PluginServer): void {
  registerTools(server);
  registerResources(server);
  registerPrompts(server);
}
