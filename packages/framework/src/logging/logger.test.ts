import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

/** Runs a tiny program that logs through the real module in a child, and returns its output. */
function runLogging(format: 'text' | 'json', level = 'info') {
  const program = `
    import { configureLogging, createLogger } from ${JSON.stringify(new URL('./index.ts', import.meta.url).href)};
    const early = createLogger('early');          // created before configuration
    configureLogging({ format: '${format}', level: '${level}' });
    const log = createLogger('factory');
    log.debug('hidden at info');
    log.info('serving', { plugins: 3, url: 'http://127.0.0.1:8000/mcp' });
    log.warn('two\\nlines');
    log.error('load failed', { plugin: 'broken', error: new Error('boom') });
    early.error('follows later configuration', new Error('late'));
  `;
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', program],
    {
      encoding: 'utf8',
    },
  );
  assert.equal(child.status, 0, child.stderr);
  return child;
}

test('text format: one readable line per record, on stderr only', () => {
  const { stdout, stderr } = runLogging('text');
  assert.equal(stdout, '', 'nothing may reach stdout');
  const lines = stderr.trimEnd().split('\n');
  assert.equal(lines.length, 4, stderr);
  const stamp = '\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}';
  assert.match(
    lines[0],
    new RegExp(`^${stamp} INFO  factory: serving plugins=3 url=http://127.0.0.1:8000/mcp$`),
  );
  assert.match(lines[1], new RegExp(`^${stamp} WARN  factory: two\\\\nlines$`));
  assert.match(
    lines[2],
    new RegExp(`^${stamp} ERROR factory: load failed plugin=broken error=boom$`),
  );
  assert.match(lines[3], /ERROR early: follows later configuration error=late$/);
});

test('json format: {"ts","level","logger","msg"} plus fields and error, on stderr only', () => {
  const { stdout, stderr } = runLogging('json');
  assert.equal(stdout, '');
  const records = stderr
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.equal(records.length, 4);
  assert.deepEqual(Object.keys(records[0]).slice(0, 4), ['ts', 'level', 'logger', 'msg']);
  assert.ok(!Number.isNaN(Date.parse(records[0].ts)));
  assert.deepEqual(
    records.map(({ ts: _ts, ...rest }) => rest),
    [
      {
        level: 'INFO',
        logger: 'factory',
        msg: 'serving',
        plugins: 3,
        url: 'http://127.0.0.1:8000/mcp',
      },
      { level: 'WARN', logger: 'factory', msg: 'two\nlines' },
      { level: 'ERROR', logger: 'factory', msg: 'load failed', plugin: 'broken', error: 'boom' },
      { level: 'ERROR', logger: 'early', msg: 'follows later configuration', error: 'late' },
    ],
  );
});

test('debug level lets debug records through', () => {
  const { stderr } = runLogging('text', 'debug');
  assert.match(stderr.split('\n')[0], /DEBUG factory: hidden at info$/);
});
