/**
 * `ServerRegistry` on disk: placeholders stored as written (never a value), mode 0600 outside the
 * workspace, entries dropped when their `mcptools/<name>/` is gone, literal secrets refused, a
 * corrupt file ignored with a warning.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { literalSecretFields, registryFile, ServerRegistry } from './registry.ts';

// biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${VAR} placeholder
const TOKEN_PLACEHOLDER = '${API_TOKEN}';
const TOKEN_HEADER = `Bearer ${TOKEN_PLACEHOLDER}`;

async function setUp(t: { after(fn: () => Promise<void>): void }) {
  const dir = await mkdtemp(join(tmpdir(), 'ipybox-registry-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const workspace = join(dir, 'ws');
  await mkdir(join(workspace, 'mcptools', 'api'), { recursive: true });
  const warnings: string[] = [];
  const options = {
    env: { XDG_STATE_HOME: join(dir, 'state'), API_TOKEN: 'tok-value-never-stored' },
    logger: { info() {}, warn: (line: string) => warnings.push(line) },
  };
  return { workspace, options, warnings, file: registryFile(workspace, options.env) };
}

test('a registration is stored with its placeholders, 0600, outside the workspace, and read back', async (t) => {
  const { workspace, options, file } = await setUp(t);
  const registry = await ServerRegistry.open(workspace, options);
  const params = { url: 'https://api.example/mcp', headers: { Authorization: TOKEN_HEADER } };
  assert.equal(await registry.remember('api', params), undefined);

  assert.ok(!file.startsWith(workspace), file);
  assert.equal((await stat(file)).mode & 0o777, 0o600);
  const text = await readFile(file, 'utf8');
  assert.ok(text.includes(TOKEN_HEADER));
  assert.ok(!text.includes('tok-value-never-stored'));

  const again = await ServerRegistry.open(workspace, options);
  assert.deepEqual(Object.fromEntries(again.servers), { api: params });
});

test('an entry whose mcptools/<name>/ was deleted is forgotten at the next start', async (t) => {
  const { workspace, options, file } = await setUp(t);
  const registry = await ServerRegistry.open(workspace, options);
  await registry.remember('api', { command: 'api-server' });
  await rm(join(workspace, 'mcptools', 'api'), { recursive: true });

  const again = await ServerRegistry.open(workspace, options);
  assert.equal(again.servers.size, 0);
  assert.deepEqual(JSON.parse(await readFile(file, 'utf8')).servers, {});
});

test('a literal secret is not remembered, says where it is, and drops the earlier entry', async (t) => {
  const { workspace, options } = await setUp(t);
  const registry = await ServerRegistry.open(workspace, options);
  await registry.remember('api', { command: 'api-server' });
  const note = await registry.remember('api', {
    url: 'https://api.example/mcp',
    headers: { Authorization: 'Bearer sk-live-4f9a8b7c6d5e' },
  });
  assert.match(note ?? '', /literal secret in headers\.Authorization.*\$\{VAR\} placeholder/);
  assert.equal((await ServerRegistry.open(workspace, options)).servers.size, 0);
});

test('which fields count as literal secrets', () => {
  assert.deepEqual(literalSecretFields({ command: 'npx', args: ['server', 'stdio'] }), []);
  assert.deepEqual(
    literalSecretFields({ command: 'x', env: { API_KEY: TOKEN_PLACEHOLDER, DEBUG: '1' } }),
    [],
  );
  assert.deepEqual(literalSecretFields({ command: 'x', env: { API_KEY: 'abc123' } }), [
    'env.API_KEY',
  ]);
  assert.deepEqual(literalSecretFields({ url: 'https://user:pw@host.example/mcp' }), ['url']);
  assert.deepEqual(
    literalSecretFields({
      command: 'x',
      args: ['--token', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'],
    }),
    ['args.1'],
  );
});

test('a corrupt registry file is ignored with a warning, and replaced by the next registration', async (t) => {
  const { workspace, options, warnings, file } = await setUp(t);
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, '{ not json');
  const registry = await ServerRegistry.open(workspace, options);
  assert.equal(registry.servers.size, 0);
  assert.match(
    warnings.join('\n'),
    /ignoring the MCP server registry .*register the servers again/,
  );
  await registry.remember('api', { command: 'api-server' });
  assert.equal((await ServerRegistry.open(workspace, options)).servers.size, 1);
});

test('registry files of temporary workspaces that are gone are swept at the next start', async (t) => {
  const { workspace, options } = await setUp(t);
  const gone = join(workspace, '..', 'gone-ws');
  await mkdir(join(gone, 'mcptools', 'api'), { recursive: true });
  await (await ServerRegistry.open(gone, options)).remember('api', { command: 'api-server' });
  const goneFile = registryFile(gone, options.env);
  assert.ok((await stat(goneFile)).isFile());
  await rm(gone, { recursive: true });

  await ServerRegistry.open(workspace, options);
  await assert.rejects(stat(goneFile), { code: 'ENOENT' });
});
