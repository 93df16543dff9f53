#!/usr/bin/env node
// `npm start`: mcp-factory serving the demo plugins and ipybox over HTTP, on port 8000 unless
// told otherwise: `npm start -- --port 9000` or `PORT=9000 npm start` (the flag wins); the health
// server takes the next port. Every other argument goes to mcp-factory as it is
// (`npm start -- --log-level debug`). Runs mcp-factory in this process, so Ctrl-C reaches it.
// It serves the built code, as users run it, and so does the stdio client configuration it
// prints: the packages are built first when a dist/ is missing or older than its sources.
// `MCPBOX_BIN=source npm start` serves the TypeScript sources instead, without a build.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { binMode } from '../packages/framework/launch.js';
import { staleBuild } from './build-state.mjs';

const DEFAULT_PORT = '8000';
const PLUGINS = ['echo', 'greet', 'demo_full', 'ipybox'];

/** `--port N` / `--port=N` taken out of `args`; the rest passed through. */
function splitPort(args) {
  const rest = [];
  let port;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--port') {
      port = args[++i] ?? '';
    } else if (arg.startsWith('--port=')) {
      port = arg.slice('--port='.length);
    } else {
      rest.push(arg);
    }
  }
  return { port, rest };
}

const { port: flagPort, rest } = splitPort(process.argv.slice(2));
const [port, source] =
  flagPort !== undefined
    ? [flagPort, '--port']
    : process.env.PORT
      ? [process.env.PORT, 'PORT']
      : [DEFAULT_PORT, 'default'];
if (!/^\d+$/.test(port) || Number(port) > 65535) {
  console.error(
    `npm start: ${source} must be a port number (0-65535), got ${JSON.stringify(port)}`,
  );
  process.exit(1);
}

/** Builds the packages whose dist/ is missing or stale (and those built on them); exits if it fails. */
function buildIfStale() {
  const stale = staleBuild();
  if (!stale) return;
  console.error(`npm start: building ${stale.names.join(', ')} (${stale.reason}) …`);
  const build = fileURLToPath(new URL('./build.mjs', import.meta.url));
  const result = spawnSync(process.execPath, [build, ...stale.names], { stdio: ['ignore', 2, 2] });
  if (result.status !== 0) {
    console.error(
      'npm start: the build failed (above); fix it, or serve the TypeScript sources without a build: MCPBOX_BIN=source npm start',
    );
    process.exit(1);
  }
}

let mode;
try {
  mode = binMode();
} catch (error) {
  console.error(`npm start: ${error.message}`);
  process.exit(1);
}
if (mode === 'dist') buildIfStale();

const bin = fileURLToPath(new URL('../packages/proxy/bin/mcp-factory.js', import.meta.url));
process.argv = [process.argv[0], bin, '--http', port, '-p', ...PLUGINS, ...rest];
await import(bin);
