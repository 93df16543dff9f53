/**
 * `mcp-client call`'s arguments from `--arg`/`--json`, typed and checked against a tool's schema
 * (the bin test, mcpClientOneShot.test.ts, runs one case of each kind end to end).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callArguments, callSyntaxError } from './callArguments.ts';

const schema = {
  type: 'object',
  properties: {
    count: { type: 'integer', minimum: 0 },
    loud: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    opts: { type: 'object', properties: { depth: { type: 'number' } } },
    mode: { type: 'string', enum: ['fast', 'slow'] },
  },
  required: ['count'],
  additionalProperties: false,
};

function error(pairs: string[], json?: string): string {
  const built = callArguments('calc', schema, pairs, json);
  assert.equal(built.ok, false, JSON.stringify(built));
  return (built as { message: string }).message;
}

test('values are typed by the schema; --arg pairs override --json keys', () => {
  const built = callArguments(
    'calc',
    schema,
    ['count=2', 'loud=off', 'tags=["x"]', 'opts={"depth": 1.5}', 'mode=slow'],
    undefined,
  );
  assert.deepEqual(built, {
    ok: true,
    args: { count: 2, loud: false, tags: ['x'], opts: { depth: 1.5 }, mode: 'slow' },
  });
  assert.deepEqual(callArguments('calc', schema, ['count=5'], '{"count": 1, "loud": true}'), {
    ok: true,
    args: { count: 5, loud: true },
  });
});

test('each mismatch names the parameter and what it expects, with the parameter list', () => {
  assert.match(error(['count=1.5']), /^--arg count: expected an integer, got "1\.5"/);
  assert.match(error(['count=1', 'loud=maybe']), /--arg loud: expected true or false/);
  assert.match(error(['count=1', 'tags=a,b']), /--arg tags: expected JSON \(array\)/);
  assert.match(error(['count=1', 'mode=medium']), /--arg mode: expected one of fast\|slow/);
  assert.match(error(['count=1', 'nmae=x']), /"calc" has no parameter "nmae"/);
  assert.match(error([], '{"count": 1, "extra": 2}'), /"calc" has no parameter "extra"/);
  assert.match(error(['count=1', 'count=2']), /--arg count is given twice/);
  assert.match(error([]), /missing required parameter "count" \(integer\): add --arg count=…/);
  assert.match(
    error([], '{"count": 1, "opts": {"depth": "deep"}}'),
    /input schema of "calc": parameter "opts\.depth" must be number/,
  );
  assert.match(
    error(['count=-1']),
    /\nparameters of "calc": count \(integer, required\), loud \(boolean\), tags \(array of string\), opts \(object\), mode \(one of fast\|slow\)$/,
  );
});

test('a schema that lists no parameters takes any name; JSON values parse, others stay text', () => {
  const open = { type: 'object' };
  assert.deepEqual(callArguments('any', open, ['n=3', 's=hello', 'o={"a":1}'], undefined), {
    ok: true,
    args: { n: 3, s: 'hello', o: { a: 1 } },
  });
});

test('command-line syntax is checked without a schema', () => {
  assert.equal(callSyntaxError(['a=1', 'b='], '{}'), undefined);
  assert.match(callSyntaxError(['=1'], undefined) ?? '', /--arg takes NAME=VALUE, got "=1"/);
  assert.match(callSyntaxError([], 'nope') ?? '', /--json is not valid JSON/);
  assert.match(callSyntaxError([], '"text"') ?? '', /--json must be a JSON object/);
});
