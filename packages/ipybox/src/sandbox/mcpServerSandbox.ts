/**
 * Optional sandboxing of a stdio MCP server the tool server starts: its command line is rewritten
 * to run under sandbox-runtime's `srt` CLI with its own settings (same format as the kernel's
 * `--sandbox-config`). Each server gets its own `srt` process, hence its own network filter, so
 * servers with different allow lists can run side by side.
 *
 * Policy: what the settings say, on the sandbox-runtime defaults (no network, no writes) — an MCP
 * server that must write or reach a host needs `allowWrite` / `allowedDomains` for it — and never
 * a write to the host's compile cache, even inside an `allowWrite` (`withHostCodeDenied`).
 *
 * `srt` runs under `setpriv --pdeathsig KILL`: it is a Node process that does not notice its
 * parent dying, and without it a SIGKILLed host would leave it (and the server) behind.
 *
 * @module
 */
import { rmSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { StdioUpstreamParams } from '@mcpbox/framework';
import { findProgram } from '@mcpbox/framework';
import { checkSandboxHost } from './preflight.ts';
import {
  loadSandboxConfig,
  type SandboxSettings,
  validateSandboxSettings,
  withHostCodeDenied,
  withRequiredLists,
} from './sandboxConfig.ts';
import { shellQuote } from './sandboxRuntime.ts';
import { SOCAT_WITH_PARENT } from './socatWithParent.ts';

const SRT_CLI = join(
  dirname(createRequire(import.meta.url).resolve('@anthropic-ai/sandbox-runtime')),
  'cli.js',
);

const settingsDirs = new Set<string>();
let exitHookInstalled = false;

/** Settings files live as long as this process may (re)start the server. */
async function writeSettingsFile(settings: SandboxSettings): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mcpbox-srt-'));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const path of settingsDirs) rmSync(path, { recursive: true, force: true });
    });
  }
  settingsDirs.add(dir);
  const path = join(dir, 'settings.json');
  await writeFile(path, JSON.stringify(settings), { mode: 0o600 });
  return path;
}

/**
 * The same server, started inside the sandbox. `settings` is a settings object or the path of a
 * settings file (validated now, so a bad file fails before the server is defined).
 */
export async function sandboxStdioServer(
  params: StdioUpstreamParams,
  settings: SandboxSettings | string = {},
): Promise<StdioUpstreamParams> {
  const host = checkSandboxHost();
  let chosen: SandboxSettings;
  if (typeof settings === 'string') chosen = await loadSandboxConfig(settings);
  else {
    validateSandboxSettings(settings);
    chosen = settings;
  }
  const setpriv = findProgram('setpriv', process.env.PATH);
  const required = withRequiredLists(chosen);
  const full = {
    ...required,
    filesystem: {
      ...required.filesystem,
      denyWrite: withHostCodeDenied(required.filesystem?.denyWrite ?? []),
    },
    ...(setpriv && chosen.socatPath === undefined ? { socatPath: SOCAT_WITH_PARENT } : {}),
    bwrapPath: chosen.bwrapPath ?? host.bwrap,
  };
  const settingsFile = await writeSettingsFile(full);
  const command = [params.command, ...(params.args ?? [])].map(shellQuote).join(' ');
  const srt = [process.execPath, SRT_CLI, '--settings', settingsFile, '-c', command];
  return {
    ...params,
    command: setpriv ?? srt[0],
    args: setpriv ? ['--pdeathsig', 'KILL', '--', ...srt] : srt.slice(1),
  };
}
