/**
 * The ready-to-paste `mcpServers` snippets printed when mcp-factory starts: one for the HTTP
 * endpoint it just opened, one that launches the same server over stdio.
 *
 * @module
 */

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

export function stdioClientConfig(name: string, command: string, args: readonly string[]): string {
  return JSON.stringify({ mcpServers: { [clientKey(name)]: { command, args } } }, null, 2);
}
