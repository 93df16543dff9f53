import { homedir } from 'node:os';
import { basename, isAbsolute, resolve } from 'node:path';
import { findProgram } from '@mcpbox/framework';
import { fail } from '../exit.ts';
import { clientKey } from '../factory/clientConfig.ts';
import {
  type ClientName,
  claudeMcpAddCommand,
  defaultConfigPath,
  FORMATS,
  type ServerSpec,
} from './clients.ts';
import { mergeServerEntry } from './mergeConfig.ts';

export interface InstallOptions {
  client: ClientName;
  /** The entry's name; derived from the server when not given. */
  name?: string;
  /** The server: one URL, or a command line. */
  server: string[];
  /** `--config FILE`: the file to write instead of the client's default. */
  configFile?: string;
  /** `--print`: print the entry, write nothing. */
  print?: boolean;
  /** `--env KEY=VALUE` pairs for a stdio server. */
  env?: string[];
}

/** Programs that run the server named by their first plain argument (`npx pkg`, `node x.js`). */
const LAUNCHERS = new Set([
  'node',
  'npx',
  'bun',
  'bunx',
  'deno',
  'uv',
  'uvx',
  'python',
  'python3',
  'pnpm',
  'pnpx',
  'yarn',
]);

/** `-p`-free name a person would recognise: the server's program, or the package a launcher runs. */
export function defaultName(server: ServerSpec): string {
  if (server.kind === 'http') {
    const url = new URL(server.url);
    return clientKey(`${url.hostname}-${url.port || url.protocol.replace(':', '')}`);
  }
  let program = basename(server.command);
  if (LAUNCHERS.has(program.replace(/\.exe$/, ''))) {
    const target = server.args.find((a) => !a.startsWith('-') && a !== 'run' && a !== 'exec');
    if (target) program = basename(target.replace(/@[^/@]*$/, ''));
  }
  return clientKey(program.replace(/\.(m?[jt]s|cjs|py|exe)$/, ''));
}

function serverSpec(operands: string[], envPairs: string[]): ServerSpec {
  const [first, ...rest] = operands;
  if (first === undefined) {
    throw fail(
      'give the server: mcp-proxy install CLIENT [NAME] -- COMMAND [ARGS…], or a URL for an HTTP server',
    );
  }
  if (rest.length === 0 && /^https?:\/\//i.test(first)) {
    try {
      new URL(first);
    } catch {
      throw fail(`not a valid URL: ${first}`);
    }
    if (envPairs.length > 0) throw fail('--env is for servers started over stdio, not a URL');
    return { kind: 'http', url: first };
  }
  const env: Record<string, string> = {};
  for (const pair of envPairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw fail(`--env takes KEY=VALUE, got "${pair}"`);
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return { kind: 'stdio', command: first, args: rest, env };
}

/**
 * A user-level file gets the command's full path: Claude Desktop and Cursor start servers
 * without the user's shell PATH (on macOS, from the Dock). A project file keeps what was typed,
 * so it works for everyone who checks the project out.
 */
function forFile(server: ServerSpec, userLevel: boolean): ServerSpec {
  if (server.kind !== 'stdio' || !userLevel) return server;
  const { command } = server;
  if (isAbsolute(command)) return server;
  const full = command.includes('/') ? resolve(command) : findProgram(command, process.env.PATH);
  if (!full) {
    process.stderr.write(
      `Warning: ${command} is not on PATH here; the client may not find it either. Give its full path if it does not start.\n`,
    );
    return server;
  }
  return { ...server, command: full };
}

export function install(options: InstallOptions): void {
  const format = FORMATS[options.client];
  const server = forFile(serverSpec(options.server, options.env ?? []), format.userLevel);
  const name = options.name ?? defaultName(server);
  if (name.trim() === '') throw fail('the server name must not be empty');
  const entry = format.entry(server);
  if (typeof entry === 'string') throw fail(entry);
  const snippet = JSON.stringify({ [format.key]: { [name]: entry } }, null, 2);

  if (options.print) {
    process.stdout.write(`${snippet}\n`);
    if (options.client === 'claude-code') {
      process.stderr.write(`Or let Claude Code add it: ${claudeMcpAddCommand(name, server)}\n`);
    }
    return;
  }
  const path =
    options.configFile !== undefined
      ? resolve(options.configFile)
      : defaultConfigPath(options.client, {
          home: homedir(),
          cwd: process.cwd(),
          platform: process.platform,
          env: process.env,
        });
  const merged = mergeServerEntry(path, format.key, name, entry, snippet);
  const verb = merged.replaced ? 'Replaced' : 'Added';
  const backup = merged.backup ? ` (the previous file is in ${merged.backup})` : '';
  process.stderr.write(
    `${verb} the server "${name}" in ${merged.file}${backup}.\n` +
      `Restart ${format.title} (or reload its MCP servers) to use it.\n`,
  );
}
