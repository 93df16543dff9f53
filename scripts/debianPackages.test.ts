/**
 * `npm test`'s Debian step (scripts/ensure-deps.mjs --python, scripts/debianPackages.mjs) without
 * uninstalling anything from this shared machine: the real script runs with a PATH that holds a
 * fake `apt-get` recording its arguments (and, like the real one, making the commands appear),
 * and without the real commands of the packages proved by a command (bubblewrap, socat, ripgrep,
 * chromium, …) — so those are what is missing.
 * The script runs from a copy in a scratch "clone" whose npm install is up to date, so it never
 * touches the repository's node_modules.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  DEBIAN_PACKAGES,
  installLine,
  missingModules,
  missingPackages,
  SYSTEM_PYTHON,
} from './debianPackages.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;
const byCommand = DEBIAN_PACKAGES.filter((p) => 'command' in p) as {
  name: string;
  command: string;
}[];
const commandPackages = byCommand.map((p) => p.name);
/** The package names as the script lists them in a sentence and on a command line. */
const listed = commandPackages.join(', ');
const spaced = commandPackages.join(' ');

interface Clone {
  root: string;
  /** The only directory on PATH: the fake apt-get, and what it "installs". */
  bin: string;
  /** One line per apt-get run: DEBIAN_FRONTEND, then the arguments. */
  record: string;
  run(options?: { uid?: number }): { code: number | null; stderr: string };
  calls(): string[];
}

/**
 * @param installs whether the fake apt-get makes those commands appear, as installing
 *   the packages would
 */
function scratchClone(t: TestContext, installs = true): Clone {
  const root = mkdtempSync(join(tmpdir(), 'mcpbox-ensure-deps-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  chmodSync(root, 0o755); // readable by the unprivileged user of the non-root case
  mkdirSync(join(root, 'scripts'));
  for (const file of ['ensure-deps.mjs', 'debianPackages.mjs']) {
    copyFileSync(join(here, file), join(root, 'scripts', file));
  }
  // An npm install newer than its lock: the npm step has nothing to do.
  writeFileSync(join(root, 'package-lock.json'), '{}');
  mkdirSync(join(root, 'node_modules'));
  writeFileSync(join(root, 'node_modules', '.package-lock.json'), '{}');
  const past = new Date(Date.now() - 60_000);
  utimesSync(join(root, 'package-lock.json'), past, past);

  const bin = join(root, 'bin');
  mkdirSync(bin);
  const record = join(root, 'apt-get.log');
  const make = byCommand
    .map(({ command: c }) => c)
    .map((c) => `printf '#!/bin/sh\\n' > ${bin}/${c}; /bin/chmod 755 ${bin}/${c}`)
    .join('; ');
  writeFileSync(
    join(bin, 'apt-get'),
    `#!/bin/sh\necho "DEBIAN_FRONTEND=$DEBIAN_FRONTEND $*" >> ${record}\n` +
      (installs ? `if [ "$1" = install ]; then ${make}; fi\n` : ''),
  );
  chmodSync(join(bin, 'apt-get'), 0o755);
  return {
    root,
    bin,
    record,
    run: ({ uid } = {}) => {
      const r = spawnSync(
        process.execPath,
        [join(root, 'scripts', 'ensure-deps.mjs'), '--python'],
        {
          env: { PATH: bin, HOME: root },
          encoding: 'utf8',
          timeout: 60_000,
          ...(uid !== undefined ? { uid, gid: uid } : {}),
        },
      );
      return { code: r.status, stderr: r.stderr };
    },
    calls: () => (existsSync(record) ? readFileSync(record, 'utf8').trim().split('\n') : []),
  };
}

test('the packages are probed one by one: modules of the system Python, commands on PATH', (t) => {
  const empty = mkdtempSync(join(tmpdir(), 'mcpbox-empty-path-'));
  t.after(() => rmSync(empty, { recursive: true, force: true }));
  // This machine ran `npm test`'s step already, so with the real PATH nothing is missing.
  assert.deepEqual(missingPackages(), []);
  assert.deepEqual(missingPackages({ path: empty }), commandPackages);
  // No Python at all: every Python package is missing.
  assert.deepEqual(
    missingPackages({ python: join(empty, 'python3'), path: process.env.PATH }),
    DEBIAN_PACKAGES.filter((p) => 'module' in p).map((p) => p.name),
  );
  assert.equal(
    installLine(['a', 'b']),
    'sudo apt-get update && sudo apt-get install -y --no-install-recommends a b',
  );
});

test('a package directory that apt-get remove left behind does not count as installed', (t) => {
  // `apt-get remove python3-pandas` left /usr/lib/python3/dist-packages/pandas/ with two
  // directories of data in it: `import pandas` then "worked" as an empty namespace package.
  const dir = mkdtempSync(join(tmpdir(), 'mcpbox-leftover-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'mcpbox_leftover', '_libs'), { recursive: true });
  mkdirSync(join(dir, 'mcpbox_present'));
  writeFileSync(join(dir, 'mcpbox_present', '__init__.py'), '');
  const saved = process.env.PYTHONPATH;
  process.env.PYTHONPATH = dir; // the probe's Python inherits it
  t.after(() => {
    if (saved === undefined) delete process.env.PYTHONPATH;
    else process.env.PYTHONPATH = saved;
  });
  assert.deepEqual(
    missingModules(SYSTEM_PYTHON, ['mcpbox_leftover', 'mcpbox_present', 'mcpbox_nowhere']),
    ['mcpbox_leftover', 'mcpbox_nowhere'],
  );
});

test('as root: apt-get installs exactly what is missing, once; a second run installs nothing', (t) => {
  if (!isRoot) return t.skip('needs root, as CI runs it');
  const clone = scratchClone(t);
  const first = clone.run();
  assert.equal(first.code, 0, first.stderr);
  assert.ok(first.stderr.includes(`installing Debian packages ${spaced}`), first.stderr);
  assert.deepEqual(clone.calls(), [
    'DEBIAN_FRONTEND=noninteractive update -qq',
    `DEBIAN_FRONTEND=noninteractive install -y -qq --no-install-recommends ${spaced}`,
  ]);
  const second = clone.run();
  assert.equal(second.code, 0, second.stderr);
  assert.equal(second.stderr, '');
  assert.equal(clone.calls().length, 2, 'no second apt-get run');
});

test('as root: packages still missing after apt-get are named, and the step fails', (t) => {
  if (!isRoot) return t.skip('needs root, as CI runs it');
  const clone = scratchClone(t, false);
  const run = clone.run();
  assert.equal(run.code, 1);
  assert.ok(
    run.stderr.includes(`apt-get installed ${spaced}, yet ${listed} still cannot be found`),
    run.stderr,
  );
});

test('not root: the exact apt-get line is printed, nothing is run', (t) => {
  if (!isRoot) return t.skip('switching to an unprivileged user needs root');
  const clone = scratchClone(t);
  const run = clone.run({ uid: NOBODY });
  assert.equal(run.code, 1, run.stderr);
  assert.ok(
    run.stderr.includes(`run:\n  ${installLine(commandPackages)}\n`),
    `the install line is printed: ${run.stderr}`,
  );
  assert.deepEqual(clone.calls(), []);
});

test('no apt-get at all: the step fails naming the missing packages', (t) => {
  const clone = scratchClone(t);
  rmSync(join(clone.bin, 'apt-get'));
  const run = clone.run();
  assert.equal(run.code, 1);
  assert.ok(
    run.stderr.includes(
      `not a Debian/Ubuntu system (no apt-get): install the equivalents of ${listed}`,
    ),
    run.stderr,
  );
});
