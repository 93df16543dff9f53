/**
 * Option parsers shared by the `mcp-factory` and `mcp-proxy` command lines.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';

/** Parses a TCP port (0 = any free port); commander prints the message on a bad value. */
export function portNumber(value: string): number {
  const port = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(port >= 0 && port <= 65535))
    throw new InvalidArgumentError('expected a port number (0-65535).');
  return port;
}

/**
 * Parses `--code-mode [mode]`: on, both or off (given bare, commander passes `true`: on).
 * Kept free of framework imports, so `--help` loads nothing more.
 */
export function codeMode(value: string): 'on' | 'both' | 'off' {
  const mode = value.trim().toLowerCase();
  if (mode === 'on' || mode === 'both' || mode === 'off') return mode;
  throw new InvalidArgumentError('expected on, both or off (bare --code-mode means on).');
}

/** Collects a repeatable option (`-d a -d b`) into a list. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The version of `@mcpbox/proxy`, for `--version` on its bins. */
export function packageVersion(): string {
  const manifest = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}
