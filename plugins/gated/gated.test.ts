import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Secret, TOTP } from 'otpauth';

const FACTORY = fileURLToPath(new URL('../../packages/proxy/bin/mcp-factory.js', import.meta.url));
const textOf = (r: unknown) => (r as { content: { text: string }[] }).content[0].text;

test('mcp-factory -p gated: the demo tool is locked until gate_unlock with the current code', async (t) => {
  const secret = new Secret({ size: 20 }).base32;
  const stderr: string[] = [];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [FACTORY, '-p', 'gated'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      MCP_GATE_SECRET_SECRETS: secret,
      // The sources, as every test runs them (scripts/run-tests.mjs): `gated` is not in dist/.
      MCPBOX_BIN: process.env.MCPBOX_BIN ?? 'dist',
    },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk) => stderr.push(String(chunk)));
  const client = new Client({ name: 'gated-test', version: '1.0.0' });
  await client.connect(transport);
  t.after(() => client.close());

  const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
  assert.deepEqual(names, ['gate_lock', 'gate_status', 'gate_unlock', 'gated_secret_action']);
  const locked = await client.callTool({
    name: 'gated_secret_action',
    arguments: { what: 'rotate keys' },
  });
  assert.equal(locked.isError, true);
  assert.equal(
    textOf(locked),
    "Group 'secrets' is locked. Call gate_unlock(group='secrets', code='<6-digit code from your authenticator>') first.",
  );
  const code = TOTP.generate({ secret: Secret.fromBase32(secret) });
  const unlocked = await client.callTool({
    name: 'gate_unlock',
    arguments: { group: 'secrets', code },
  });
  assert.equal(textOf(unlocked), "Group 'secrets' unlocked. Auto-lock after 10m of inactivity.");
  assert.equal(
    textOf(
      await client.callTool({ name: 'gated_secret_action', arguments: { what: 'rotate keys' } }),
    ),
    'Done: rotate keys',
  );
  const replay = await client.callTool({
    name: 'gate_unlock',
    arguments: { group: 'secrets', code },
  });
  assert.match(textOf(replay), /^This code was already used\./);
  await client.callTool({ name: 'gate_lock', arguments: {} });
  assert.equal(
    (await client.callTool({ name: 'gated_secret_action', arguments: { what: 'x' } })).isError,
    true,
  );

  await client.close();
  const log = stderr.join('');
  assert.ok(!log.includes(secret) && !log.includes(code), 'neither secret nor code on stderr');
  assert.match(log, /gate: group 'secrets' unlocked/);
});
