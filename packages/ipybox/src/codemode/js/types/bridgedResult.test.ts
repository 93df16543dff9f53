/**
 * The contract the declarations promise and the runtime keeps: a tool with an output schema
 * resolves to its structured content, any other to `{ content, isError? }`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Tool } from '@modelcontextprotocol/server';
import { bridgedResult } from './declarations.ts';

const plain: Tool = { name: 'echo', inputSchema: { type: 'object' } };
const structured: Tool = {
  name: 'weather',
  inputSchema: { type: 'object' },
  outputSchema: { type: 'object', properties: { temperature: { type: 'number' } } },
};
const content = [{ type: 'text' as const, text: '{"temperature":21}' }];

test('a tool with an output schema resolves to its structured content', () => {
  const result = { content, structuredContent: { temperature: 21 }, _meta: { trace: 'x' } };
  assert.deepEqual(bridgedResult(structured, result), { temperature: 21 });
});

test('any other result is its content, and isError only when set', () => {
  assert.deepEqual(bridgedResult(plain, { content, _meta: { trace: 'x' } }), { content });
  assert.deepEqual(bridgedResult(plain, { content, isError: true }), { content, isError: true });
  // An error of a structured tool carries no structured content: its text is what there is.
  assert.deepEqual(bridgedResult(structured, { content, isError: true }), {
    content,
    isError: true,
  });
  assert.deepEqual(
    bridgedResult(structured, { content, isError: true, structuredContent: { temperature: 0 } }),
    { content, isError: true },
  );
  // Structured content a tool did not declare is not promised to code.
  assert.deepEqual(bridgedResult(plain, { content, structuredContent: { a: 1 } }), { content });
});
