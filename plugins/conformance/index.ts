/**
 * conformance — the server fixture the official MCP conformance suite
 * (`@modelcontextprotocol/conformance`) tests against, written as an ordinary plugin.
 *
 * Every scenario of the suite names the tools, resources and prompts it calls (`test_*`,
 * `test://…`); this plugin provides them with the plugin API alone, so a passing run shows the
 * framework exposes everything the protocol needs, in both protocol eras (2025-11-25 sessions and
 * stateless 2026-07-28 requests): content types, logging, progress, sampling, elicitation and
 * roots (server→client requests for 2025, `input_required` rounds for 2026), completions,
 * templates, subscriptions, list changes, raw JSON Schema passed through, the Tasks
 * extension's fixtures (`greet`, `slow_compute`, … in tasks.ts), and a skill for the Skills
 * extension's scenarios (`skills/conformance-skill/`, served because it is in the plugin's
 * `skills/` folder).
 *
 * Try it: `mcp-factory --http 8000 -p conformance`, then
 * `npx -p node@22 -p @modelcontextprotocol/conformance@0.2.0-alpha.12 conformance server --url http://127.0.0.1:8000/mcp --requirements 2026-07-28`
 * (or `--requirements 2025-11-25`; `node scripts/conformance.mjs` runs both against mcp-factory
 * and mcp-proxy).
 */
import type { PluginServer } from '@mcpbox/framework';
import { registerInputRequired } from './inputRequired.ts';
import { registerPrompts } from './prompts.ts';
import { registerResources } from './resources.ts';
import { registerStatelessDiagnostics } from './stateless.ts';
import { registerTasks } from './tasks.ts';
import { registerTools } from './tools.ts';

export const description =
  'The MCP conformance suite fixture: test_* tools, resources and prompts.';

export function register(server: PluginServer): void {
  registerTools(server);
  registerResources(server);
  registerPrompts(server);
  registerInputRequired(server);
  registerStatelessDiagnostics(server);
  registerTasks(server);
}
