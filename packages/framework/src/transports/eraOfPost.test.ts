// The quick checks in front of the SDK's era classifier agree with the classifier on every kind
// of POST, and answer plain 2025 requests and requests carrying the 2026 envelope without it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { isLegacyPost } from './streamableHttp.ts';

const CALL = { name: 'echo', arguments: { message: 'hi' } };
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

const CASES: Array<[string, string | undefined, unknown, boolean]> = [
  // [what, MCP-Protocol-Version header, body, answered without the classifier]
  [
    'a 2025 tools/call',
    '2025-11-25',
    { jsonrpc: '2.0', id: 7, method: 'tools/call', params: CALL },
    true,
  ],
  ['no version header', undefined, { jsonrpc: '2.0', id: 'a', method: 'tools/list' }, true],
  ['an older version', '2025-06-18', { jsonrpc: '2.0', id: 1, method: 'ping', params: {} }, true],
  [
    'initialize',
    undefined,
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25' } },
    true,
  ],
  [
    'a progress token',
    '2025-11-25',
    {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { ...CALL, _meta: { progressToken: 1 } },
    },
    false,
  ],
  [
    'a bad _meta',
    '2025-11-25',
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { _meta: { progressToken: {} } } },
    false,
  ],
  [
    'the 2026 envelope',
    '2026-07-28',
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { ...CALL, _meta: MODERN_META } },
    true,
  ],
  [
    'the envelope, no header',
    undefined,
    { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: MODERN_META } },
    true,
  ],
  [
    'the envelope naming an unknown revision',
    '2026-07-28',
    {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/list',
      params: {
        _meta: { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
      },
    },
    true,
  ],
  [
    'a malformed envelope',
    '2026-07-28',
    {
      jsonrpc: '2.0',
      id: 3,
      method: 'ping',
      params: { _meta: { ...MODERN_META, 'io.modelcontextprotocol/clientInfo': 7 } },
    },
    true,
  ],
  [
    'a 2026 notification',
    '2026-07-28',
    {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 1, _meta: MODERN_META },
    },
    true,
  ],
  [
    'a malformed request with the envelope',
    '2026-07-28',
    { jsonrpc: '2.0', id: { no: 1 }, method: 'ping', params: { _meta: MODERN_META } },
    true,
  ],
  [
    'initialize with the envelope',
    undefined,
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', _meta: MODERN_META },
    },
    false,
  ],
  [
    'initialize with an envelope claiming 2025',
    undefined,
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } },
    },
    false,
  ],
  [
    'a response carrying the envelope',
    '2026-07-28',
    {
      jsonrpc: '2.0',
      id: 9,
      result: { _meta: MODERN_META },
      method: 'x',
      params: { _meta: MODERN_META },
    },
    false,
  ],
  [
    'a 2026 header without envelope',
    '2026-07-28',
    { jsonrpc: '2.0', id: 4, method: 'tools/list' },
    false,
  ],
  [
    'initialize with a 2026 header',
    '2026-07-28',
    { jsonrpc: '2.0', id: 4, method: 'initialize', params: {} },
    false,
  ],
  ['a header with spaces', ' 2025-11-25 ', { jsonrpc: '2.0', id: 5, method: 'tools/list' }, false],
  ['a header that is no date', 'latest', { jsonrpc: '2.0', id: 5, method: 'tools/list' }, false],
  ['a notification', '2025-11-25', { jsonrpc: '2.0', method: 'notifications/initialized' }, false],
  ['a response', '2025-11-25', { jsonrpc: '2.0', id: 9, result: {} }, false],
  [
    'an error response',
    '2025-11-25',
    { jsonrpc: '2.0', id: 9, error: { code: 1, message: 'x' } },
    false,
  ],
  ['a batch', '2025-11-25', [{ jsonrpc: '2.0', id: 1, method: 'ping' }], false],
  ['a null id', '2025-11-25', { jsonrpc: '2.0', id: null, method: 'ping' }, false],
  ['a fractional id', '2025-11-25', { jsonrpc: '2.0', id: 1.5, method: 'ping' }, false],
  ['an extra key', '2025-11-25', { jsonrpc: '2.0', id: 1, method: 'ping', extra: true }, false],
  ['JSON-RPC 1.0', '2025-11-25', { jsonrpc: '1.0', id: 1, method: 'ping' }, false],
  [
    'params as an array',
    '2025-11-25',
    { jsonrpc: '2.0', id: 1, method: 'ping', params: [] },
    false,
  ],
  ['no body', '2025-11-25', undefined, false],
];

for (const [what, header, body, quick] of CASES) {
  test(`era of a POST: ${what}`, () => {
    const sdk = classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: header, body });
    let asked = false;
    const legacy = isLegacyPost(header, body, () => {
      asked = true;
      return sdk;
    });
    assert.equal(legacy, sdk.kind === 'legacy', `the SDK says ${sdk.kind}`);
    assert.equal(
      !asked,
      quick,
      quick ? 'answered without the classifier' : 'left to the classifier',
    );
  });
}
