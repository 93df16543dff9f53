import assert from 'node:assert/strict';
import { test } from 'node:test';
import { arrayIndexOf, itemsOf } from './arrayIndex.ts';

test('pages of an array parsed alone equal the slices of the whole, whatever its items hold', () => {
  const items = [
    'a "quoted" ], [ string',
    'back\\slash\\',
    { nested: [1, [2, { deep: '}' }]], empty: {} },
    [],
    null,
    -1.5e3,
    true,
    '',
    { '': ',' },
  ];
  for (const [i, text] of [JSON.stringify(items), JSON.stringify(items, null, 2)].entries()) {
    const index = arrayIndexOf(`test-${i}`, text);
    assert.ok(index);
    assert.equal(index.starts.length, items.length);
    for (let from = 0; from <= items.length; from++) {
      for (let to = from; to <= items.length; to++) {
        assert.deepEqual(itemsOf(text, index, from, to), items.slice(from, to), `${from}..${to}`);
      }
    }
  }
  assert.equal(arrayIndexOf('object', '{"a": [1]}'), undefined);
  assert.equal(arrayIndexOf('empty', ' [ ] ')?.starts.length, 0);
});
