import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { spawnTiedToTest } from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const EXAMPLE = fileURLToPath(new URL('./standalone.ts', import.meta.url));
const ARGS = ['--import', 'tsx', EXAMPLE];

async function hello(client: Client): Promise<string> {
  const result = await client.callTool({ name: 'hello', arguments: { name: 'Ada' } });
  return (result.content as Array<{ text: string }>)[0].text;
}

test('the README standalone example serves its tool over stdio', async (t) => {
  const client = new Client({ name: 'example-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: ARGS, stderr: 'ignore' }),
  );
  t.after(() => client.close());
  assert.deepEqual(
    (await client.listTools()).tools.map((tool) => tool.name),
    ['hello'],
  );
  assert.equal(await hello(client), 'Hello, Ada!');
});

test('the same example serves HTTP when the environment says so', async (t) => {
  const child = spawnTiedToTest(process.execPath, ARGS, {
    env: { ...process.env, MCP_TRANSPORT: 'http', MCP_PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  t.after(() => child.kill('SIGKILL'));
  const url = await new Promise<URL>((resolve, reject) => {
    let seen = '';
    child.stderr.on('data', (chunk) => {
      seen += chunk;
      const match = /MCP endpoint: (\S+)/.exec(seen);
      if (match) resolve(new URL(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`example exited ${code}: ${seen}`)));
  });
  const client = new Client({ name: 'example-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  t.after(() => client.close());
  assert.equal(await hello(client), 'Hello, Ada!');
});
