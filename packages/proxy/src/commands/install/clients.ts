/**
 * The MCP clients `mcp-proxy install` writes for: where each keeps its configuration and what an
 * entry looks like there. Formats as each client documents them:
 *
 * - Claude Desktop: `claude_desktop_config.json`, `mcpServers.NAME = {command, args, env}`;
 *   stdio only (remote servers are added in its Settings → Connectors).
 * - Claude Code: `.mcp.json` at the project root (project scope), `mcpServers.NAME =
 *   {type: "stdio", command, args, env}` or `{type: "http", url}`.
 * - VS Code: `.vscode/mcp.json` in the workspace, `servers.NAME = {type: "stdio", command, args,
 *   env}` or `{type: "http", url}`.
 * - Cursor: `~/.cursor/mcp.json` (all projects), `mcpServers.NAME = {command, args, env}` or
 *   `{url}`.
 *
 * @module
 */
import { join } from 'node:path';

export const CLIENTS = ['claude-desktop', 'claude-code', 'vscode', 'cursor'] as const;
export type ClientName = (typeof CLIENTS)[number];

/** The server an entry starts (stdio) or reaches (HTTP). */
export type ServerSpec =
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string> }
  | { kind: 'http'; url: string };

export interface ClientFormat {
  /** How people call it, for messages. */
  title: string;
  /** The top-level key that holds the servers. */
  key: 'mcpServers' | 'servers';
  /**
   * A file of the user's (not a project's, shared with a team): a bare command is written with
   * its full path there, because such clients may not start servers with the user's shell PATH.
   */
  userLevel: boolean;
  /** The entry for a server; a string is why this client cannot take it. */
  entry(server: ServerSpec): Record<string, unknown> | string;
}

function stdioEntry(
  server: Extract<ServerSpec, { kind: 'stdio' }>,
  type?: 'stdio',
): Record<string, unknown> {
  return {
    ...(type ? { type } : {}),
    command: server.command,
    args: server.args,
    ...(Object.keys(server.env).length > 0 ? { env: server.env } : {}),
  };
}

export const FORMATS: Record<ClientName, ClientFormat> = {
  'claude-desktop': {
    title: 'Claude Desktop',
    key: 'mcpServers',
    userLevel: true,
    entry: (server) =>
      server.kind === 'stdio'
        ? stdioEntry(server)
        : 'Claude Desktop starts only stdio servers from its configuration file: add a remote ' +
          'server in Settings → Connectors, or give a command that bridges to it after --',
  },
  'claude-code': {
    title: 'Claude Code',
    key: 'mcpServers',
    userLevel: false,
    entry: (server) =>
      server.kind === 'stdio' ? stdioEntry(server, 'stdio') : { type: 'http', url: server.url },
  },
  vscode: {
    title: 'VS Code',
    key: 'servers',
    userLevel: false,
    entry: (server) =>
      server.kind === 'stdio' ? stdioEntry(server, 'stdio') : { type: 'http', url: server.url },
  },
  cursor: {
    title: 'Cursor',
    key: 'mcpServers',
    userLevel: true,
    entry: (server) => (server.kind === 'stdio' ? stdioEntry(server) : { url: server.url }),
  },
};

export interface Place {
  home: string;
  cwd: string;
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
}

/** Where the client reads its configuration when `--config` does not say. */
export function defaultConfigPath(client: ClientName, place: Place): string {
  switch (client) {
    case 'claude-desktop':
      if (place.platform === 'darwin') {
        return join(
          place.home,
          'Library',
          'Application Support',
          'Claude',
          'claude_desktop_config.json',
        );
      }
      if (place.platform === 'win32') {
        const appData = place.env.APPDATA ?? join(place.home, 'AppData', 'Roaming');
        return join(appData, 'Claude', 'claude_desktop_config.json');
      }
      return join(
        place.env.XDG_CONFIG_HOME || join(place.home, '.config'),
        'Claude',
        'claude_desktop_config.json',
      );
    case 'claude-code':
      return join(place.cwd, '.mcp.json');
    case 'vscode':
      return join(place.cwd, '.vscode', 'mcp.json');
    case 'cursor':
      return join(place.home, '.cursor', 'mcp.json');
  }
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** The `claude mcp add` command that adds the same entry to the project (`.mcp.json`). */
export function claudeMcpAddCommand(name: string, server: ServerSpec): string {
  if (server.kind === 'http') {
    return ['claude', 'mcp', 'add', '--scope', 'project', '--transport', 'http', name, server.url]
      .map(shellQuote)
      .join(' ');
  }
  const env = Object.entries(server.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  return [
    'claude',
    'mcp',
    'add',
    '--scope',
    'project',
    ...env,
    name,
    '--',
    server.command,
    ...server.args,
  ]
    .map(shellQuote)
    .join(' ');
}
