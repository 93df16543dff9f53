/**
 * HTTP APIs as tools, as a user meets them: a real pet-shop API on loopback (a Node server with
 * its OpenAPI 3.1 document, and a 3.0 document split over three files), served by the real
 * mcp-factory and mcp-proxy bins to SDK clients of both eras.
 *
 * Seen here: the tools and their schemas; calls with path, query, header, cookie and body
 * parameters in the document's styles; JSON, form and multipart bodies; a 404 and a 500 as tool
 * errors with the API's body (cut); API keys in a header and the query, a bearer token and OAuth
 * client credentials (one token for many calls), their values never in the logs; redirects to
 * another host refused; an answer in HTML or cut JSON; a call cancelled by its client and one
 * timed out; and `mcp-proxy load` of an API at run time, a bad document failing clearly while
 * the proxy serves on.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ERAS, type Era, versionOfEra } from '@mcpbox/framework';
import {
  FACTORY_BIN,
  REPO_ROOT,
  runProxyCli,
  runServerBin,
  startHttpProxy,
  textOf,
  waitFor,
} from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  API_KEY,
  type Api,
  BEARER,
  CLIENT_ID,
  CLIENT_SECRET,
  QUERY_KEY,
  startApi,
} from '../../../framework/src/openapi/__fixtures__/api.ts';
import { testdir } from './__fixtures__/testdir.ts';

type After = { after(fn: () => unknown): void };
/** What the tests read of a listed JSON Schema. */
type Schema = {
  properties: Record<string, Schema>;
  items: Schema;
  description?: string;
  default?: unknown;
};

const FIXTURES = join(REPO_ROOT, 'packages/framework/src/openapi/__fixtures__');
const SECRETS = [API_KEY, BEARER, QUERY_KEY, CLIENT_SECRET];
/** The secrets as the environment gives them to the config's placeholders. */
const ENV = {
  PETS_KEY: API_KEY,
  PETS_BEARER: BEARER,
  PETS_QUERY_KEY: QUERY_KEY,
  REPORTS: CLIENT_SECRET,
};

/** A `${NAME}` placeholder, as the config file has it. */
const env = (name: string) => `\${${name}}`;

/** The `pets` entry over `spec`, its credentials as placeholders (never in the file). */
function petsEntry(api: Api, spec = 'pets-3.1.yaml', extra: string[] = []): string[] {
  return [
    '  pets:',
    '    openapi:',
    `      spec: ${join(FIXTURES, spec)}`,
    `      base_url: ${api.url}`,
    '      timeout: 5',
    ...extra,
    '      operations: { deletePet: { name: remove_pet, description: Removes a pet for good } }',
    '      auth:',
    `        apiKey: { key: "${env('PETS_KEY')}" }`,
    `        queryKey: { key: "${env('PETS_QUERY_KEY')}" }`,
    `        bearer: { token: "${env('PETS_BEARER')}" }`,
    `        oauth: { client_id: ${CLIENT_ID}, client_secret: "\${secret:REPORTS}" }`,
  ];
}

/** A folder with `config.yaml` (the tool-call log goes to its `logs/`). */
function config(t: After, lines: string[]): string {
  const text = ['tool_log_dir: logs', 'secrets: { backend: env }', ...lines, ''];
  return testdir({ 'config.yaml': text.join('\n') }, t);
}

async function connect(t: After, url: string, era: Era): Promise<Client> {
  const client = new Client(
    { name: `openapi-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  t.after(() => client.close());
  return client;
}

async function factory(t: After, dir: string) {
  const proc = await runServerBin(
    t,
    FACTORY_BIN,
    ['-c', join(dir, 'config.yaml'), '-p', 'pets', '--http', '0'],
    /MCP endpoint:\s+(\S+)/,
    { env: { HOME: dir, ...ENV } },
  );
  assert.ok(proc.match, proc.stderr());
  return { url: proc.match[1] as string, stderr: proc.stderr };
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args });

test('mcp-factory serves an OpenAPI 3.1 API in both eras: tools, schemas, calls, errors, auth', async (t) => {
  const api = await startApi(t);
  const dir = config(t, ['plugins:', ...petsEntry(api)]);
  const served = await factory(t, dir);
  for (const era of ERAS) {
    const client = await connect(t, served.url, era);
    const tools = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
    assert.ok(tools.has('listPets') && tools.has('remove_pet') && !tools.has('deletePet'), era);
    assert.ok(!tools.has('postXml'), 'an operation with only an XML body is left out');

    const list = tools.get('listPets')!;
    assert.equal(list.description, 'List pets\n\nPets in the shop, the first `limit` of them.');
    assert.deepEqual(list.annotations, {
      title: 'List pets',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    assert.deepEqual(list.inputSchema.properties?.limit, {
      type: 'integer',
      minimum: 1,
      default: 10,
    });
    assert.equal(list.outputSchema?.type, 'object');
    const create = tools.get('createPet')!.inputSchema as unknown as {
      properties: { body: { properties: Record<string, unknown>; required: string[] } };
      required: string[];
    };
    // `id` is readOnly: the server sets it, the caller does not give it.
    assert.deepEqual(Object.keys(create.properties.body.properties), ['name', 'tag', 'owner']);
    assert.deepEqual(create.properties.body.required, ['name']);
    assert.deepEqual(create.required, ['body']);
    const remove = tools.get('remove_pet')!;
    assert.equal(remove.description, 'Removes a pet for good');
    assert.equal(remove.annotations?.destructiveHint, true);

    const pet = await call(client, 'getPet', { petId: 2 });
    assert.deepEqual(pet.structuredContent, { id: 2, name: 'Tom', tag: 'cat', owner: 'ada' });
    assert.deepEqual(JSON.parse(textOf(pet)), pet.structuredContent);

    const listed = await call(client, 'listPets', {
      limit: 1,
      tags: ['a', 'b'],
      filter: { kind: 'dog' },
    });
    const query = (listed.structuredContent as { query: string }).query;
    assert.equal(decodeURIComponent(query), '?limit=1&tags=a&tags=b&filter[kind]=dog');

    const created = await call(client, 'createPet', { body: { name: 'Kit', tag: 'cat' } });
    assert.deepEqual(created.structuredContent, { id: 3, name: 'Kit', tag: 'cat' });

    const missing = await call(client, 'getPet', { petId: 9 });
    assert.equal(missing.isError, true);
    assert.match(
      textOf(missing),
      /GET http:\/\/127\.0\.0\.1:\d+\/pets\/9 answered 404 Not Found: \{"error":"no pet 9"\}/,
    );
    const boom = await call(client, 'boom');
    assert.equal(boom.isError, true);
    assert.match(
      textOf(boom),
      /answered 500 Internal Server Error: database on fire x+ … \(cut\)$/,
    );
    assert.ok(textOf(boom).length < 4300, 'the error body is cut to 4 KiB');

    assert.deepEqual((await call(client, 'whoAmI')).structuredContent, { user: 'ada' });
    assert.deepEqual((await call(client, 'search', { q: 'rex' })).structuredContent, {
      results: ['rex'],
    });
    for (let i = 0; i < 2; i++) {
      const report = await call(client, 'getReport');
      assert.deepEqual(report.structuredContent, { report: 'ok', token: 'tok-1' });
    }
  }
  assert.equal(api.tokens, 1, 'one token serves every call until it expires');
  const sent = api.requests.filter((r) => r.url.startsWith('/pets'));
  assert.ok(sent.every((r) => r.headers['x-api-key'] === API_KEY));
  const token = api.requests.find((r) => r.url === '/token')!;
  assert.match(token.body, /grant_type=client_credentials&scope=reports.read/);

  // The tool-call log has every call, and none of the credentials.
  const file = join(dir, 'logs', 'tool_calls.jsonl');
  const logged = () => existsSync(file) && readFileSync(file, 'utf8').includes('"getReport"');
  await waitFor(logged, 'the calls in the tool-call log');
  const log = readFileSync(file, 'utf8');
  for (const secret of SECRETS) {
    assert.ok(!log.includes(secret), 'a credential in the tool-call log');
    assert.ok(!served.stderr().includes(secret), 'a credential in the server log');
  }
});

test('serialization styles, form and multipart bodies, answers that are not what was promised', async (t) => {
  const api = await startApi(t);
  const served = await factory(t, config(t, ['plugins:', ...petsEntry(api)]));
  const client = await connect(t, served.url, 'modern');
  const echoed = await call(client, 'echoStyles', {
    ids: [3, 4],
    point: { x: 1, y: 2 },
    tags: ['a', 'b c'],
    ranks: ['x', 'y'],
    'X-Trace': ['t1', 't2'],
    session: 's 1',
  });
  const { url, headers } = echoed.structuredContent as {
    url: string;
    headers: Record<string, string>;
  };
  assert.equal(url, '/echo/.3.4/;point=x,1,y,2?tags=a,b%20c&ranks=x|y');
  assert.equal(headers['x-trace'], 't1,t2');
  assert.equal(headers.cookie, 'session=s%201');

  const form = await call(client, 'sendForm', { body: { name: 'Rex', colors: ['red', 'tan'] } });
  assert.equal(form.isError, undefined, textOf(form));
  assert.deepEqual(JSON.parse(textOf(form)), { fields: { name: ['Rex'], colors: ['red', 'tan'] } });
  const file = Buffer.from('binary \u0000 bytes').toString('base64');
  const upload = await call(client, 'upload', { body: { note: 'photo', file } });
  assert.deepEqual(JSON.parse(textOf(upload)), {
    fields: { note: ['photo'], file: ['binary \u0000 bytes'] },
  });

  const html = await call(client, 'html');
  assert.equal(html.isError, true);
  assert.match(textOf(html), /answered text\/html, not the JSON its document promises/);
  const broken = await call(client, 'broken');
  assert.match(textOf(broken), /answered invalid JSON: \{"pets": \[/);
  const away = await call(client, 'away');
  assert.equal(away.isError, true);
  assert.match(
    textOf(away),
    /redirected to another host \(http:\/\/localhost:\d+\), which is not followed/,
  );
  assert.ok(!api.requests.some((r) => r.headers.host?.startsWith('localhost')));
  const moved = await call(client, 'moved');
  assert.equal((moved.structuredContent as { pets: unknown[] }).pets.length, 2);
  const bad = await call(client, 'getPet', { petId: 'two' });
  assert.equal(bad.isError, true, 'arguments are checked against the input schema');
});

test('a 3.0 document split over files: $refs across files, nullable, recursion, generated names', async (t) => {
  const api = await startApi(t);
  const served = await factory(
    t,
    config(t, [
      'plugins:',
      '  pets:',
      '    openapi:',
      `      spec: ${join(FIXTURES, 'split/openapi.yaml')}`,
      `      base_url: ${api.url}`,
      `      auth: { apiKey: { key: "${env('PETS_KEY')}" } }`,
    ]),
  );
  const client = await connect(t, served.url, 'legacy');
  const tools = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
  assert.deepEqual([...tools.keys()].sort(), ['fetchPet', 'post_pets', 'putTree']);
  assert.deepEqual(tools.get('fetchPet')!.inputSchema.properties?.petId, {
    type: 'integer',
    exclusiveMinimum: 0,
    description: 'which pet',
  });
  const body = (tools.get('post_pets')!.inputSchema.properties as Record<string, Schema>).body;
  assert.deepEqual(body.properties.tag, { type: ['string', 'null'], enum: ['dog', 'cat', null] });
  assert.ok('secret' in body.properties && !('id' in body.properties));
  assert.ok(!('secret' in (tools.get('fetchPet')!.outputSchema!.properties as object)));
  const tree = (tools.get('putTree')!.inputSchema.properties as Record<string, Schema>).body;
  assert.equal(tree.properties.label.default, 'root');
  assert.match(tree.properties.children.items.description ?? '', /recursive/);
  const pet = await call(client, 'fetchPet', { petId: 1 });
  assert.equal(pet.isError, undefined, textOf(pet));
  assert.equal(api.requests.at(-1)?.url, '/pets/1');
});

test('a call ends when its client cancels it, or at the timeout', async (t) => {
  const api = await startApi(t);
  const served = await factory(
    t,
    config(t, ['plugins:', ...petsEntry(api).map((l) => l.replace('timeout: 5', 'timeout: 1'))]),
  );
  const client = await connect(t, served.url, 'modern');
  const timedOut = await call(client, 'slow');
  assert.equal(timedOut.isError, true);
  assert.match(
    textOf(timedOut),
    /GET http:\/\/127\.0\.0\.1:\d+\/slow: no answer within 1 s \(timeout\)/,
  );
  await waitFor(() => api.abandoned === 1, 'the timed-out request to end');

  const controller = new AbortController();
  const cancelled = client.callTool({ name: 'slow', arguments: {} }, { signal: controller.signal });
  await waitFor(
    () => api.requests.filter((r) => r.url === '/slow').length === 2,
    'the second request to arrive',
  );
  controller.abort();
  await assert.rejects(cancelled);
  await waitFor(() => api.abandoned === 2, 'the cancelled request to end');
});

test('mcp-proxy loads an API at run time; a bad document fails clearly and the proxy serves on', async (t) => {
  const api = await startApi(t);
  const dir = config(t, [
    'plugins:',
    ...petsEntry(api),
    '  broken:',
    `    openapi: { spec: ${join(FIXTURES, 'bad.yaml')}, base_url: ${api.url} }`,
    '  old:',
    `    openapi: { spec: ${join(FIXTURES, 'swagger-2.json')} }`,
    '  nobase:',
    `    openapi: { spec: ${join(FIXTURES, 'noserver.yaml')} }`,
    '  typo:',
    `    openapi: { spec: ${join(FIXTURES, 'noserver.yaml')}, timout: 3 }`,
  ]);
  const proxy = await startHttpProxy(t, ['-c', join(dir, 'config.yaml')], {
    env: { HOME: dir, MCP_MGMT_TOKEN: '', ...ENV },
  });
  const cli = (...args: string[]) => runProxyCli([...args, '--mgmt-port', String(proxy.mgmtPort)]);
  const client = await connect(t, proxy.mcpUrl, 'legacy');
  assert.ok(!(await client.listTools()).tools.some((tool) => tool.name.startsWith('pets')));

  const loaded = await cli('load', 'pets');
  assert.equal(loaded.code, 0, loaded.stderr);
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  assert.ok(names.includes('getPet'), names.join(' '));
  const pet = await call(client, 'getPet', { petId: 1 });
  assert.equal((pet.structuredContent as { name: string }).name, 'Rex');

  const broken = await cli('load', 'broken');
  assert.notEqual(broken.code, 0);
  assert.match(
    broken.stderr + broken.stdout,
    /OpenAPI document \S+bad\.yaml is not valid: .*version/,
  );
  const old = await cli('load', 'old');
  assert.match(old.stderr + old.stdout, /Swagger 2\.0 is not supported; convert it to OpenAPI 3/);

  const nobase = await cli('load', 'nobase');
  assert.match(
    nobase.stderr + nobase.stdout,
    /the document's server URL "\/api" is relative to a file: set plugins\.nobase\.openapi\.base_url/,
  );
  const typo = await cli('load', 'typo');
  assert.match(typo.stderr + typo.stdout, /plugins\.typo\.openapi: unknown key\(s\) timout/);

  const modern = await connect(t, proxy.mcpUrl, 'modern');
  const rex = await call(modern, 'getPet', { petId: 1 });
  assert.equal((rex.structuredContent as { name: string }).name, 'Rex');

  const reloaded = await cli('reload', 'pets');
  assert.equal(reloaded.code, 0, reloaded.stderr);
  assert.equal((await call(client, 'getPet', { petId: 2 })).isError, undefined);
  for (const secret of SECRETS) assert.ok(!proxy.stderr().includes(secret));
});

test('mcp-proxy openapi inspect lists the tools and what it leaves out', async () => {
  const run = await runProxyCli(['openapi', 'inspect', join(FIXTURES, 'pets-3.1.yaml')]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^Pet shop 1\.0 \(OpenAPI 3\.1\.0\): 16 tools$/m);
  assert.match(run.stdout, /^getPet {2}GET \/pets\/\{petId\} {2}\[read-only, idempotent\]$/m);
  assert.match(run.stdout, /^ {4}petId\*: integer \(path\)$/m);
  assert.match(
    run.stdout,
    /postXml \(POST \/feeds\): not served: its request body is only application\/xml/,
  );
  assert.match(
    run.stdout,
    /\(GET \/feeds\): not served: parameter 'id' is both in query and in header/,
  );

  const clash = await runProxyCli(['openapi', 'inspect', join(FIXTURES, 'clash.yaml')]);
  assert.equal(clash.code, 1);
  assert.match(clash.stderr, /GET \/a\/b and GET \/a_b would both be the tool 'get_a_b'/);
});
