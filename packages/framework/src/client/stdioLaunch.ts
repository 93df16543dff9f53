/**
 * Turns stdio upstream params into the SDK's `StdioServerParameters`, so that the upstream and
 * everything it spawns end together with us — on `close()`, and also when our process dies by
 * SIGKILL, which no exit handler can catch.
 *
 * How (Linux, util-linux): the SDK spawns `setpriv --pdeathsig TERM -- sh -c GUARD`. The kernel
 * sends the guard shell SIGTERM when its parent (our process) dies, however it dies. The guard
 * starts the real command under `setsid`, i.e. in a fresh process group, and owns that group:
 * on SIGTERM (parent death, or the SDK's close() escalation) and after the command exits, it sends
 * the group SIGTERM, waits up to `graceSteps` × 0.1 s, then SIGKILL. That ending runs in a
 * background subshell the guard waits for: the SDK's close() SIGKILLs the guard 2 s after its
 * SIGTERM, and a guard killed in the middle of its grace period would leave an upstream that
 * ignores SIGTERM running forever (orphaned, outliving us); the subshell finishes the job. A fresh group also keeps
 * terminal signals meant for us (Ctrl-C) away from the upstream; we end it deliberately instead.
 * The SDK's StdioClientTransport cannot do this itself: it spawns the command directly, in our
 * process group, and signals only that one pid.
 *
 * Where `setpriv` or `setsid` is missing (macOS, minimal images), the command is spawned
 * directly and only the SDK's own cleanup applies; `processGroupGuardAvailable()` says which.
 *
 * @module
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { StdioServerParameters } from '@modelcontextprotocol/client/stdio';
import { UpstreamError } from './errors.ts';
import type { StdioUpstreamParams } from './params.ts';
import { clientSdk } from './sdk.ts';

// `exec 3<&0 … <&3`: dash gives background jobs /dev/null as stdin and drops a plain `<&0`.
// dash also sets SIGINT/SIGQUIT to ignored in background jobs; harmless for a server that has
// its own session (no terminal sends it those).
const GUARD_SCRIPT = `setsid=$1; steps=$2; shift 2
exec 3<&0
"$setsid" -- "$@" <&3 3<&- &
pg=$!
stop() {
  kill -TERM "-$pg" 2>/dev/null
  i=0
  while [ "$i" -lt "$steps" ] && kill -0 "-$pg" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
  kill -KILL "-$pg" "$pg" 2>/dev/null
}
trap 'stop & wait $!; exit 143' TERM
trap '' INT HUP QUIT
wait "$pg"
code=$?
stop & wait $!
exit "$code"`;

interface GuardTools {
  setpriv: string;
  setsid: string;
  sh: string;
}

let guardTools: GuardTools | null | undefined;

function findGuardTools(): GuardTools | null {
  if (guardTools !== undefined) return guardTools;
  const first = (candidates: string[]) => candidates.find(isExecutableFile);
  const setpriv = first(['/usr/bin/setpriv', '/bin/setpriv']);
  const setsid = first(['/usr/bin/setsid', '/bin/setsid']);
  const sh = first(['/bin/sh']);
  guardTools =
    process.platform === 'linux' && setpriv && setsid && sh ? { setpriv, setsid, sh } : null;
  return guardTools;
}

/** Whether upstreams are started in a guarded process group (see the module comment). */
export function processGroupGuardAvailable(): boolean {
  return findGuardTools() !== null;
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Finds the executable the way spawn would (a name on the child's PATH, a path relative to
 * `cwd`), so a typo fails at once with a clear message instead of as a child that exits.
 */
function resolveCommand(name: string, command: string, cwd: string, path: string): string {
  if (command.includes('/')) {
    const full = isAbsolute(command) ? command : resolve(cwd, command);
    if (isExecutableFile(full)) return full;
    const reason = exists(full) ? 'is not an executable file' : 'not found';
    throw new UpstreamError(
      'START_FAILED',
      `cannot start upstream '${name}': command '${command}' ${reason}`,
    );
  }
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const full = join(resolve(cwd, dir), command);
    if (isExecutableFile(full)) return full;
  }
  throw new UpstreamError(
    'START_FAILED',
    `cannot start upstream '${name}': command '${command}' not found (searched PATH)`,
  );
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

export interface StdioLaunchOptions {
  /** Tenths of a second the group gets between SIGTERM and SIGKILL. Default 20 (2 s). */
  graceSteps?: number;
}

/**
 * The SDK spawn parameters for already-expanded stdio params: command resolved, environment
 * = the SDK's safe inherited set (PATH, HOME, LOGNAME, SHELL, TERM, USER) plus `params.env`,
 * stderr piped (for our logger, never into our stdout), wrapped in the process-group guard.
 *
 * @throws {UpstreamError} `START_FAILED` when the command or the working directory is missing.
 */
export function stdioLaunchParameters(
  name: string,
  params: StdioUpstreamParams,
  { graceSteps = 20 }: StdioLaunchOptions = {},
): StdioServerParameters {
  const cwd = params.cwd ?? process.cwd();
  if (params.cwd !== undefined && !statSafe(cwd)?.isDirectory()) {
    throw new UpstreamError(
      'START_FAILED',
      `cannot start upstream '${name}': working directory '${params.cwd}' does not exist`,
    );
  }
  // Called by connect, after loadClientSdk().
  const env = { ...clientSdk().stdio.getDefaultEnvironment(), ...params.env };
  const command = resolveCommand(name, params.command, cwd, env.PATH ?? '');
  const args = params.args ?? [];
  const tools = findGuardTools();
  if (!tools) return { command, args, env, cwd, stderr: 'pipe' };
  return {
    command: tools.setpriv,
    args: [
      '--pdeathsig',
      'TERM',
      '--',
      tools.sh,
      '-c',
      GUARD_SCRIPT,
      `mcpbox-upstream:${name}`,
      tools.setsid,
      String(Math.max(0, Math.floor(graceSteps))),
      command,
      ...args,
    ],
    env,
    cwd,
    stderr: 'pipe',
  };
}

function statSafe(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
