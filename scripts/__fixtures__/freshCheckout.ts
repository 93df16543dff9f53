/**
 * A fresh checkout of this working tree in a temporary directory, as a clone and `npm install`
 * leave one: every file git tracks or would add (nothing .gitignore leaves out, so no dist/), and
 * a node_modules that links the workspace's installed packages, but for `@mcpbox/*`, which link
 * the copy's own packages, so the copy's bins, build and `npm start` run the copy's code only.
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Copies the working tree at `root` into a new directory; `remove()` deletes it. */
export function freshCheckout(root: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'mcpbox-checkout-'));
  const listed = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 },
  );
  for (const file of listed.split('\0')) {
    // A tracked file deleted in the working tree is not in a clone of it either.
    if (!file || !existsSync(join(root, file))) continue;
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(root, file), join(dir, file));
  }
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '@mcpbox'), { recursive: true });
  for (const name of readdirSync(join(root, 'node_modules'))) {
    const from = join(root, 'node_modules', name);
    if (name === '@mcpbox') continue;
    // npm's install marker, a copy newer than the copied lock: `npm start` sees the install done.
    if (name === '.package-lock.json') copyFileSync(from, join(modules, name));
    else symlinkSync(from, join(modules, name));
  }
  // The workspace's links are relative (../../packages/NAME): the same links point into the copy.
  for (const name of readdirSync(join(root, 'node_modules', '@mcpbox'))) {
    const link = readlinkSync(join(root, 'node_modules', '@mcpbox', name));
    symlinkSync(link, join(modules, '@mcpbox', name));
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
