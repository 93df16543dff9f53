/**
 * A stdio "MCP server" that reads requests and never answers, not even `initialize`, and ignores
 * SIGTERM: only a client-side timeout and SIGKILL deal with it.
 */
process.stdin.resume();
process.on('SIGTERM', () => process.stderr.write('upstream-hangs: ignoring SIGTERM\n'));
setInterval(() => {}, 60_000);
process.stderr.write(`upstream-hangs waiting (pid ${process.pid})\n`);
