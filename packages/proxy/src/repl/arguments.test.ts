import assert from 'node:assert/strict';
import { test } from 'node:test';
import { argumentsFromText, promptArgumentsSchema, stringifyValues } from './arguments.ts';
import { coerce, soleParameter } from './schema.ts';

const echo = { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] };
const sum = {
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
};
const none = { type: 'object', properties: {} };

test('a JSON object is taken as the arguments', () => {
  assert.deepEqual(argumentsFromText(' {"a": 1, "b": 2} ', sum, 'call get-sum'), {
    kind: 'args',
    args: { a: 1, b: 2 },
  });
});

test('bad JSON says so and shows the expected shape', () => {
  const r = argumentsFromText('{"a": 1,', sum, 'call get-sum');
  assert.equal(r.kind, 'error');
  assert.match(
    (r as { message: string }).message,
    /^Bad JSON: .*e\.g\. call get-sum \{"a": …, "b": …\}$/,
  );
});

test('a bare value fills the one required parameter; a string keeps its spaces', () => {
  assert.deepEqual(argumentsFromText('hello  world', echo, 'call echo'), {
    kind: 'args',
    args: { message: 'hello  world' },
  });
});

test('a bare value for several parameters is refused with a way forward', () => {
  const r = argumentsFromText('5', sum, 'call get-sum');
  assert.equal(r.kind, 'error');
  assert.match(
    (r as { message: string }).message,
    /takes 2 parameters \(a, b\).*call get-sum a=… b=….*"call get-sum" alone/,
  );
});

const optionalOnly = {
  type: 'object',
  properties: { kind: { type: 'string' }, id: { type: 'number' } },
};

test('nothing typed: ask for required parameters; call with {} when none is required', () => {
  assert.deepEqual(argumentsFromText('', sum, 'call get-sum'), { kind: 'ask' });
  assert.deepEqual(argumentsFromText('  ', none, 'call ping'), { kind: 'args', args: {} });
  assert.equal(argumentsFromText('x', none, 'call ping').kind, 'error');
  assert.deepEqual(argumentsFromText('', optionalOnly, 'call ref'), { kind: 'args', args: {} });
});

test('a quoted bare value is one value without its quotes', () => {
  assert.deepEqual(argumentsFromText('"a b"', echo, 'call echo'), {
    kind: 'args',
    args: { message: 'a b' },
  });
  assert.deepEqual(argumentsFromText(`'a  b' "c"`, echo, 'call echo'), {
    kind: 'args',
    args: { message: 'a  b c' },
  });
  assert.deepEqual(argumentsFromText(`don't`, echo, 'call echo'), {
    kind: 'args',
    args: { message: "don't" },
  });
});

test('NAME=VALUE pairs, typed by each parameter and quoted like a shell', () => {
  assert.deepEqual(argumentsFromText('a=2 b="40"', sum, 'call get-sum'), {
    kind: 'args',
    args: { a: 2, b: 40 },
  });
  assert.deepEqual(argumentsFromText(`kind='a b'`, optionalOnly, 'call ref'), {
    kind: 'args',
    args: { kind: 'a b' },
  });
  assert.deepEqual(argumentsFromText('message="x=y z"', echo, 'call echo'), {
    kind: 'args',
    args: { message: 'x=y z' },
  });
  // A word that does not name a parameter is a plain value, quoted or not.
  assert.deepEqual(argumentsFromText('"message=hi" x=1', echo, 'call echo'), {
    kind: 'args',
    args: { message: 'message=hi x=1' },
  });
});

test('bad NAME=VALUE pairs are explained', () => {
  const cases: [string, RegExp][] = [
    ['a=1 b', /call get-sum: expected NAME=VALUE, got "b" \(quote a value with spaces/],
    ['a=1 c=2', /call get-sum: no parameter "c" \(parameters: a, b\)/],
    ['a=1 a=2', /call get-sum: a is given twice/],
    ['a=one b=2', /a: expected a number, got "one"/],
    ['a="1', /call get-sum: unterminated " quote/],
  ];
  for (const [text, message] of cases) {
    const r = argumentsFromText(text, sum, 'call get-sum');
    assert.equal(r.kind, 'error', text);
    assert.match((r as { message: string }).message, message);
  }
});

test('JSON for a sole array parameter keeps its quotes', () => {
  const tags = {
    type: 'object',
    properties: { tags: { type: 'array', items: { type: 'string' } } },
    required: ['tags'],
  };
  assert.deepEqual(argumentsFromText('["a b", "c"]', tags, 'call tag'), {
    kind: 'args',
    args: { tags: ['a b', 'c'] },
  });
});

test('JSON that is not an object is refused', () => {
  const r = argumentsFromText('{"a": 1}', sum, 'call get-sum');
  assert.equal(r.kind, 'args');
  const list = argumentsFromText('[1, 2]', sum, 'call get-sum');
  assert.equal(list.kind, 'error');
});

test('a bare value is typed by the schema of the sole parameter', () => {
  const count = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
  assert.deepEqual(argumentsFromText('42', count, 'call twice'), { kind: 'args', args: { n: 42 } });
  assert.deepEqual(argumentsFromText('4.2', count, 'call twice'), {
    kind: 'error',
    message: 'n: expected an integer, got "4.2"',
  });
});

test('the sole parameter: the only required one, else the only one', () => {
  assert.equal(soleParameter(echo)?.name, 'message');
  assert.equal(soleParameter(sum), undefined);
  assert.equal(soleParameter({ properties: { count: { type: 'number' } } })?.name, 'count');
  assert.equal(
    soleParameter({ properties: { a: {}, b: {} }, required: ['b'] })?.name,
    'b',
    'one required among optional ones',
  );
});

test('coerce: numbers, booleans, JSON, enums and titled choices, untyped', () => {
  assert.deepEqual(coerce(' 7 ', { type: 'number' }), { ok: true, value: 7 });
  assert.equal(coerce('seven', { type: 'number' }).ok, false);
  assert.deepEqual(coerce('yes', { type: 'boolean' }), { ok: true, value: true });
  assert.deepEqual(coerce('off', { type: ['boolean', 'null'] }), { ok: true, value: false });
  assert.equal(coerce('maybe', { type: 'boolean' }).ok, false);
  assert.deepEqual(coerce('{"k": [1]}', { type: 'object' }), { ok: true, value: { k: [1] } });
  assert.equal(coerce('[1]', { type: 'object' }).ok, false);
  assert.deepEqual(coerce('[1]', { type: 'array' }), { ok: true, value: [1] });
  assert.deepEqual(coerce('Chicago', { type: 'string', enum: ['Chicago'] }), {
    ok: true,
    value: 'Chicago',
  });
  assert.deepEqual(coerce('Oslo', { type: 'string', enum: ['Chicago', 'Paris'] }), {
    ok: false,
    error: 'expected one of Chicago|Paris, got "Oslo"',
  });
  const hero = { type: 'string', oneOf: [{ const: 'h1', title: 'Superman' }] };
  assert.deepEqual(coerce('h1', hero), { ok: true, value: 'h1' });
  assert.deepEqual(coerce('superman', hero), { ok: true, value: 'h1' });
  assert.deepEqual(coerce('Batman', hero), {
    ok: false,
    error: 'expected one of h1 (Superman), got "Batman"',
  });
  const pet = { type: 'string', enum: ['p1'], enumNames: ['Cats'] };
  assert.deepEqual(coerce('Cats', pet), { ok: true, value: 'p1' });
  assert.deepEqual(coerce('12', {}), { ok: true, value: 12 });
  assert.deepEqual(coerce('plain words', {}), { ok: true, value: 'plain words' });
});

test('prompt arguments become a string schema, and values are sent as strings', () => {
  const schema = promptArgumentsSchema([
    { name: 'city', required: true, description: 'City' },
    { name: 'state' },
  ]);
  assert.deepEqual(schema.required, ['city']);
  assert.deepEqual(argumentsFromText('Paris', schema, 'prompt args'), {
    kind: 'args',
    args: { city: 'Paris' },
  });
  assert.deepEqual(stringifyValues({ a: 'x', b: 5, c: { d: true } }), {
    a: 'x',
    b: '5',
    c: '{"d":true}',
  });
});
