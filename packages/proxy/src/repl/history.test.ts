import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadHistory, saveHistory } from './history.ts';

function tempDir(t: import('node:test').TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-history-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('history round-trips through the file, oldest line first on disk', (t) => {
  const file = join(tempDir(t), 'history');
  saveHistory(file, ['third', 'second', 'first']);
  assert.equal(readFileSync(file, 'utf8'), 'first\nsecond\nthird\n');
  assert.deepEqual(loadHistory(file), ['third', 'second', 'first']);
  assert.equal(statSync(file).mode & 0o777, 0o600, 'owner-only: lines may hold secrets');
});

test('history is capped to the newest lines, both when saving and loading', (t) => {
  const file = join(tempDir(t), 'history');
  saveHistory(file, ['5', '4', '3', '2', '1'], 3);
  assert.equal(readFileSync(file, 'utf8'), '3\n4\n5\n');
  writeFileSync(file, 'a\nb\n\nc\nd\n');
  assert.deepEqual(loadHistory(file, 2), ['d', 'c']);
});

test('a missing history file is an empty history', (t) => {
  assert.deepEqual(loadHistory(join(tempDir(t), 'nope')), []);
});
