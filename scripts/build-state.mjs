// Whether each package's dist/ is up to date with what it is built from, for `npm start`, which
// builds first when it is not: the bins run dist/ (packages/framework/launch.js), so a dist/ that
// is missing or older than the sources would serve old code or nothing. scripts/build.mjs stamps
// a package's dist/ once its build is complete; the dist/ is stale when a file it is built from
// is newer than the stamp (make's rule: an edit, a pull or a checkout all touch the files).
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The workspace packages in dependency order (ipybox's declarations feed proxy's ipybox plugin). */
export const PACKAGES = ['framework', 'ipybox', 'proxy'];

/** Written last by a package's build, so a build that failed half-way leaves no stamp. */
const STAMP = '.built';

/** What tsconfig.build.json leaves out of a package's build: tests and their helpers. */
export const NOT_BUILT = /(\.test\.|\.contract\.|(^|[\\/])testing\.ts$|(^|[\\/])__fixtures__[\\/])/;

/** Files the build of every package reads. */
const SHARED = ['package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs'];

export function stampBuild(name) {
  writeFileSync(join(root, 'packages', name, 'dist', STAMP), `${new Date().toISOString()}\n`);
}

function* files(dir) {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (!NOT_BUILT.test(path)) yield path;
  }
}

/** The files the proxy package's tsconfig.plugins.json compiles (the demo plugins it ships). */
function* pluginFiles(pkg) {
  const config = join(pkg, 'tsconfig.plugins.json');
  for (const include of JSON.parse(readFileSync(config, 'utf8')).include ?? []) {
    const path = join(pkg, include);
    if (!path.includes('*')) yield path;
    else
      yield* readdirSync(dirname(path))
        .map((name) => join(dirname(path), name))
        .filter((file) => file.endsWith('.ts') && !NOT_BUILT.test(file));
  }
}

/** Every file the build of package `name` reads. */
function* inputs(name) {
  const pkg = join(root, 'packages', name);
  for (const file of SHARED) yield join(root, file);
  for (const file of readdirSync(pkg)) {
    if (file === 'package.json' || /^tsconfig.*\.json$/.test(file)) yield join(pkg, file);
  }
  yield* files(join(pkg, 'src'));
  if (existsSync(join(pkg, 'tsconfig.plugins.json'))) yield* pluginFiles(pkg);
}

/** Why package `name` needs a build, or undefined when its dist/ is up to date. */
export function staleness(name) {
  const stamp = join(root, 'packages', name, 'dist', STAMP);
  if (!existsSync(stamp)) return `packages/${name}/dist is not built`;
  const built = statSync(stamp).mtimeMs;
  for (const file of inputs(name)) {
    if (existsSync(file) && statSync(file).mtimeMs > built) {
      return `${relative(root, file)} changed since packages/${name}/dist was built`;
    }
  }
  return undefined;
}

/**
 * The packages to build so every dist/ is up to date: the first stale one and every one after it
 * (they are built against its declarations), with why; undefined when all are up to date.
 */
export function staleBuild() {
  for (const [i, name] of PACKAGES.entries()) {
    const reason = staleness(name);
    if (reason) return { names: PACKAGES.slice(i), reason };
  }
  return undefined;
}
