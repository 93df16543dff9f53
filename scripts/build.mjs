#!/usr/bin/env node
// `npm run build`: compiles each package's TypeScript to JavaScript and declarations in its
// dist/ (what the published package ships and its bins run), copies the files the code reads at
// run time by path (Python sources, loader hooks, shell helpers) next to the compiled modules,
// and compiles the demo plugins the README uses (echo, greet, demo_full, ipybox) into
// @mcpbox/proxy's dist/plugins, where an installed mcp-factory finds them. Then it bundles each
// package's entry modules with esbuild into dist/bundle/ (see bundle() below: cold start).
// Last, it stamps each dist/ as complete (scripts/build-state.mjs, which `npm start` reads).
// Usage: node scripts/build.mjs [package …]   (default: all, dependencies first)
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transformSync } from 'esbuild';
import { NOT_BUILT, PACKAGES, stampBuild } from './build-state.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
/** Files read at run time by path, not imported: copied as they are. */
// .html: ipybox's MCP App viewer (src/app/viewer.html, with src/app/storedResult.mjs inlined),
// served as a ui:// resource.
const ASSET = /\.(mjs|py|sh|html)$/;
/**
 * Each package's entry modules (compiled, relative to dist/), bundled into dist/bundle/NAME.js:
 * the package's exports (`index`) and the command-line modules its bins run (through
 * `@mcpbox/framework/launch`).
 */
const ENTRIES = {
  framework: { index: 'index.js' },
  ipybox: { index: 'index.js', ipybox: 'cli/ipybox.js' },
  proxy: {
    index: 'index.js',
    factory: 'cli/factory.js',
    proxy: 'cli/proxy.js',
    client: 'cli/client.js',
  },
};
/** Compiled by the package's own tsconfig, but not bundled: loaded by path as plugins. */
const UNBUNDLED = /^plugins(\/|\\)/;

function compile(project) {
  const result = spawnSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`build: tsc -p ${relative(root, project)} failed`);
    process.exit(result.status ?? 1);
  }
}

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === '__fixtures__' || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else yield path;
  }
}

function copyAssets(src, dist) {
  for (const file of files(src)) {
    const name = file.slice(dirname(file).length + 1);
    if (!ASSET.test(name) || NOT_BUILT.test(name)) continue;
    const target = join(dist, relative(src, file));
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(file, target);
    chmodSync(target, statSync(file).mode);
  }
}

/**
 * Bare imports the bundles inline instead of leaving external: commander, which every bin parses
 * its command line with before anything else, so before the first answer of a stdio server.
 * Loaded from node_modules it is seven CommonJS files through Node's CommonJS loader and its
 * ESM translation (~10-20 ms of ipybox's and mcp-factory's cold start); inlined, it is part of
 * the bin's chunk. No plugin or user code shares its objects, so a copy is no second instance.
 */
const INLINED = new Set(['commander']);

/**
 * commander require()s node:child_process when it loads, for subcommands run as executables,
 * which no bin of ours has: ~8 ms of every cold start. Inlined, that require waits for a spawn.
 */
const CHILD_PROCESS_REQUIRE = "const childProcess = require('node:child_process');";
const LAZY_CHILD_PROCESS =
  "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };";

/**
 * The INLINED packages' modules, loaded without their comments: commander is 126 KB as
 * written and 71 KB without its JSDoc. V8 scans a module's whole source at load and keeps it
 * in the heap for as long as the module lives, so every start-up of a bin paid for the
 * comments (bench/startup.ts; the heap at the first answer decides whether V8 runs a full
 * mark-compact before it). esbuild prints the bundle from the parsed code, so the chunk keeps
 * its usual layout; our own modules are bundled as written.
 */
const inlinedPackages = {
  name: 'inlined-packages',
  setup(esbuild) {
    const names = [...INLINED].map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    const filter = new RegExp(`[\\\\/]node_modules[\\\\/](${names.join('|')})[\\\\/].*\\.[cm]?js$`);
    esbuild.onLoad({ filter }, (args) => {
      let code = readFileSync(args.path, 'utf8');
      if (/[\\/]commander[\\/]lib[\\/]command\.js$/.test(args.path)) {
        if (code.includes(CHILD_PROCESS_REQUIRE)) {
          code = code.replace(CHILD_PROCESS_REQUIRE, LAZY_CHILD_PROCESS);
        } else {
          console.warn(`build: ${args.path} no longer has ${CHILD_PROCESS_REQUIRE}; left as it is`);
        }
      }
      // Whitespace minification drops the comments (but legal ones, kept by the bundle).
      return { contents: transformSync(code, { minifyWhitespace: true, loader: 'js' }).code };
    });
  },
};

/** esbuild's `packages: 'external'`, but for the INLINED packages. */
const externalPackages = {
  name: 'external-packages',
  setup(esbuild) {
    // Bare specifiers (`zod`, `@scope/name/sub`, `node:fs`); relative and absolute paths are ours.
    esbuild.onResolve({ filter: /^[^./]/ }, (args) => {
      const parts = args.path.split('/');
      const name = args.path.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
      return INLINED.has(name) ? undefined : { path: args.path, external: true };
    });
  },
};

/**
 * Writes the non-ASCII characters of a bundle's comments (a dash, an ellipsis, an arrow in a
 * doc comment) as `\uXXXX`. esbuild escapes them everywhere else (its default ASCII charset),
 * but copies comments as they are, and one such character makes V8 hold the whole module source
 * as a two-byte string, decoded off the fast ASCII path: twice the memory for a 300 KB bundle
 * and ~1-2 ms more of every start-up (bench/startup.ts).
 */
function asciiComments(file) {
  const code = readFileSync(file, 'utf8');
  const ascii = code.replace(
    /[^\x00-\x7f]/gu,
    (c) => `\\u${c.codePointAt(0).toString(16).padStart(4, '0')}`,
  );
  if (ascii !== code) writeFileSync(file, ascii);
}

/**
 * Bundles the package's compiled entry modules with esbuild, so a bin loads a few files instead
 * of a hundred (Node's per-module resolve/load/link cost was most of mcp-factory's cold start
 * beyond the SDK's own). Every bare import stays external (externalPackages below): zod,
 * `@modelcontextprotocol/*` and the other `@mcpbox/*` packages are shared with plugins, which
 * import them by name, and a copy inlined here would be a second instance of their classes.
 * Only the INLINED packages, which nothing shares, are bundled in (see there).
 * Entries of one package share chunks (`splitting`), so its bins and its exports are one copy
 * too, and an `import()` that loads a module on first use stays a separate file.
 *
 * Code that finds files next to itself (`new URL('./hook.mjs', import.meta.url)`) is rewritten
 * to the URL of the compiled module it came from, so assets copied beside dist/'s modules are
 * found from the flat dist/bundle/ as before. The compiled modules are then removed (but the
 * declarations), so nothing can load a second, unbundled copy by mistake; dist/index.js stays
 * as the package's entry, re-exporting the bundle.
 */
async function bundle(name, dist) {
  const out = join(dist, 'bundle');
  const entryPoints = Object.fromEntries(
    Object.entries(ENTRIES[name]).map(([entry, file]) => [entry, join(dist, file)]),
  );
  await build({
    entryPoints,
    outdir: out,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    chunkNames: 'chunk-[hash]',
    logLevel: 'warning',
    // An inlined CommonJS package require()s Node's modules: ESM has no `require` of its own.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
    },
    plugins: [
      externalPackages,
      inlinedPackages,
      {
        name: 'module-url',
        setup(esbuild) {
          esbuild.onLoad({ filter: /\.js$/ }, (args) => {
            const code = readFileSync(args.path, 'utf8');
            if (!code.includes('import.meta.url')) return undefined;
            const own = relative(out, args.path).split(sep).join('/');
            const url = `new URL(${JSON.stringify(own)}, import.meta.url).href`;
            return { contents: code.replaceAll('import.meta.url', url), loader: 'js' };
          });
        },
      },
    ],
  });
  for (const file of files(out)) asciiComments(file);
  for (const file of files(dist)) {
    const path = relative(dist, file);
    if (path.startsWith(`bundle${sep}`) || UNBUNDLED.test(path)) continue;
    if (file.endsWith('.js')) rmSync(file);
  }
  writeFileSync(join(dist, 'index.js'), "export * from './bundle/index.js';\n");
}

const wanted = process.argv.slice(2);
for (const name of wanted) {
  if (!PACKAGES.includes(name)) {
    console.error(`build: unknown package '${name}' (one of: ${PACKAGES.join(', ')})`);
    process.exit(2);
  }
}
for (const name of PACKAGES) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  const dir = join(root, 'packages', name);
  rmSync(join(dir, 'dist'), { recursive: true, force: true });
  compile(join(dir, 'tsconfig.build.json'));
  copyAssets(join(dir, 'src'), join(dir, 'dist'));
  await bundle(name, join(dir, 'dist'));
  if (name === 'proxy') compile(join(dir, 'tsconfig.plugins.json'));
  stampBuild(name);
  console.error(`build: packages/${name}/dist`);
}
