// 2026 `subscriptions/listen` streams are bounded (issue 29, items 1 and 14): a listen naming
// too many URIs or bytes is refused, one client (principal, else address) holds at most
// max_listens_per_caller streams and all together max_listens, and a flood of huge listens
// leaves the server up. Real servers, real HTTP: raw requests as an attacker sends them, from
// several loopback addresses, and the official SDK client.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { endProcessGroup } from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createServer } from '../server.ts';
import {
  DEFAULT_MAX_LISTENS_PER_CALLER,
  MAX_LISTEN_BYTES,
  MAX_LISTEN_URIS,
} from './listenLimits.ts';

type After = { after: (fn: () => unknown) => void };

interface Listen {
  /** The first JSON-RPC message: the acknowledgement, or the refusal. */
  first: { id?: unknown; method?: string; error?: { code: number; message: string } };
  /** Ends the stream from the client's side. */
  close(): void;
}

let nextId = 1;

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};

/** Opens a listen the way a raw client does, from `localAddress` (any 127.x.y.z). */
function listen(
  url: string,
  notifications: Record<string, unknown>,
  localAddress = '127.0.0.1',
): Promise<Listen> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: nextId++,
    method: 'subscriptions/listen',
    params: { _meta: ENVELOPE, notifications },
  });
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'POST',
      localAddress,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('error', () => undefined);
      res.on('data', (chunk: string) => {
        text += chunk;
        // A JSON answer is whole at its end; an SSE stream's first event ends with a blank line.
        const data = /^data: (.*)$/m.exec(text);
        if (data && text.includes('\n\n')) {
          resolve({ first: JSON.parse(data[1]), close: () => req.destroy() });
        }
      });
      res.on('end', () => {
        if (!text.startsWith('{')) return;
        resolve({ first: JSON.parse(text), close: () => req.destroy() });
      });
    });
    req.end(body);
  });
}

const ACKNOWLEDGED = 'notifications/subscriptions/acknowledged';

/** Opens listens until one is acknowledged: a closed stream frees its slot once the server sees it close. */
async function eventuallyAcknowledged(open: () => Promise<Listen>): Promise<Listen> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const opened = await open();
    if (opened.first.method === ACKNOWLEDGED) return opened;
    await sleep(20);
  }
  assert.fail('the freed slot never came back');
}

const uris = (count: number, length = 20) =>
  Array.from({ length: count }, (_, i) => `mem://${String(i).padStart(length - 6, '0')}`);

test('a listen naming too many URIs or too many bytes is refused with -32602; one that fits is acknowledged', async (t) => {
  const server = createServer({ transport: 'http', port: 0 });
  const url = (await server.start()) as string;
  t.after(() => server.close());

  const many = await listen(url, { resourceSubscriptions: uris(MAX_LISTEN_URIS + 1) });
  assert.equal(many.first.error?.code, -32602);
  assert.match(many.first.error?.message ?? '', /257 URIs, more than the 256/);

  const long = uris(100, Math.ceil(MAX_LISTEN_BYTES / 100) + 10);
  const big = await listen(url, { resourceSubscriptions: long });
  assert.equal(big.first.error?.code, -32602);
  assert.match(big.first.error?.message ?? '', /bytes, more than the 32768 a listen may hold/);

  const fits = await listen(url, {
    toolsListChanged: true,
    resourceSubscriptions: uris(MAX_LISTEN_URIS),
  });
  assert.equal(fits.first.method, ACKNOWLEDGED, JSON.stringify(fits.first));
  fits.close();

  // The official client hears the refusal as a protocol error with the reason.
  const client = new Client(
    { name: 'listener', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  t.after(() => client.close());
  await assert.rejects(
    client.listen({ resourceSubscriptions: uris(MAX_LISTEN_URIS + 1) }),
    /more than the 256 one subscriptions\/listen may name/,
  );
});

test('listens are capped per caller and in total, a refusal names the setting, a closed listen frees its slot', async (t) => {
  const server = createServer({
    transport: 'http',
    port: 0,
    maxListens: 3,
    maxListensPerCaller: 2,
  });
  const url = (await server.start()) as string;
  t.after(() => server.close());
  const filter = { toolsListChanged: true };
  const [a, b, c] = ['127.0.0.2', '127.0.0.3', '127.0.0.4'];

  const mine = [await listen(url, filter, a), await listen(url, filter, a)];
  for (const held of mine) assert.equal(held.first.method, ACKNOWLEDGED);
  const third = await listen(url, filter, a);
  assert.equal(third.first.error?.code, -32000);
  assert.match(third.first.error?.message ?? '', /for this client \(2, .*max_listens_per_caller\)/);

  const other = await listen(url, filter, b);
  assert.equal(other.first.method, ACKNOWLEDGED, 'another address has slots of its own');
  const full = await listen(url, filter, c);
  assert.equal(full.first.error?.code, -32000);
  assert.match(full.first.error?.message ?? '', /on this server \(3, .*max_listens\)/);

  mine[0].close();
  const again = await eventuallyAcknowledged(() => listen(url, filter, c));
  assert.equal(again.first.method, ACKNOWLEDGED);
  for (const held of [mine[1], other, again]) held.close();
});

const FIXTURE = fileURLToPath(new URL('../__fixtures__/httpServer.ts', import.meta.url));

/** The fixture server in a child process with a `heapMb` heap; resolves with its URL. */
async function boundedServer(
  t: After,
  heapMb: number,
): Promise<{ url: string; child: ChildProcess; stderr: () => string }> {
  const child = spawn(
    process.execPath,
    [`--max-old-space-size=${heapMb}`, '--import', 'tsx', FIXTURE, '{}'],
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  t.after(() => endProcessGroup(child, exited));
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
      const found = /serving MCP at (\S+)/.exec(stderr);
      if (found) resolve(found[1]);
    });
    void exited.then(() => reject(new Error(`the server exited: ${stderr}`)));
  });
  return { url, child, stderr: () => stderr };
}

test('a flood of 4 MB listens leaves the server up and answering within a 96 MB heap', async (t) => {
  const { url, child, stderr } = await boundedServer(t, 96);
  // ~125,000 URIs in one 4 MB body: before the bounds each such stream held ~18 MB.
  const huge = { resourceSubscriptions: uris(125_000, 30) };
  const answers: Listen['first'][] = [];
  const held: Listen[] = [];
  for (let i = 0; i < 24; i++) {
    const opened = await listen(url, huge).catch(() => undefined);
    if (!opened) break;
    held.push(opened);
    answers.push(opened.first);
  }
  const died = () =>
    `the server died (${child.signalCode ?? child.exitCode}): ${stderr().slice(-400)}`;
  assert.equal(answers.length, 24, died());
  for (const first of answers) assert.equal(first.error?.code, -32602, JSON.stringify(first));
  for (const open of held) open.close();
  const tools = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { _meta: ENVELOPE },
    }),
  });
  assert.equal(tools.status, 200);
  assert.match(await tools.text(), /"tools"/);
});

const STDIO_SERVER = fileURLToPath(new URL('../__fixtures__/stdioServer.ts', import.meta.url));

test('over stdio a listen too large gets -32602 and the connection holds at most max_listens_per_caller', async (t) => {
  const child = spawn(process.execPath, ['--import', 'tsx', STDIO_SERVER], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  t.after(() => child.kill('SIGKILL'));
  const answers = new Map<unknown, Listen['first']>();
  let waiter: (() => void) | undefined;
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as Listen['first'] & {
      params?: { _meta?: Record<string, unknown> };
    };
    const id = message.id ?? message.params?._meta?.['io.modelcontextprotocol/subscriptionId'];
    answers.set(id, message);
    waiter?.();
  });
  const answerTo = async (id: string) => {
    while (!answers.has(id)) await new Promise<void>((resolve) => (waiter = resolve));
    return answers.get(id) as Listen['first'];
  };
  const send = (id: string, method: string, params: Record<string, unknown> = {}) =>
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: ENVELOPE } })}\n`,
    );

  send('discover', 'server/discover');
  assert.ok((await answerTo('discover')) !== undefined);
  send('too-many', 'subscriptions/listen', {
    notifications: { resourceSubscriptions: uris(MAX_LISTEN_URIS + 1) },
  });
  const refused = await answerTo('too-many');
  assert.equal(refused.error?.code, -32602);
  assert.match(
    refused.error?.message ?? '',
    /more than the 256 one subscriptions\/listen may name/,
  );

  for (let i = 0; i < DEFAULT_MAX_LISTENS_PER_CALLER; i++) {
    send(`l${i}`, 'subscriptions/listen', { notifications: { toolsListChanged: true } });
    assert.equal((await answerTo(`l${i}`)).method, ACKNOWLEDGED);
  }
  send('one-more', 'subscriptions/listen', { notifications: { toolsListChanged: true } });
  assert.match((await answerTo('one-more')).error?.message ?? '', /limit/i);
});
