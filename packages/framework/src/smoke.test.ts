import assert from 'node:assert/strict';
import { test } from 'node:test';

test('the framework entry point loads', async () => {
  const mod = await import('./index.ts');
  assert.equal(typeof mod, 'object');
});
