import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { CompositeToolLogger } from './composite.ts';
import { JsonlToolLogger } from './jsonl.ts';
import { TextToolLogger } from './text.ts';
import { localDate } from './time.ts';
import { TranscriptLogger } from './transcript.ts';
import type { ToolLogger } from './types.ts';

const DAY = 86_400_000;
/** Noon local time, so adding whole days never crosses midnight through a DST shift. */
const NOON = new Date(2026, 2, 10, 12, 0, 0).getTime();

async function tempDir(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'toollog-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function collectWarnings() {
  const warnings: string[] = [];
  return { warnings, logger: { warn: (m: string) => warnings.push(m) } };
}

const textResult = (text: string) => ({ content: [{ type: 'text', text }] });

describe('JsonlToolLogger', () => {
  test('writes one JSON line per call, with truncated params and result', async (t) => {
    const dir = await tempDir(t);
    const log = new JsonlToolLogger({ dir, clock: () => NOON });
    log.logCall('echo', { text: 'x'.repeat(800), n: 3 }, textResult('y'.repeat(3000)), true, {
      outcome: 'ok',
      plugin: 'echo',
    });
    log.logCall('fail', {}, textResult('boom'), false);
    await log.flush();
    const lines = (await readFile(join(dir, 'tool_calls.jsonl'), 'utf8')).trim().split('\n');
    assert.equal(lines.length, 2);
    const first = JSON.parse(lines[0]);
    assert.equal(first.tool, 'echo');
    assert.equal(first.plugin, 'echo');
    assert.equal(first.ok, true);
    assert.equal(first.params.n, 3);
    assert.ok(first.params.text.startsWith('x'.repeat(500)));
    assert.ok(first.params.text.length < 550, 'param string cut near 500 chars');
    assert.ok(first.result.length < 2050, 'result cut near 2000 chars');
    assert.match(first.ts, /^2026-03-10T12:00:00\.000[+-]\d\d:\d\d$/);
    assert.deepEqual(JSON.parse(lines[1]), {
      ts: first.ts,
      tool: 'fail',
      params: {},
      result: 'boom',
      ok: false,
    });
  });

  test('gzips yesterday on the first write of a new day and deletes archives past retention', async (t) => {
    const dir = await tempDir(t);
    let now = NOON;
    // Archives from earlier runs: 91 days old (past the 90-day retention) and 89 days old.
    const old = localDate(NOON + DAY - 91 * DAY);
    const kept = localDate(NOON + DAY - 89 * DAY);
    await writeFile(join(dir, `${old}.jsonl.gz`), 'old');
    await writeFile(join(dir, `${kept}.jsonl.gz`), 'kept');
    const log = new JsonlToolLogger({ dir, clock: () => now });
    log.logCall('day1', { a: 1 }, 'r1', true);
    log.logCall('day1b', { a: 2 }, 'r2', true);
    await log.flush();
    now += DAY;
    log.logCall('day2', { a: 3 }, 'r3', true);
    await log.flush();

    const names = (await readdir(dir)).sort();
    assert.deepEqual(
      names,
      [`${kept}.jsonl.gz`, `${localDate(NOON)}.jsonl.gz`, 'tool_calls.jsonl'].sort(),
    );
    const archived = gunzipSync(await readFile(join(dir, `${localDate(NOON)}.jsonl.gz`)))
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).tool);
    assert.deepEqual(archived, ['day1', 'day1b']);
    const live = (await readFile(join(dir, 'tool_calls.jsonl'), 'utf8')).trim().split('\n');
    assert.deepEqual(
      live.map((l) => JSON.parse(l).tool),
      ['day2'],
    );
  });

  test('a live file left by an earlier run is archived under the day it was written', async (t) => {
    const dir = await tempDir(t);
    const file = join(dir, 'tool_calls.jsonl');
    await writeFile(file, '{"tool":"earlier"}\n');
    const then = new Date(NOON - 3 * DAY);
    await utimes(file, then, then);
    const log = new JsonlToolLogger({ dir, clock: () => NOON });
    log.logCall('today', {}, 'ok', true);
    await log.flush();
    const archive = join(dir, `${localDate(NOON - 3 * DAY)}.jsonl.gz`);
    assert.equal(gunzipSync(await readFile(archive)).toString(), '{"tool":"earlier"}\n');
    assert.equal(JSON.parse(await readFile(file, 'utf8')).tool, 'today');
  });

  test('a second rotation into an existing archive keeps both parts readable', async (t) => {
    const dir = await tempDir(t);
    let now = NOON;
    const first = new JsonlToolLogger({ dir, clock: () => now });
    first.logCall('a', {}, '', true);
    await first.close();
    now += DAY;
    first.logCall('ignored after close', {}, '', true);
    await utimes(join(dir, 'tool_calls.jsonl'), new Date(NOON), new Date(NOON));
    // The same day archived twice (e.g. two processes over a restart): gzip members append.
    const second = new JsonlToolLogger({ dir, clock: () => now });
    second.logCall('b', {}, '', true);
    await second.flush();
    await writeFile(join(dir, 'tool_calls.jsonl'), '{"tool":"c"}\n');
    await utimes(join(dir, 'tool_calls.jsonl'), new Date(NOON), new Date(NOON));
    const third = new JsonlToolLogger({ dir, clock: () => now });
    third.logCall('d', {}, '', true);
    await third.flush();
    const tools = gunzipSync(await readFile(join(dir, `${localDate(NOON)}.jsonl.gz`)))
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).tool);
    assert.deepEqual(tools, ['a', 'c']);
  });
});

describe('TextToolLogger', () => {
  test('one line per call, rotated by size keeping N backups', async (t) => {
    const dir = await tempDir(t);
    const file = join(dir, 'logs', 'tool_calls.log');
    const log = new TextToolLogger({ file, maxBytes: 300, backups: 2, clock: () => NOON });
    log.logCall('echo', { text: 'hi' }, 'hi', true);
    log.logCall('echo', { text: 'z'.repeat(300) }, 'err', false);
    log.logCall('rej', {}, 'Rejected: no', false, { outcome: 'rejected' });
    await log.flush();
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    assert.equal(lines[0], '[2026-03-10 12:00:00] OK echo {"text":"hi"}');
    assert.match(lines[1], /^\[2026-03-10 12:00:00\] FAIL echo \{"text":"z+… \(\+\d+ chars\)$/);
    assert.equal(lines[2], '[2026-03-10 12:00:00] REJECTED rej {}');

    for (let i = 0; i < 30; i++) log.logCall('n', { i }, '', true);
    await log.flush();
    const names = (await readdir(join(dir, 'logs'))).sort();
    assert.deepEqual(names, ['tool_calls.log', 'tool_calls.log.1', 'tool_calls.log.2']);
    for (const name of names) {
      assert.ok((await stat(join(dir, 'logs', name))).size <= 300, `${name} within maxBytes`);
    }
    // The newest entry is in the live file, the one before the rotation in .1.
    assert.match(await readFile(file, 'utf8'), /\{"i":29\}\n$/);
  });
});

describe('TranscriptLogger', () => {
  test('writes a Markdown transcript, starts a new file past the size, ends on close', async (t) => {
    const dir = await tempDir(t);
    let now = NOON;
    const log = new TranscriptLogger({ dir, maxBytes: 400, clock: () => now });
    log.logCall('echo', { text: 'hi', n: 2 }, textResult('has ``` inside'), true);
    await log.flush();
    const firstPath = log.path!;
    assert.equal(firstPath, join(dir, '2026-03-10-12-00-00.md'));
    const first = await readFile(firstPath, 'utf8');
    assert.ok(first.startsWith('# MCP Transcript\n\n**Started:** 2026-03-10 12:00:00\n'));
    assert.ok(first.includes('## [12:00:00] ✓ `echo`'));
    assert.ok(first.includes('  text: hi\n  n: 2'));
    assert.ok(
      first.includes('````\nhas ``` inside\n````'),
      'fence longer than the backticks inside',
    );

    now += 1000;
    log.logCall('big', { blob: 'b'.repeat(500) }, 'x', false);
    now += 1000;
    log.logCall('after', {}, 'y', true);
    await log.close();
    assert.notEqual(log.path, firstPath);
    const second = await readFile(log.path!, 'utf8');
    assert.ok(second.includes('## [12:00:02] ✓ `after`'));
    assert.ok(second.trimEnd().endsWith('**Ended:** 2026-03-10 12:00:02'));
    assert.ok((await readFile(firstPath, 'utf8')).includes('✗ `big`'));
  });
});

describe('privacy', () => {
  test('log directories are created 0700 and log files 0600 (they hold call parameters)', async (t) => {
    const dir = await tempDir(t);
    let now = NOON;
    const loggers: ToolLogger[] = [
      new JsonlToolLogger({ dir: join(dir, 'jsonl'), clock: () => now }),
      new TextToolLogger({ file: join(dir, 'text', 'calls.log') }),
      new TranscriptLogger({ dir: join(dir, 'transcript') }),
    ];
    const all = new CompositeToolLogger(loggers);
    all.logCall('echo', {}, 'r', true);
    await all.flush();
    now += DAY;
    all.logCall('echo', {}, 'r', true);
    await all.close();
    for (const sub of ['jsonl', 'text', 'transcript']) {
      assert.equal((await stat(join(dir, sub))).mode & 0o777, 0o700, sub);
      for (const name of await readdir(join(dir, sub))) {
        assert.equal((await stat(join(dir, sub, name))).mode & 0o777, 0o600, `${sub}/${name}`);
      }
    }
    assert.ok((await readdir(join(dir, 'jsonl'))).some((n) => n.endsWith('.jsonl.gz')));
  });
});

describe('failure', () => {
  test('an unwritable log directory: calls go on, exactly one warning', async (t) => {
    const dir = await tempDir(t);
    const blocker = join(dir, 'not-a-dir');
    await writeFile(blocker, '');
    const { warnings, logger } = collectWarnings();
    const loggers: ToolLogger[] = [
      new JsonlToolLogger({ dir: join(blocker, 'logs'), logger }),
      new TextToolLogger({ file: join(blocker, 'x.log'), logger }),
      new TranscriptLogger({ dir: join(blocker, 't'), logger }),
    ];
    for (const log of loggers) {
      for (let i = 0; i < 5; i++) assert.equal(log.logCall('echo', { i }, 'r', true), undefined);
      await log.flush();
    }
    assert.equal(warnings.length, 3, warnings.join('\n'));
    for (const w of warnings)
      assert.match(w, /cannot write \((ENOTDIR|EEXIST)\b.*\); tool calls go on unlogged$/);
  });

  test('a composite keeps logging to the others when one logger throws', async (t) => {
    const dir = await tempDir(t);
    const good = new JsonlToolLogger({ dir });
    const broken: ToolLogger = {
      logCall: () => {
        throw new Error('broken');
      },
      flush: async () => {},
      close: async () => {},
    };
    const all = new CompositeToolLogger([broken, good]);
    all.logCall('echo', {}, 'r', true);
    await all.flush();
    assert.equal(JSON.parse(await readFile(join(dir, 'tool_calls.jsonl'), 'utf8')).tool, 'echo');
  });
});
