import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpboxError } from '../errors.ts';
import { compileSchema } from './schema.ts';

const toolSchema = () => ({
  type: 'object',
  properties: { q: { type: 'string' }, n: { type: 'integer' } },
  required: ['q'],
});

test('a raw JSON Schema validates arguments and reaches clients as the same object', async () => {
  const schema = toolSchema();
  const compiled = compileSchema(schema, 'input');
  assert.equal(compiled.json, schema);
  assert.deepEqual(await compiled.validate({ q: 'x', n: 2 }), {
    ok: true,
    value: { q: 'x', n: 2 },
  });
  const bad = await compiled.validate({ n: 1.5 });
  assert.equal(bad.ok, false);
  assert.match(!bad.ok ? bad.message : '', /must have required property 'q'/);
  assert.match(!bad.ok ? bad.message : '', /must be integer/);
});

test('re-registering the same schema (a reload) keeps validating, also with an $id', async () => {
  // ajv refuses a second schema with an $id it already holds; a reload registers it again.
  const withId = () => ({ ...toolSchema(), $id: 'urn:test:reloaded' });
  for (let reload = 0; reload < 3; reload++) {
    const compiled = compileSchema(withId(), 'input');
    assert.equal((await compiled.validate({ q: 'x' })).ok, true);
    assert.equal((await compiled.validate({ q: 1 })).ok, false);
  }
  // A changed schema under the same $id (the plugin's code changed) gets its own validator.
  const changed = compileSchema(
    { ...withId(), properties: { q: { type: 'number' } } } as Record<string, unknown>,
    'input',
  );
  assert.equal((await changed.validate({ q: 1 })).ok, true);
  assert.equal((await changed.validate({ q: 'x' })).ok, false);
});

test('a 2020-12 schema gets the 2020 dialect', async () => {
  const compiled = compileSchema(
    {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] },
      },
    },
    'input',
  );
  assert.equal((await compiled.validate({ pair: ['a', 1] })).ok, true);
  assert.equal((await compiled.validate({ pair: [1, 'a'] })).ok, false);
});

test('an invalid JSON Schema is refused with INVALID_SCHEMA', () => {
  assert.throws(
    () => compileSchema({ type: 'object', properties: { q: { $ref: '#/missing' } } }, 'input'),
    (error: unknown) => error instanceof McpboxError && error.code === 'INVALID_SCHEMA',
  );
});
