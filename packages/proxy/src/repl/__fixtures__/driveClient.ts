/**
 * Test helper: runs the real `mcp-client` bin as a child process with piped stdin, feeds it lines
 * and waits for what it prints. The child leads its own process group, so cleanup also ends any
 * stdio server it started.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = join(here, '..', '..', '..', '..', '..');
export const clientBin = join(repoRoot, 'packages/proxy/bin/mcp-client.js');
export const everythingBin = join(repoRoot, 'node_modules/.bin/mcp-server-everything');
export const growingServer = join(here, 'growingServer.ts');
/** Command line (after `--`) that starts the growing fixture server over stdio. */
export const growingServerCommand = [process.execPath, '--import', 'tsx', growingServer];
/** Command line (after `--`) that starts the asking fixture server (elicitation, a password). */
export const askingServerCommand = [
  process.execPath,
  '--import',
  'tsx',
  join(here, 'askingServer.ts'),
];

/** Guards each wait so a broken client fails the test instead of hanging it. */
const WAIT_LIMIT_MS = 60_000;

export interface DrivenClient {
  child: ChildProcess;
  send(line: string): void;
  /** Writes raw input (keystrokes on a pty). */
  write(data: string): void;
  /** Resolves with the text once the output after the previous match contains `pattern`. */
  waitFor(pattern: RegExp | string): Promise<string>;
  /** Closes stdin and resolves with the exit code. */
  end(): Promise<number | null>;
  exited: Promise<number | null>;
  /** Everything printed so far, stdout and stderr in arrival order. */
  output(): string;
  stdout(): string;
  stderr(): string;
}

export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

export function startClient(
  t: TestContext,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): DrivenClient {
  const child = spawn(process.execPath, [clientBin, ...args], {
    cwd: repoRoot,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  t.after(() => killGroup(child));
  return drive(child);
}

/** True when util-linux `script` is installed (it gives the client a pseudo-terminal). */
export function hasScript(): boolean {
  return spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
}

function shellQuote(arg: string): string {
  return `'${arg.replaceAll("'", "'\\''")}'`;
}

/**
 * Runs the client on a pseudo-terminal through `script -qfec`, so node:readline sees a TTY
 * (raw mode, line editing, completion, history) without a native pty module. Write keystrokes
 * with `write`; `\r` is Enter.
 */
export function startClientInPty(
  t: TestContext,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): DrivenClient {
  const command = [process.execPath, clientBin, ...args].map(shellQuote).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: repoRoot,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  t.after(() => killGroup(child));
  return drive(child);
}

function drive(child: ChildProcess): DrivenClient {
  let all = '';
  let out = '';
  let err = '';
  let cursor = 0;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of waiters) w();
  };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    all += d;
    out += d;
    wake();
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    all += d;
    err += d;
    wake();
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  exited.then(wake);

  const waitFor = (pattern: RegExp | string) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const rest = all.slice(cursor);
        const index = typeof pattern === 'string' ? rest.indexOf(pattern) : rest.search(pattern);
        if (index >= 0) {
          const length =
            typeof pattern === 'string'
              ? pattern.length
              : (rest.slice(index).match(pattern)?.[0].length ?? 0);
          cursor += index + length;
          done();
          resolve(rest.slice(0, index + length));
        } else if (child.exitCode !== null || child.signalCode !== null) {
          done();
          reject(new Error(`client exited before printing ${pattern}; output:\n${all}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out waiting for ${pattern}; output:\n${all}`));
      }, WAIT_LIMIT_MS);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  return {
    child,
    send: (line) => child.stdin!.write(`${line}\n`),
    write: (data) => child.stdin!.write(data),
    waitFor,
    end: () => {
      child.stdin!.end();
      return exited;
    },
    exited,
    output: () => all,
    stdout: () => out,
    stderr: () => err,
  };
}

/** Runs the client on a whole script of lines (stdin closed after them); resolves at exit. */
export async function runScript(
  t: TestContext,
  args: string[],
  lines: string[],
  env?: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string; output: string }> {
  const client = startClient(t, args, env);
  client.child.stdin!.end(lines.map((l) => `${l}\n`).join(''));
  const code = await client.exited;
  return { code, stdout: client.stdout(), stderr: client.stderr(), output: client.output() };
}

/** Starts `mcp-server-everything <mode>` on PORT and waits until it listens. */
export async function startEverythingHttp(
  t: TestContext,
  mode: 'streamableHttp' | 'sse',
  port: number,
): Promise<ChildProcess> {
  const server = spawn(everythingBin, [mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  t.after(() => killGroup(server));
  let log = '';
  server.stderr!.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    const onData = (d: string) => {
      log += d;
      if (/(listening|running) on port/i.test(log)) {
        server.stderr!.off('data', onData);
        server.stderr!.resume();
        resolve();
      }
    };
    server.stderr!.on('data', onData);
    server.once('exit', (code) => reject(new Error(`server exited (${code}): ${log}`)));
  });
  return server;
}
