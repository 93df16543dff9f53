import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  formatCallResult,
  formatError,
  formatInfo,
  formatListChange,
  formatPromptResult,
  formatPrompts,
  formatReadResult,
  formatResources,
  formatTools,
} from './format.ts';

test('tools: signature with optional parameters marked, first line of the description', () => {
  const text = formatTools([
    {
      name: 'search',
      description: 'Finds things.\nLong explanation.',
      inputSchema: {
        type: 'object',
        properties: { query: { type: 'string' }, limit: { type: 'number' } },
        required: ['query'],
      },
    },
    { name: 'ping', inputSchema: { type: 'object' } },
  ]);
  assert.equal(text, '2 tools:\n  search(query, limit?) — Finds things.\n  ping()');
  assert.equal(formatTools([]), 'No tools.');
});

test('a call result: text as is, binary as a size, structured content as pretty JSON', () => {
  const png = Buffer.alloc(300).toString('base64');
  const text = formatCallResult({
    content: [
      { type: 'text', text: 'Here it is' },
      { type: 'image', mimeType: 'image/png', data: png },
      { type: 'audio', mimeType: 'audio/wav', data: Buffer.alloc(5).toString('base64') },
      { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' },
      { type: 'resource', resource: { uri: 'mem://x', text: 'inline' } },
    ],
    structuredContent: { n: 1 },
  });
  assert.equal(
    text,
    [
      'Here it is',
      '[image image/png, 300 bytes]',
      '[audio audio/wav, 5 bytes]',
      '[resource link file:///a.txt (a.txt)]',
      '[resource mem://x]\ninline',
      'structuredContent:\n{\n  "n": 1\n}',
    ].join('\n'),
  );
});

test('an isError result is marked as a tool error', () => {
  const text = formatCallResult({ isError: true, content: [{ type: 'text', text: 'boom' }] });
  assert.equal(text, 'Tool error (isError):\nboom');
  assert.equal(formatCallResult({ content: [] }), '(no content)');
});

test('resources, templates, read results and prompts', () => {
  assert.equal(
    formatResources(
      [{ uri: 'mem://a', name: 'A', mimeType: 'text/plain', description: 'first' }],
      [{ uriTemplate: 'mem://{id}', name: 'by id' }],
    ),
    '1 resource:\n  mem://a  A (text/plain) — first\n1 resource template:\n  mem://{id}',
  );
  assert.equal(formatResources([], []), 'No resources.');
  assert.equal(formatReadResult({ contents: [{ uri: 'mem://a', text: 'hello' }] }), 'hello');
  assert.equal(
    formatReadResult({
      contents: [
        { uri: 'mem://a', text: 'hello' },
        { uri: 'mem://b', blob: Buffer.from('xyz').toString('base64'), mimeType: 'image/gif' },
      ],
    }),
    '[mem://a]\nhello\n[blob mem://b image/gif, 3 bytes]',
  );
  assert.equal(
    formatPrompts([
      { name: 'greet', arguments: [{ name: 'who', required: true }, { name: 'tone' }] },
    ]),
    '1 prompt:\n  greet(who, tone?)',
  );
  assert.equal(
    formatPromptResult({
      description: 'A greeting',
      messages: [{ role: 'user', content: { type: 'text', text: 'Say hi to Ann' } }],
    }),
    'A greeting\n[user] Say hi to Ann',
  );
});

test('info shows name, version, how we connected, capabilities and instructions', () => {
  const text = formatInfo({
    version: { name: 'srv', version: '1.2.3', title: 'The Server' },
    capabilities: { tools: { listChanged: true } },
    instructions: 'Be nice.',
    via: 'stdio (srv, pid 1)',
  });
  assert.match(text, /^Server: srv 1\.2\.3 \(The Server\)\nConnected via: stdio \(srv, pid 1\)\n/);
  assert.match(text, /Capabilities: \{\n {2}"tools": \{\n {4}"listChanged": true/);
  assert.match(text, /Instructions:\nBe nice\.$/);
});

test('list changes: counts and the names that came and went', () => {
  assert.equal(
    formatListChange('tool', ['a', 'b', 'c'], ['a', 'b', 'c', 'd', 'e']),
    'Tool list refreshed: 3 -> 5 tools (+d, +e)',
  );
  assert.equal(
    formatListChange('prompt', ['x', 'y'], ['y']),
    'Prompt list refreshed: 2 -> 1 prompt (-x)',
  );
  assert.equal(
    formatListChange('resource', undefined, ['r']),
    'Resource list refreshed: 1 resource',
  );
});

test('errors name their network cause', () => {
  const err = new TypeError('fetch failed', {
    cause: new Error('connect ECONNREFUSED 127.0.0.1:9'),
  });
  assert.equal(formatError(err), 'fetch failed (connect ECONNREFUSED 127.0.0.1:9)');
  assert.equal(formatError(new Error('plain')), 'plain');
  assert.equal(formatError('text'), 'text');
});
