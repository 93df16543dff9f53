// The fast-failing message checks give exactly the answers of zod's own parse of the SDK schemas.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  JSONRPCErrorResponseSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import './messageChecks.ts';

const MESSAGES: unknown[] = [
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: {} } },
  { jsonrpc: '2.0', id: 'a', method: 'ping' },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, result: { content: [] } },
  { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found' } },
  { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } },
  // Near misses: present keys with wrong values, extra keys on strict schemas, wrong version.
  { jsonrpc: '2.0', id: 1, method: 'ping', result: {} },
  { jsonrpc: '2.0', id: 1.5, method: 'ping' },
  { jsonrpc: '1.0', id: 1, result: {} },
  { jsonrpc: '2.0', id: 1, method: 'x', error: { code: 1, message: 'm' } },
  { jsonrpc: '2.0', id: 4, result: undefined },
  { jsonrpc: '2.0', method: 7 },
  {},
  [],
  null,
  'text',
  42,
];

const CHECKS = [
  { schema: JSONRPCResultResponseSchema, is: isJSONRPCResultResponse },
  { schema: JSONRPCErrorResponseSchema, is: isJSONRPCErrorResponse },
  { schema: JSONRPCRequestSchema, is: isJSONRPCRequest },
  { schema: JSONRPCNotificationSchema, is: isJSONRPCNotification },
];

test('message checks answer as the full zod parse does', () => {
  for (const message of MESSAGES) {
    for (const { schema, is } of CHECKS) {
      // z.safeParse goes through zod's core, not the replaced method: the reference answer.
      const expected = z.safeParse(schema, message).success;
      assert.equal(is(message), expected, `${JSON.stringify(message)} → ${expected}`);
      assert.equal(schema.safeParse(message).success, expected);
    }
  }
});

test('a fast failure still explains itself when its error is read', () => {
  const result = JSONRPCResultResponseSchema.safeParse({ jsonrpc: '2.0', method: 'ping', id: 1 });
  assert.equal(result.success, false);
  assert.ok(result.error instanceof Error);
  const paths = result.error.issues.map((issue) => issue.path.join('.') || issue.code);
  assert.ok(paths.includes('result'), `issues: ${JSON.stringify(result.error.issues)}`);
  assert.equal(result.error, result.error, 'the error is built once');
});
