import assert from 'node:assert/strict';
import { test } from 'node:test';
import { joinWords, splitWords, type Word } from './words.ts';

function words(line: string): Word[] {
  const split = splitWords(line);
  assert.ok(split.ok, `expected ${line} to split`);
  return split.words;
}

test('double and single quotes group words and are removed', () => {
  assert.deepEqual(
    words(`"a b" 'c  d' e`).map((w) => w.text),
    ['a b', 'c  d', 'e'],
  );
});

test('key=value: the key is unquoted, the value may be quoted', () => {
  assert.deepEqual(words(`city="New York" state=NY note='a "b"'`), [
    { text: 'New York', before: '', key: 'city' },
    { text: 'NY', before: ' ', key: 'state' },
    { text: 'a "b"', before: ' ', key: 'note' },
  ]);
});

test('a quoted word containing = is a value, not a key', () => {
  assert.deepEqual(words(`"a=b"`), [{ text: 'a=b', before: '' }]);
});

test('a quote inside a word is literal: apostrophes need no escaping', () => {
  assert.deepEqual(
    words(`don't panic O'Brien`).map((w) => w.text),
    ["don't", 'panic', "O'Brien"],
  );
});

test('inside double quotes \\" and \\\\ escape; other backslashes are literal', () => {
  assert.equal(
    words(String.raw`"say \"hi\" C:\temp \\ x"`)[0]!.text,
    String.raw`say "hi" C:\temp \ x`,
  );
  assert.equal(words(String.raw`'\"'`)[0]!.text, String.raw`\"`);
});

test('an unterminated quote is an error naming it', () => {
  assert.deepEqual(splitWords(`echo "abc`), {
    ok: false,
    error: 'unterminated " quote in: "abc',
  });
});

test('joinWords keeps the spacing typed between words and the key of a pair', () => {
  assert.equal(joinWords(words(`"a  b"   c x="1 2"`)), 'a  b   c x=1 2');
});
