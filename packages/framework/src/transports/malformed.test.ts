// Malformed messages get the JSON-RPC error the spec asks for, on every transport (issue 29,
// item 11): a body nested ~5,000 deep was an HTTP 500 (-32603) on every HTTP route and both eras,
// and over stdio `null`, `42`, `[]`, `{"id": {}}` and a batch got no answer at all. Real servers
// (createServer over HTTP in-process, over stdio as a child process), raw bytes on the wire.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  kitchenServer,
  RAW_INITIALIZE,
  RAW_POST_HEADERS,
  rawInitialize,
} from '../__fixtures__/testServer.ts';

const DEPTH = 5000;
const deepArray = `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;
const deepObject = `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`;
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};
/** A request of the given era whose arguments hide `deep`. */
const deepCall = (id: number, modern: boolean, deep: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'echo', arguments: { message: 'x' }, ...(modern && { _meta: ENVELOPE }) },
  }).replace('"x"}', `"x","deep":${deep}}`);

const MODERN_HEADERS = {
  ...RAW_POST_HEADERS,
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'echo',
};

/** Asserts a 400 with the Invalid Request error for `id`. */
async function assertTooDeep(response: Response, id: number | null, route: string) {
  const text = await response.text();
  assert.equal(response.status, 400, `${route}: ${text}`);
  const answer = JSON.parse(text) as { id: unknown; error: { code: number; message: string } };
  assert.equal(answer.error.code, -32600, route);
  assert.equal(answer.id, id, route);
  assert.match(answer.error.message, /more than 256 levels deep/, route);
}

test('a body nested 5,000 deep gets 400 Invalid Request on every HTTP route and both eras', async (t) => {
  const server = await kitchenServer({ transport: 'http', port: 0 });
  const url = (await server.start()) as string;
  t.after(() => server.close());
  const session = await rawInitialize(url);
  const legacy = { ...RAW_POST_HEADERS, 'mcp-session-id': session };
  const post = (target: string, headers: Record<string, string>, body: string) =>
    fetch(target, { method: 'POST', headers, body });
  // The fast lane, and the Express app (a query string, as with OAuth or any middleware).
  for (const target of [url, `${url}?via=app`]) {
    await assertTooDeep(await post(target, RAW_POST_HEADERS, deepArray), null, `${target} array`);
    await assertTooDeep(await post(target, RAW_POST_HEADERS, deepObject), null, `${target} object`);
    await assertTooDeep(
      await post(target, legacy, deepCall(7, false, deepArray)),
      7,
      `${target} 2025`,
    );
    await assertTooDeep(
      await post(target, MODERN_HEADERS, deepCall(8, true, deepObject)),
      8,
      `${target} 2026`,
    );
  }
  // Legacy SSE: the message endpoint of an open stream.
  const stream = await fetch(url.replace(/\/mcp$/, '/sse'), {
    headers: { accept: 'text/event-stream' },
  });
  const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
  let events = '';
  while (!/data: (\S+)/.test(events))
    events += new TextDecoder().decode((await reader.read()).value);
  const endpoint = new URL((/data: (\S+)/.exec(events) as RegExpExecArray)[1], url).href;
  await assertTooDeep(
    await post(endpoint, RAW_POST_HEADERS, deepCall(9, false, deepArray)),
    9,
    'sse',
  );
  void reader.cancel();

  // Still serving, and nesting that real messages use passes.
  const fine = await post(url, legacy, deepCall(10, false, '[[[[[[[[[[1]]]]]]]]]]'));
  assert.equal(fine.status, 200);
  assert.match(await fine.text(), /"text":"x"/);
});

const STDIO_SERVER = fileURLToPath(new URL('../__fixtures__/stdioServer.ts', import.meta.url));

test('over stdio null, 42, [], {"id": {}}, a batch and a deep line get -32600; serving goes on', async (t) => {
  const child = spawn(process.execPath, ['--import', 'tsx', STDIO_SERVER], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  t.after(() => child.kill('SIGKILL'));
  const lines = createInterface({ input: child.stdout });
  const queue: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (line) => (waiting.shift() ?? ((l: string) => queue.push(l)))(line));
  const next = async () =>
    JSON.parse(queue.shift() ?? (await new Promise<string>((r) => waiting.push(r)))) as {
      id: unknown;
      result?: { tools?: unknown[] };
      error?: { code: number; message: string };
    };
  const send = (line: string) => child.stdin.write(`${line}\n`);

  send(JSON.stringify(RAW_INITIALIZE));
  assert.equal((await next()).id, 1);
  send('{"jsonrpc":"2.0","method":"notifications/initialized"}');

  const cases: [string, unknown, RegExp][] = [
    ['null', null, /must be a JSON object/],
    ['42', null, /must be a JSON object/],
    ['[]', null, /batches are not supported/],
    ['{"id": {}}', null, /jsonrpc must be "2.0"/],
    ['{"jsonrpc":"2.0","id":{},"method":"tools/list"}', null, /id must be a string or a number/],
    ['[{"jsonrpc":"2.0","id":5,"method":"tools/list"}]', null, /batches are not supported/],
    [deepObject, null, /more than 256 levels deep/],
    [deepCall(6, false, deepObject), 6, /more than 256 levels deep/],
  ];
  for (const [index, [line, id, message]] of cases.entries()) {
    // A ping right behind it: without an answer to the bad line, the ping's comes first.
    send(line);
    send(JSON.stringify({ jsonrpc: '2.0', id: `ping-${index}`, method: 'ping' }));
    const answer = await next();
    assert.equal(answer.id, id, line.slice(0, 60));
    assert.equal(answer.error?.code, -32600, line.slice(0, 60));
    assert.match(answer.error?.message ?? '', message, line.slice(0, 60));
    assert.equal((await next()).id, `ping-${index}`);
  }
  send('{"jsonrpc":"2.0","id":11,"method":"tools/list"}');
  const listed = await next();
  assert.equal(listed.id, 11);
  assert.ok((listed.result?.tools ?? []).length > 0, 'still serving after the bad input');
});
