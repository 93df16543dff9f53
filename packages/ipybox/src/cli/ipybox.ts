/**
 * `ipybox`: the ipybox MCP server — Python in a stateful IPython kernel, MCP tools callable from
 * code. Over stdio by default (for clients that launch it), Streamable HTTP with `--http PORT`.
 * Under stdio, stdout carries only the protocol; every log line goes to stderr.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { beginStartupWork } from '../kernels/startupWork.ts';

const LEVELS = {
  debug: 'debug',
  info: 'info',
  warning: 'warning',
  error: 'error',
  critical: 'error',
} as const;

function logLevel(value: string): (typeof LEVELS)[keyof typeof LEVELS] {
  const level = LEVELS[value.toLowerCase() as keyof typeof LEVELS];
  if (!level) throw new InvalidArgumentError('use DEBUG, INFO, WARNING, ERROR or CRITICAL');
  return level;
}

function seconds(value: string): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError('must be a whole number of seconds');
  return n;
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw new InvalidArgumentError('must be a port number (0-65535)');
  }
  return n;
}

/** The version of `@mcpbox/ipybox`, for `--version`. */
function packageVersion(): string {
  const manifest = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

const program = new Command('ipybox')
  .description(
    'MCP server that runs Python in a stateful IPython kernel; code can call the tools of registered MCP servers.\n' +
      'stdio by default; Streamable HTTP at http://127.0.0.1:PORT/mcp with --http PORT.',
  )
  .version(packageVersion(), '-V, --version', 'print the version')
  .option('--workspace <dir>', 'workspace directory (created if missing)', '.')
  .addOption(
    new Option('--log-level <level>', 'DEBUG, INFO, WARNING, ERROR or CRITICAL')
      .default('info', 'INFO')
      .argParser(logLevel),
  )
  .option('--http <port>', 'serve Streamable HTTP on this port instead of stdio', port)
  .option('--host <host>', 'HTTP bind address (127.0.0.1: this machine only)', '127.0.0.1')
  .option(
    '--allow-unauthenticated',
    'HTTP: serve beyond loopback without OAuth (refused otherwise)',
  )
  .option('--oauth-server-url <url>', 'HTTP: OAuth introspection at <url>/introspect (RFC 7662)')
  .option('--oauth-public-url <url>', "HTTP: this server's public URL (OAuth resource metadata)")
  .option(
    '--oauth-required-scopes <scopes...>',
    'HTTP: scopes every token must carry (403 otherwise)',
  )
  .option(
    '--oauth-cache-ttl <seconds>',
    'HTTP: seconds a verified token stays cached (0: none)',
    seconds,
    28800,
  )
  .option('--python <path>', 'Python interpreter with ipykernel (default /usr/bin/python3)')
  .addOption(
    new Option(
      '--approval <mode>',
      'tool calls from code: auto, elicit (ask the user), deny or channel (approval clients decide)',
    )
      .choices(['auto', 'elicit', 'deny', 'channel'])
      .default('auto'),
  )
  .option('--approval-timeout <seconds>', 'seconds to wait for an approval decision', Number)
  .option(
    '--allow-privileged-tools',
    'let code call privileged tools (they run programs on the host), each after an approval',
  )
  .option('--max-kernels <n>', 'most kernels at once, of every caller (default 4)', Number)
  .option(
    '--kernel-idle-timeout <seconds>',
    "close a kernel idle this long (default 1800; not a stdio connection's own)",
    Number,
  )
  .option(
    '--kernel-gateway <url>',
    'run kernels on this Jupyter Server / Kernel Gateway (token: IPYBOX_KERNEL_GATEWAY_TOKEN)',
  )
  .option(
    '--kernel-gateway-token <token>',
    'its token (visible in ps: prefer the IPYBOX_KERNEL_GATEWAY_TOKEN variable)',
  )
  .option(
    '--advertise-url <url>',
    'http://HOST: this machine as the kernels see it (their tool calls come back there)',
  )
  .option('--tool-server-bind <host>', 'address the tool servers listen on (default: that HOST)')
  .option('--sandbox', 'run the kernel in a sandbox')
  .option('--sandbox-config <file>', 'sandbox settings (JSON)')
  .option('--max-output-chars <n>', 'default max_output_chars of a cell (5000)', Number)
  .option(
    '--max-output-chars-limit <n>',
    'most max_output_chars a call may ask for (200000); larger ones are lowered',
    Number,
  )
  .addHelpText(
    'after',
    '\nExamples:\n' +
      '  ipybox --workspace ~/work                 # stdio, for an MCP client that launches it\n' +
      '  ipybox --workspace ~/work --http 8000     # http://127.0.0.1:8000/mcp\n' +
      '  ipybox --http 8000 --host 0.0.0.0 --oauth-server-url https://auth.example.com \\\n' +
      '         --oauth-public-url https://ipybox.example.com/mcp   # other machines, with OAuth\n' +
      '  IPYBOX_KERNEL_GATEWAY_TOKEN=... ipybox --kernel-gateway http://kernels:8888 \\\n' +
      '         --advertise-url http://10.0.0.5   # kernels on a Jupyter server elsewhere',
  )
  .showHelpAfterError()
  .action(async (options) => {
    // The Python probe and the sweep run while the modules below load (kernels/startupWork.ts).
    beginStartupWork(options.python);
    // Imported here, so --help loads neither the server nor the framework.
    const { serveIpybox } = await import('./serve.ts');
    const { configureLogging } = await import('@mcpbox/framework');
    try {
      configureLogging({ level: options.logLevel });
      // Decided before anything starts: a refused bind leaves no kernel or port behind.
      const httpOptions =
        options.http === undefined
          ? undefined
          : (await import('./httpAuth.ts')).httpAuthentication({
              host: options.host,
              allowUnauthenticated: options.allowUnauthenticated,
              oauthServerUrl: options.oauthServerUrl,
              oauthPublicUrl: options.oauthPublicUrl,
              oauthCacheTtl: options.oauthCacheTtl,
              oauthRequiredScopes: options.oauthRequiredScopes,
            });
      await serveIpybox({
        workspace: options.workspace,
        logLevel: options.logLevel,
        httpPort: options.http,
        host: options.host,
        httpOptions,
        python: options.python,
        approval: options.approval,
        approvalTimeout: options.approvalTimeout,
        allowPrivilegedTools: options.allowPrivilegedTools === true || undefined,
        maxKernels: options.maxKernels,
        kernelIdleTimeout: options.kernelIdleTimeout,
        sandbox: options.sandbox === true,
        sandboxConfig: options.sandboxConfig,
        kernelGateway: options.kernelGateway,
        kernelGatewayToken: options.kernelGatewayToken,
        advertiseUrl: options.advertiseUrl,
        toolServerBind: options.toolServerBind,
        maxOutputChars: options.maxOutputChars,
        maxOutputCharsLimit: options.maxOutputCharsLimit,
      });
      // Under `npx ipybox`, a SIGTERM to npx must not leave us (and our kernels) running.
      (await import('./npmLauncher.ts')).endWithNpmLauncher();
    } catch (error) {
      process.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    }
  });

await program.parseAsync(process.argv);
