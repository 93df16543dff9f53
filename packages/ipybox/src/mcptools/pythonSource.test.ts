import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pythonJson } from '../__fixtures__/toolserver-python.ts';
import { pyDocstring, pyString, toIdentifier, uniqueIdentifiers } from './pythonSource.ts';

/** Random strings over the characters that matter for Python literals. */
function randomTexts(count: number): string[] {
  const alphabet = ['"', "'", '\\', '\n', '\r', 'a', ' ', '\u0000', 'N', '{', 'x', '\u2028', '#'];
  let seed = 42;
  const next = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed;
  };
  return Array.from({ length: count }, () => {
    const length = next() % 12;
    return Array.from({ length }, () => alphabet[next() % alphabet.length]).join('');
  });
}

test('string and docstring literals evaluate in Python to exactly the original text', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'pysource-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const texts = randomTexts(2000);
  const lines = [
    'VALUES = [',
    ...texts.map((s) => `    (${pyString(s)}, ${pyDocstring(s)}),`),
    ']',
  ];
  await writeFile(join(root, 'literals.py'), lines.join('\n'), 'utf8');
  const values = await pythonJson<[string, string][]>(
    'import json, literals; print(json.dumps(literals.VALUES))',
    { root },
  );
  assert.equal(values.length, texts.length);
  values.forEach(([single, doc], i) => {
    assert.equal(single, texts[i]);
    assert.equal(doc, texts[i]);
  });
});

test('identifiers are lowercase ASCII, not keywords, never private, and unique', () => {
  assert.equal(toIdentifier('get-weather'), 'get_weather');
  assert.equal(toIdentifier('getWeather'), 'get_weather');
  assert.equal(toIdentifier('class'), 'class_');
  assert.equal(toIdentifier('__init__'), 'init');
  assert.equal(toIdentifier('42'), 'tool_42');
  assert.equal(toIdentifier('../../etc'), 'etc');
  assert.equal(toIdentifier('日本'), 'tool');
  assert.deepEqual(uniqueIdentifiers(['a-b', 'a_b', 'A B', 'init'], { reserved: ['init'] }), [
    'a_b',
    'a_b_2',
    'a_b_3',
    'init_2',
  ]);
});
