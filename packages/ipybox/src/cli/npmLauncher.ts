/**
 * `npx ipybox …` (the README's way to start it) runs ipybox under `npm exec` and a `sh -c` that
 * does not pass signals on: SIGTERM to npx ended npm and the shell, and ipybox, with its kernels,
 * lived on under PID 1. So when npm started us, the process that started us is our owner: once
 * it is gone (our parent changes), ipybox shuts down as on SIGTERM. Started any other way
 * (`nohup ipybox --http … &`, systemd, a client), an orphaned ipybox keeps serving, as it should.
 *
 * @module
 */

/** True when npm (`npx`, `npm exec`, `npm start`) launched this process. */
export function launchedByNpm(env: NodeJS.ProcessEnv = process.env): boolean {
  return (
    env.npm_lifecycle_event !== undefined && env.npm_config_user_agent?.startsWith('npm/') === true
  );
}

/**
 * Under npm, sends ourselves SIGTERM (the CLI's clean shutdown) when the launching process is
 * gone. Polls `process.ppid` every `intervalMs` (default 500) on an unref'd timer.
 */
export function endWithNpmLauncher({
  env = process.env,
  intervalMs = 500,
}: {
  env?: NodeJS.ProcessEnv;
  intervalMs?: number;
} = {}): void {
  if (!launchedByNpm(env)) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }, intervalMs);
  timer.unref();
}
