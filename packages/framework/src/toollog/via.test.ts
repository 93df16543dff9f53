import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { JsonlToolLogger } from './jsonl.ts';
import { TextToolLogger } from './text.ts';

const NOON = new Date(2026, 2, 10, 12, 0, 0).getTime();
const result = { content: [{ type: 'text', text: 'ok' }] };

test('a call from code is marked via code in the JSONL and text logs; a direct call is not', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'toollog-via-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const jsonl = new JsonlToolLogger({ dir, clock: () => NOON });
  const text = new TextToolLogger({ file: join(dir, 'calls.log'), clock: () => NOON });
  for (const log of [jsonl, text]) {
    log.logCall('echo', { message: 'a' }, result, true, { outcome: 'ok' });
    log.logCall('echo', { message: 'b' }, result, true, { outcome: 'ok', via: 'code' });
    await log.close();
  }
  const entries = (await readFile(jsonl.path, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.deepEqual(
    entries.map((entry) => [entry.params.message, entry.via]),
    [
      ['a', undefined],
      ['b', 'code'],
    ],
  );
  assert.equal('via' in entries[0], false);
  const lines = (await readFile(text.path, 'utf8')).trim().split('\n');
  assert.doesNotMatch(lines[0], /via=/);
  assert.match(lines[1], / OK echo \{"message":"b"\} via=code$/);
});
