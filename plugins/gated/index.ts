/**
 * gated — a tool behind the TOTP gate, the pattern for any plugin with dangerous tools.
 *
 * The plugin creates a gate from the `gate:` mapping of its own settings, registers
 * `gate_unlock` / `gate_lock` / `gate_status`, and wraps its sensitive handler with
 * `gate.protect(group, handler)`. Until a session unlocks the group with the current code from an
 * authenticator app, the tool answers with an error saying how to unlock.
 *
 * ```yaml
 * plugins:
 *   gated:
 *     gate:
 *       secret_backend: env          # env | file | vaultwarden
 *       groups:
 *         secrets:
 *           timeout: 600             # re-lock after 10 minutes without a protected call
 *           secret_ref: MCP_GATE_SECRET_SECRETS
 * ```
 *
 * Generate a secret with `node -e "import('otpauth').then(o => console.log(new o.Secret().base32))"`
 * and add it to an authenticator app.
 *
 * Without settings the group `secrets` reads its secret from `MCP_GATE_SECRET_SECRETS`.
 * (A server-wide `gate:` with `tools: [gated_secret_action]` protects the tool without this
 * plugin's help; then leave the plugin's own `gate:` out, or the gate tools would collide.)
 */
import { createGate, type PluginConfig, type PluginServer } from '@mcpbox/framework';
import { z } from 'zod';

export const description = 'A TOTP-protected tool (gated_secret_action) and the gate tools.';

const DEFAULT_GATE = {
  groups: { secrets: { timeout: 600, secret_ref: 'MCP_GATE_SECRET_SECRETS' } },
};

export function register(server: PluginServer, config: PluginConfig): void {
  const gate = createGate(config.gate ?? DEFAULT_GATE, { logger: server.logger });
  gate.registerTools(server);
  const group = gate.groupNames[0] ?? 'secrets';

  server.registerTool(
    'gated_secret_action',
    {
      title: 'Secret action (gated)',
      description: `A sensitive action: runs only while the '${group}' group is unlocked (gate_unlock).`,
      inputSchema: { what: z.string().describe('What to do') },
      annotations: { destructiveHint: true, openWorldHint: false },
    },
    gate.protect(group, async ({ what }: { what: string }) => `Done: ${what}`),
  );
}
