import assert from 'node:assert/strict';
import { test } from 'node:test';
import { paramHeaderMismatch, paramHeadersOf } from './paramHeaders.ts';

const schema = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    limit: { type: 'integer', 'x-mcp-header': 'Limit' },
    options: { type: 'object', properties: { dry: { type: 'boolean', 'x-mcp-header': 'Dry' } } },
    list: { type: 'array', items: { type: 'object', properties: { x: { 'x-mcp-header': 'X' } } } },
  },
  allOf: [{ properties: { hidden: { type: 'string', 'x-mcp-header': 'Hidden' } } }],
};

const check = (args: unknown, headers: Record<string, string>) =>
  paramHeaderMismatch(paramHeadersOf(schema), args, (name) => headers[name]);

test('declarations come only from chains of properties keys', () => {
  assert.deepEqual(paramHeadersOf(schema), [
    { name: 'Region', path: ['region'] },
    { name: 'Limit', path: ['limit'] },
    { name: 'Dry', path: ['options', 'dry'] },
  ]);
  assert.equal(paramHeadersOf(schema), paramHeadersOf(schema));
});

test('matching headers pass: literal, Base64 sentinel, numbers and booleans', () => {
  const args = { region: 'Hello, 世界', limit: 42, options: { dry: true } };
  const headers = {
    'Mcp-Param-Region': `=?base64?${Buffer.from('Hello, 世界').toString('base64')}?=`,
    'Mcp-Param-Limit': '42.0',
    'Mcp-Param-Dry': 'true',
  };
  assert.equal(check(args, headers), undefined);
  // Without the closing `?=` a value is literal, not Base64.
  assert.equal(
    check({ region: '=?base64?SGVsbG8=' }, { 'Mcp-Param-Region': '=?base64?SGVsbG8=' }),
    undefined,
  );
  // An absent or null argument needs no header.
  assert.equal(check({ region: null }, {}), undefined);
});

test('missing, different, badly encoded or unexpected headers are mismatches', () => {
  assert.match(check({ region: 'eu' }, {}) ?? '', /Mcp-Param-Region is missing/);
  assert.match(check({ region: 'eu' }, { 'Mcp-Param-Region': 'us' }) ?? '', /does not match/);
  assert.match(
    check({ region: 'Hello' }, { 'Mcp-Param-Region': '=?base64?SGVsbG8?=' }) ?? '',
    /not valid Base64/,
  );
  assert.match(
    check({ region: 'Hello' }, { 'Mcp-Param-Region': '=?base64?SGVs!!!bG8=?=' }) ?? '',
    /not valid Base64/,
  );
  assert.match(check({ limit: 7 }, { 'Mcp-Param-Limit': 'seven' }) ?? '', /does not match/);
  assert.match(check({}, { 'Mcp-Param-Region': 'eu' }) ?? '', /argument is absent/);
});
