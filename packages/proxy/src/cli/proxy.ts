/**
 * `mcp-proxy`: a long-running MCP server whose plugins are loaded, unloaded and reloaded while
 * clients stay connected, plus the client commands that manage a running proxy.
 *
 * This file only declares commands and flags; the work is in `commands/proxy/*.ts`, imported
 * lazily so `mcp-proxy --help` and the client commands never load the server or any plugin.
 *
 * @module
 */
import { Argument, Command, Option } from 'commander';
import { runCommand } from '../commands/exit.ts';
import { CLIENTS, type ClientName } from '../commands/install/clients.ts';
import type { RemoteAction } from '../commands/proxy/remote.ts';
import { OPERATIONS, type OperationSpec } from '../operations/table.ts';
import { codeMode, collect, packageVersion, portNumber } from './options.ts';

const program = new Command('mcp-proxy')
  .description(
    'An MCP server whose plugins are loaded, unloaded and reloaded at run time, and the ' +
      'commands that manage a running proxy through its management API.',
  )
  .version(packageVersion(), '-V, --version', 'print the version')
  .showHelpAfterError();

const TOKEN_HELP =
  '\nManagement token: --mgmt-token is visible to every user in `ps`; prefer\n' +
  '--mgmt-token-file PATH (a file only you can read) or MCP_MGMT_TOKEN in the environment.';

const serve = program
  .command('serve', { isDefault: true })
  .description('run the proxy (the default command)')
  .option(
    '-a, --autoload <names...>',
    'plugins to load at start-up (replaces the config autoload list)',
  )
  .option('-c, --config <file>', 'YAML configuration file')
  .option(
    '--http <port>',
    'serve Streamable HTTP at http://127.0.0.1:<port>/mcp (default: stdio)',
    portNumber,
  )
  .option('--host <address>', 'HTTP bind address (default 127.0.0.1: this machine only)')
  .option(
    '--allow-unauthenticated',
    'serve HTTP beyond loopback without authentication (refused otherwise)',
  )
  .option('--health-port <port>', 'health server port (default: HTTP port + 1)', portNumber)
  .option('--health-host <address>', 'health server bind address (default 127.0.0.1)')
  .option('--mgmt-port <port>', 'management API port on 127.0.0.1 (default 12299)', portNumber)
  .option('--mgmt-token <token>', 'bearer token required by the management API (see below)')
  .option('--mgmt-token-file <path>', 'read the management token from this file')
  .option('--no-console', 'no web console on the management port (config: management_console)')
  .option('-d, --plugin-dir <dir>', 'extra plugin directory (repeatable)', collect)
  .option('--watch', 'reload a plugin when its files change')
  .option(
    '--view <name>',
    'over stdio: serve this view of the config (views:) instead of every tool; over HTTP each view is at /mcp/<name>',
  )
  .option(
    '--code-mode [mode]',
    'code mode: list search_tools/execute_code instead of every tool (on), beside them (both), or off',
    codeMode,
  )
  .option('--log-level <level>', 'debug, info, warning or error')
  // Operands are not serve's: without this, `mcp-proxy frobnicate` said "too many arguments for
  // 'serve'" (commander hands unknown commands to the default one). The action says what it is.
  .allowExcessArguments(true)
  .addHelpText(
    'after',
    '\nExamples:\n' +
      '  mcp-proxy -a echo                          # stdio, management API on 127.0.0.1:12299\n' +
      '  mcp-proxy --http 8000 -a echo greet --watch\n' +
      '  mcp-proxy serve -c proxy.yaml --mgmt-token-file ~/.config/mcp-proxy/token\n' +
      TOKEN_HELP +
      '\nPrecedence: --mgmt-token or --mgmt-token-file > management_token in the config >\n' +
      'MCP_MGMT_TOKEN. An empty --mgmt-token is an error, not "no authentication".',
  )
  .action(async (options) => {
    const [unexpected] = serve.args;
    if (unexpected !== undefined) {
      if (program.args[0] === 'serve')
        serve.error(`error: serve takes no arguments: '${unexpected}'`);
      program.error(`error: unknown command '${unexpected}'`);
    }
    await runCommand(async () => {
      const { serveProxy } = await import('../commands/proxy/serve.ts');
      await serveProxy({
        autoload: options.autoload,
        configFile: options.config,
        httpPort: options.http,
        host: options.host,
        allowUnauthenticated: options.allowUnauthenticated,
        healthPort: options.healthPort,
        healthHost: options.healthHost,
        mgmtPort: options.mgmtPort,
        mgmtToken: options.mgmtToken,
        mgmtTokenFile: options.mgmtTokenFile,
        // commander sets `console: true` unless --no-console was given: only the flag overrides.
        console: options.console === false ? false : undefined,
        pluginDirs: options.pluginDir,
        watch: options.watch,
        view: options.view,
        codeMode: options.codeMode === true ? 'on' : options.codeMode,
        logLevel: options.logLevel,
      });
    });
  });

/**
 * A client command: `--mgmt-port`, `--mgmt-token` (alias `--token`, the name it had before) or
 * `--mgmt-token-file` (else MCP_MGMT_TOKEN), and `--json`.
 */
function remote(parent: Command, name: string, description: string) {
  return parent
    .command(name)
    .description(description)
    .option('--mgmt-port <port>', 'management API port (default 12299)', portNumber)
    .option('--mgmt-token <token>', 'management API token (alias --token; see below)')
    .addOption(new Option('--token <token>').hideHelp())
    .option('--mgmt-token-file <path>', 'read the management API token from this file')
    .option('--json', 'print the JSON answer')
    .addHelpText('after', TOKEN_HELP);
}

async function runRemoteAction(
  action: RemoteAction,
  options: {
    mgmtPort?: number;
    mgmtToken?: string;
    token?: string;
    mgmtTokenFile?: string;
    json?: boolean;
  },
) {
  if (options.mgmtToken !== undefined && options.token !== undefined) {
    program.error('error: --token is another name for --mgmt-token; give one of them');
  }
  await runCommand(async () => {
    const [{ runRemote }, { mgmtTokenFromFlags }] = await Promise.all([
      import('../commands/proxy/remote.ts'),
      import('../commands/proxy/mgmtToken.ts'),
    ]);
    const token = mgmtTokenFromFlags({
      mgmtToken: options.mgmtToken ?? options.token,
      mgmtTokenFile: options.mgmtTokenFile,
    });
    await runRemote(action, { mgmtPort: options.mgmtPort, token, json: options.json });
  });
}

// One client command per operation of the table. Help lists those that only read (GET) before
// those that change something, each group in the table's order.
const readsOnly = (operation: OperationSpec) => operation.rest.every((r) => r.method === 'GET');
const clientCommands: OperationSpec[] = [...OPERATIONS].sort(
  (a, b) => Number(readsOnly(b)) - Number(readsOnly(a)),
);
// A grouped operation is a subcommand: `mcp-proxy pins diff`.
const groups = new Map<string, Command>();
const parentOf = ({ group }: OperationSpec['cli']) => {
  if (group === undefined) return program;
  let parent = groups.get(group.name);
  if (parent === undefined) {
    parent = program.command(group.name).description(group.description);
    groups.set(group.name, parent);
  }
  return parent;
};
for (const operation of clientCommands) {
  const { cli } = operation;
  const command = remote(parentOf(cli), cli.command, cli.description);
  for (const [flags, description] of operation.cli.options ?? [])
    command.option(flags, description);
  // Commander hands over the operands, then the flags, then the command itself.
  command.action((...params: unknown[]) =>
    runRemoteAction(
      {
        operation: operation.name,
        operands: params.slice(0, -2) as Array<string | undefined>,
        flags: params.at(-2) as Record<string, unknown>,
      },
      params.at(-2) as Parameters<typeof runRemoteAction>[1],
    ),
  );
}

program
  .command('new-plugin <name> [dir]')
  .description('create a plugin skeleton in DIR/NAME (default directory: plugins)')
  .action(async (name: string, dir: string | undefined) => {
    await runCommand(async () => {
      const { newPlugin, describeNewPlugin } = await import('../commands/newPlugin.ts');
      const result = await newPlugin(name, dir);
      process.stdout.write(`${describeNewPlugin(name, result)}\n`);
    });
  });

program
  .command('api-key')
  .description('API keys for service accounts (the api_keys configuration)')
  .command('new <name>')
  .description('make a key for the service account NAME: prints the key once, and its config lines')
  .option('-g, --group <group>', 'a group the key belongs to (repeatable)', collect)
  .option('-s, --scope <scope>', 'a scope the key holds (repeatable)', collect)
  .action(async (name: string, options: { group?: string[]; scope?: string[] }) => {
    await runCommand(async () => {
      const { newApiKeyCommand } = await import('../commands/apiKey.ts');
      const text = newApiKeyCommand(name, { groups: options.group, scopes: options.scope });
      process.stdout.write(`${text}\n`);
    });
  });

program
  .command('audit')
  .description('the audit trail (config: audit_log)')
  .command('verify <file>')
  .description(
    "check an audit log's hash chain: intact, or the line where a record was changed, removed, reordered or cut off (exit 1)",
  )
  .action(async (file: string) => {
    await runCommand(async () => {
      const { auditVerify } = await import('../commands/auditVerify.ts');
      await auditVerify(file);
    });
  });

program
  .command('openapi')
  .description('HTTP APIs with an OpenAPI document as tools (plugins: NAME: {openapi: …})')
  .command('inspect <spec>')
  .description('list the tools a document (file or URL) would give, and what it leaves out and why')
  .option(
    '--include <glob>',
    'only these operationIds / tool names, or tag:NAME (repeatable)',
    collect,
  )
  .option('--exclude <glob>', 'leave these out (repeatable)', collect)
  .action(async (spec: string, options: { include?: string[]; exclude?: string[] }) => {
    await runCommand(async () => {
      const { openapiInspect } = await import('../commands/openapiInspect.ts');
      await openapiInspect(spec, options);
    });
  });

const installCommand = program
  .command('install')
  .description(
    "add a server to an MCP client's configuration (merged into the file, the old one kept as FILE.bak)",
  )
  .usage('CLIENT [NAME] [options] -- COMMAND [ARGS...] | URL')
  .addArgument(new Argument('<client>', 'the MCP client').choices(CLIENTS))
  .argument('[name-and-server...]', 'the entry name (optional), then the server after --, or a URL')
  .option('--config <file>', "write this file instead of the client's default one")
  .option('--print', 'print the entry instead of writing it')
  .option(
    '-e, --env <key=value>',
    'an environment variable for a stdio server (repeatable)',
    collect,
  )
  .addHelpText(
    'after',
    '\nDefault files: claude-desktop ~/.config/Claude/claude_desktop_config.json (Linux) or\n' +
      '~/Library/Application Support/Claude/claude_desktop_config.json (macOS); claude-code\n' +
      './.mcp.json; vscode ./.vscode/mcp.json; cursor ~/.cursor/mcp.json.\n' +
      '\nExamples:\n' +
      '  mcp-proxy install claude-desktop echo -- mcp-factory -p echo\n' +
      '  mcp-proxy install vscode mcpbox http://127.0.0.1:8000/mcp\n' +
      '  mcp-proxy install claude-code --print -- mcp-proxy serve -c proxy.yaml',
  )
  .action(
    async (
      client: ClientName,
      operands: string[],
      options: { config?: string; print?: boolean; env?: string[] },
    ) => {
      // Commander hands over the words before and after `--` as one list; the server is what
      // followed `--` (or a lone URL), the name what came before it.
      const dashes = process.argv.indexOf('--');
      const afterDashes = dashes >= 0 ? process.argv.length - dashes - 1 : 0;
      let before = operands.slice(0, operands.length - afterDashes);
      let server = operands.slice(operands.length - afterDashes);
      if (dashes < 0 && before.length > 0 && /^https?:\/\//i.test(before.at(-1) ?? '')) {
        server = before.slice(-1);
        before = before.slice(0, -1);
      }
      if (before.length > 1) {
        installCommand.error(
          `error: install takes one name before the server, got ${before.join(' ')} (put the server command after --)`,
        );
      }
      await runCommand(async () => {
        const { install } = await import('../commands/install/install.ts');
        install({
          client,
          name: before[0],
          server,
          configFile: options.config,
          print: options.print,
          env: options.env,
        });
      });
    },
  );

await program.parseAsync(process.argv);
