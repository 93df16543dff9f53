// The stdio upstream's message reader: the SDK's framing and limits, a hand check of the JSON-RPC
// shape that refuses what the SDK's schema refuses, and its use by real stdio connections.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseJSONRPCMessage, ReadBuffer } from '@modelcontextprotocol/client';
import { openConnection } from '../__fixtures__/upstream-connections.ts';
import { everythingBin } from '../__fixtures__/upstream-processes.ts';
import { messageProblem, StdioMessageReader, useStdioMessageReader } from './stdioReader.ts';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

function readAll(reader: StdioMessageReader): unknown[] {
  const messages: unknown[] = [];
  for (let message = reader.readMessage(); message !== null; message = reader.readMessage()) {
    messages.push(message);
  }
  return messages;
}

describe('messageProblem agrees with the SDK JSON-RPC schema', () => {
  const accepted = [
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } },
    { jsonrpc: '2.0', id: 'a', method: 'ping' },
    {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 't', progress: 1 },
    },
    { jsonrpc: '2.0', id: 2, result: { content: [], extra: true } },
    {
      jsonrpc: '2.0',
      id: 3,
      result: { _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'x', version: '1' } } },
    },
    { jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'bad' } },
    { jsonrpc: '2.0', error: { code: -32700, message: 'parse error' } },
  ];
  const refused = [
    null,
    [],
    'text',
    { jsonrpc: '1.0', id: 1, method: 'ping' },
    { jsonrpc: '2.0', id: 1.5, method: 'ping' },
    { jsonrpc: '2.0', id: null, method: 'ping' },
    { jsonrpc: '2.0', id: 1, method: 7 },
    { jsonrpc: '2.0', id: 1, method: 'ping', params: [1] },
    { jsonrpc: '2.0', id: 1, method: 'ping', extra: 1 },
    { jsonrpc: '2.0', method: 'n', params: { _meta: { progressToken: {} } } },
    { jsonrpc: '2.0', result: {} },
    { jsonrpc: '2.0', id: 1, result: [] },
    { jsonrpc: '2.0', id: 1, result: {}, extra: 1 },
    { jsonrpc: '2.0', id: 1, result: { _meta: 'x' } },
    { jsonrpc: '2.0', id: null, error: { code: 1, message: 'm' } },
    { jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'm' } },
    { jsonrpc: '2.0', id: 1, error: { code: 1 } },
    { jsonrpc: '2.0', id: 1 },
  ];

  const schemaAccepts = (message: unknown) => {
    try {
      parseJSONRPCMessage(message);
      return true;
    } catch {
      return false;
    }
  };

  test('accepts what the schema accepts and refuses what it refuses', () => {
    for (const message of accepted) {
      assert.equal(schemaAccepts(message), true, JSON.stringify(message));
      assert.equal(messageProblem(structuredClone(message)), undefined, JSON.stringify(message));
    }
    for (const message of refused) {
      assert.equal(schemaAccepts(message), false, JSON.stringify(message));
      assert.ok(messageProblem(message), JSON.stringify(message));
    }
  });

  test('drops a serverInfo that is not a name and version, as the schema does', () => {
    const message = {
      jsonrpc: '2.0',
      id: 1,
      result: { _meta: { 'io.modelcontextprotocol/serverInfo': { name: 1 }, other: 'kept' } },
    };
    const parsed = parseJSONRPCMessage(structuredClone(message));
    assert.equal(messageProblem(message), undefined);
    assert.deepEqual(JSON.parse(JSON.stringify(message)), JSON.parse(JSON.stringify(parsed)));
    assert.deepEqual(JSON.parse(JSON.stringify(message.result._meta)), { other: 'kept' });
  });
});

describe('StdioMessageReader', () => {
  test('reads messages split across chunks, drops a trailing CR and skips lines that are not JSON, as the SDK reader', () => {
    const chunks = [
      '{"jsonrpc":"2.0","id":1,"res',
      'ult":{}}\r\nnot json\n{"jsonrpc":"2.0","method":"n"}\n',
    ];
    const ours = new StdioMessageReader();
    const sdk = new ReadBuffer();
    ours.append(Buffer.from(chunks[0]));
    sdk.append(Buffer.from(chunks[0]));
    assert.equal(ours.readMessage(), null, 'half a line is no message');
    ours.append(Buffer.from(chunks[1]));
    sdk.append(Buffer.from(chunks[1]));
    const expected = [
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', method: 'n' },
    ];
    assert.deepEqual(readAll(ours), expected);
    const fromSdk: unknown[] = [];
    for (let m = sdk.readMessage(); m !== null; m = sdk.readMessage()) fromSdk.push(m);
    assert.deepEqual(fromSdk, expected);
  });

  test('a message of the wrong shape throws, and reading goes on with the next line', () => {
    const reader = new StdioMessageReader();
    reader.append(Buffer.from('{"jsonrpc":"2.0","id":1}\n{"jsonrpc":"2.0","id":2,"result":{}}\n'));
    assert.throws(() => reader.readMessage(), /invalid JSON-RPC message from the upstream/);
    assert.deepEqual(reader.readMessage(), { jsonrpc: '2.0', id: 2, result: {} });
  });

  test('more buffered output than the limit throws and clears the buffer', () => {
    const reader = new StdioMessageReader(16);
    reader.append(Buffer.from('{"jsonrpc":'));
    assert.throws(() => reader.append(Buffer.from('"2.0","id":1}')), /exceeded maximum size of 16/);
    reader.append(Buffer.from('{"a":1}\n'));
    assert.throws(() => reader.readMessage(), /wrong shape|invalid JSON-RPC/);
  });

  test('useStdioMessageReader keeps the size limit and leaves an unknown transport alone', () => {
    const sdkLike: { _readBuffer: unknown } = {
      _readBuffer: { append() {}, readMessage() {}, clear() {}, _maxBufferSize: 8 },
    };
    useStdioMessageReader(sdkLike);
    const installed = sdkLike._readBuffer;
    assert.ok(installed instanceof StdioMessageReader);
    assert.throws(() => installed.append(Buffer.alloc(9)), /8 bytes/);
    const other = { somethingElse: true };
    useStdioMessageReader(other);
    assert.deepEqual(other, { somethingElse: true });
  });
});

describe('stdio upstream connections use the reader', () => {
  test('a server-everything connection reads through it and its calls answer', async (t) => {
    const connection = openConnection(t, [
      'everything',
      { command: everythingBin, args: ['stdio'] },
      { logger: silent },
    ]);
    const result = await connection.callTool('echo', { message: 'through the reader' });
    assert.deepEqual(result.content, [{ type: 'text', text: 'Echo: through the reader' }]);
    const transport = (await connection.client()).transport as unknown as { _readBuffer: unknown };
    assert.ok(transport._readBuffer instanceof StdioMessageReader);
  });
});
