/**
 * Imports of the workspace's own packages for the bare-SDK peers. A bare `import` from bench/
 * would resolve bench/node_modules first (fastmcp's install, which brings its own zod and, through
 * its `mcp-proxy` dependency, its own copies of the SDK v2 packages), and a baseline would then
 * measure different dependencies, not a different server: the peers load the SDK and zod that
 * mcp-factory and ipybox run on.
 */
import { readFileSync } from 'node:fs';

const WORKSPACE = new URL('../../node_modules/', import.meta.url);

/** Imports a workspace package's ESM entry (`import` condition of its `exports` map). */
export async function fromWorkspace(name: string, subpath = '.'): Promise<unknown> {
  const dir = new URL(`${name}/`, WORKSPACE);
  const { exports } = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8'));
  let entry: unknown = exports[subpath];
  while (entry && typeof entry === 'object') {
    const conditions = entry as Record<string, unknown>;
    entry = conditions.import ?? conditions.default;
  }
  if (typeof entry !== 'string') throw new Error(`no ESM entry for ${name} ${subpath}`);
  return import(new URL(entry, dir).href);
}

/** The SDK v2 server entry points and zod, as the workspace has them. */
export async function workspaceSdk() {
  const [server, stdio, zod] = (await Promise.all([
    fromWorkspace('@modelcontextprotocol/server'),
    fromWorkspace('@modelcontextprotocol/server', './stdio'),
    fromWorkspace('zod'),
  ])) as [
    typeof import('@modelcontextprotocol/server'),
    typeof import('@modelcontextprotocol/server/stdio'),
    typeof import('zod'),
  ];
  return { ...server, serveStdio: stdio.serveStdio, z: zod.z };
}
