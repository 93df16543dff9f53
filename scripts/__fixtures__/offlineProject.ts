/**
 * An empty project that installs packed `@mcpbox/*` tarballs with no network: `npm ci --offline`
 * against a package-lock.json cut from the workspace's own lock. A lock entry names its tarball
 * by integrity, which the npm cache holds since the workspace install, while a version range
 * would need the registry's package metadata, which the cache holds only for some packages.
 * Every registry package gets the version, and the place in the tree, the workspace resolved for
 * it, so the project's node_modules is the part of the workspace's that the tarballs use.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

interface LockEntry {
  name?: string;
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [key: string]: unknown;
}

/** `packages/proxy/node_modules/x` in the workspace is `node_modules/@mcpbox/proxy/node_modules/x` here. */
function placeInProject(location: string): string {
  return location.replace(/^packages\/([^/]+)/, 'node_modules/@mcpbox/$1');
}

/** Where Node would find `name` from the package at `from`, among the lock's locations. */
function findInLock(
  packages: Record<string, LockEntry>,
  from: string,
  name: string,
): string | undefined {
  let base = from;
  while (true) {
    const candidate = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

/** The names a package needs installed: its dependencies, optional ones and required peers. */
function needs(entry: LockEntry): string[] {
  const peers = Object.keys(entry.peerDependencies ?? {}).filter(
    (name) => !entry.peerDependenciesMeta?.[name]?.optional,
  );
  return [
    ...Object.keys(entry.dependencies ?? {}),
    ...Object.keys(entry.optionalDependencies ?? {}),
    ...peers,
  ];
}

/**
 * Creates `dir` with a package.json depending on `tarballs` (packed workspace packages) and on
 * `extra` registry packages at the workspace's versions, and installs it offline.
 */
export async function installOffline(
  dir: string,
  workspaceRoot: string,
  tarballs: Record<string, string>,
  extra: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const lock = JSON.parse(readFileSync(join(workspaceRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const workspace = lock.packages;
  const own = new Map(
    Object.entries(tarballs).map(([name, file]) => {
      const location = Object.keys(workspace).find(
        (key) => key.startsWith('packages/') && workspace[key].name === name,
      );
      if (!location) throw new Error(`${name} is not a workspace package`);
      return [name, { file, location }];
    }),
  );
  const dependencies: Record<string, string> = {};
  const packages: Record<string, LockEntry> = {};
  const queue: Array<{ from: string; name: string }> = [];

  for (const [name, { file, location }] of own) {
    dependencies[name] = `file:${file}`;
    const { name: _name, ...manifest } = workspace[location];
    const integrity = `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;
    packages[placeInProject(location)] = { ...manifest, resolved: `file:${file}`, integrity };
    for (const dep of needs(workspace[location])) queue.push({ from: location, name: dep });
  }
  for (const name of extra) {
    const location = findInLock(workspace, '', name);
    if (!location) throw new Error(`${name} is not in the workspace's lock`);
    dependencies[name] = workspace[location].version as string;
    queue.push({ from: '', name });
  }

  const seen = new Set<string>();
  while (queue.length > 0) {
    const { from, name } = queue.shift() as { from: string; name: string };
    if (own.has(name)) continue;
    const location = findInLock(workspace, from, name);
    // An optional dependency for another platform is not in the lock: nothing to install.
    if (!location || seen.has(location)) continue;
    seen.add(location);
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = workspace[location];
    packages[placeInProject(location)] = entry;
    for (const dep of needs(entry)) queue.push({ from: location, name: dep });
  }

  mkdirSync(dir, { recursive: true });
  const manifest = {
    name: basename(dir),
    version: '1.0.0',
    private: true,
    type: 'module',
    dependencies,
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const root = { name: manifest.name, version: manifest.version, dependencies };
  writeFileSync(
    join(dir, 'package-lock.json'),
    `${JSON.stringify({ name: manifest.name, version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': root, ...packages } }, null, 2)}\n`,
  );
  await run('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], {
    cwd: dir,
    env,
    maxBuffer: 16 * 1024 * 1024,
  });
}
