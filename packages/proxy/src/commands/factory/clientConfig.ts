/**
 * The ready-to-paste `mcpServers` snippets printed when mcp-factory starts: one for the HTTP
 * endpoint it just opened, one that launches the same server over stdio.
 *
 * @module
 */
import { binMode } from '@mcpbox/framework/launch';

/** A key for `mcpServers`: the server name, lower-case, with anything odd turned into `-`. */
export function clientKey(serverName: string): string {
  return (
    serverName
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'mcp'
  );
}

export function httpClientConfig(name: string, mcpUrl: string): string {
  return JSON.stringify({ mcpServers: { [clientKey(name)]: { url: mcpUrl } } }, null, 2);
}

/**
 * Launches the code this process runs: the built bin, or the sources again when a developer
 * asked for them (MCPBOX_BIN=source), which a client's environment would not.
 */
export function stdioClientConfig(name: string, command: string, args: readonly string[]): string {
  const env = binMode() === 'source' ? { env: { MCPBOX_BIN: 'source' } } : {};
  return JSON.stringify({ mcpServers: { [clientKey(name)]: { command, args, ...env } } }, null, 2);
}
