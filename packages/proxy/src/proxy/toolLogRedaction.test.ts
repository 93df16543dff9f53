// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config text with ${VAR} placeholders
/**
 * Secrets that redaction by name and by format used to miss, as a real `mcp-proxy` over HTTP
 * writes them to `tool_calls.jsonl`: `{"name": "password", "value": …}` pairs (as arguments, as
 * JSON text and as YAML), a password told in words, `pw=`, a TOTP code typed into
 * `execute_code`'s source, and the key of a mirrored server's `env` that the server echoes back
 * bare in a result.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { fixtureParams } from '@mcpbox/framework/testing';
import { executeCode, tempWorkspace } from '@mcpbox/ipybox/testing';
import { connectHttp, REPO_ROOT, startHttpProxy } from '@mcpbox/test-utils';
import type { CallToolResult } from '@modelcontextprotocol/client';

/** The upstream that echoes its configured key (the framework's upstream-status fixture). */
const STATUS_SERVER = fixtureParams('upstream-status.ts').args.at(-1) as string;

/** `echo_text` answers its text; `submit_form` answers its fields as JSON. */
const FORMS_PLUGIN = `
export function register(server) {
  server.registerTool('echo_text', {
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  }, ({ text }) => text);
  server.registerTool('submit_form', {
    inputSchema: { type: 'object', properties: { fields: { type: 'array' } }, required: ['fields'] },
  }, ({ fields }) => JSON.stringify(fields));
}
`;

const SERVICE_KEY = 'hush-service-key-2031';
const TOTP_CODE = '461329';

test('tool_calls.jsonl of mcp-proxy: name/value pairs, passwords in words, pw=, codes in source, echoed upstream keys', async (t) => {
  const { dir, remove } = await tempWorkspace('tool-log-redaction-');
  t.after(remove);
  await writeFile(join(dir, 'forms.ts'), FORMS_PLUGIN);
  const config = [
    `tool_log_dir: ${JSON.stringify(join(dir, 'logs'))}`,
    'plugins:',
    '  code_mode:',
    `    workspace: ${JSON.stringify(join(dir, 'workspace'))}`,
    '  service:',
    `    command: ${JSON.stringify(process.execPath)}`,
    `    args: [--import, tsx, ${JSON.stringify(STATUS_SERVER)}]`,
    `    cwd: ${JSON.stringify(REPO_ROOT)}`,
    '    env: { SERVICE_API_KEY: "${TEST_SERVICE_KEY}" }',
  ];
  await writeFile(join(dir, 'proxy.yaml'), `${config.join('\n')}\n`);
  const proxy = await startHttpProxy(
    t,
    ['-c', join(dir, 'proxy.yaml'), '-d', dir, '-a', 'forms', 'service', 'code_mode'],
    {
      env: { HOME: dir, TMPDIR: dir, MCP_MGMT_TOKEN: '', TEST_SERVICE_KEY: SERVICE_KEY },
      timeoutMs: 90_000,
    },
  );
  const client = await connectHttp(t, proxy.mcpUrl);
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const text = (result.content[0] as { text: string }).text;
    assert.equal(result.isError ?? false, false, text);
    return text;
  };

  await call('submit_form', {
    fields: [
      { name: 'user', value: 'ann' },
      { name: 'password', value: 'hush-form-password' },
      { Value: 'hush-aws-style', Name: 'DB_PASSWORD' },
    ],
  });
  const yaml =
    'env:\n  - name: API_TOKEN\n    value: hush-yaml-token\n  - name: LOG_LEVEL\n    value: debug\n';
  await call('echo_text', { text: yaml });
  await call('echo_text', { text: 'my password is hush horse battery staple\nsee you' });
  await call('echo_text', { text: 'login --user ann pw=hush-pw-value' });
  const status = await call('status', {});
  assert.match(status, new RegExp(SERVICE_KEY), 'the upstream really echoes its key');
  const source = [
    `unlock = {'group': 'secrets', 'code': '${TOTP_CODE}'}`,
    `# or: gate_unlock(group='secrets', code="${TOTP_CODE}")`,
    'print(sorted(unlock))',
  ].join('\n');
  const ran = await executeCode(client, source);
  assert.equal(ran.isError, false, ran.text);

  const file = join(dir, 'logs', 'tool_calls.jsonl');
  const entries = await entriesOnce(file, 6);
  const written = await readFile(file, 'utf8');
  const secrets = [
    'hush-form-password',
    'hush-aws-style',
    'hush-yaml-token',
    'hush horse battery staple',
    'hush-pw-value',
    TOTP_CODE,
    SERVICE_KEY,
  ];
  assert.deepEqual(
    secrets.filter((secret) => written.includes(secret)),
    [],
    'secrets in tool_calls.jsonl',
  );
  // What is not secret stays readable.
  const [form, env, prose, pw, upstream, code] = entries;
  assert.deepEqual(form.params, {
    fields: [
      { name: 'user', value: 'ann' },
      { name: 'password', value: '[REDACTED]' },
      { Value: '[REDACTED]', Name: 'DB_PASSWORD' },
    ],
  });
  assert.equal(
    form.result,
    '[{"name":"user","value":"ann"},{"name":"password","value":"[REDACTED]"},{"Value":"[REDACTED]","Name":"DB_PASSWORD"}]',
  );
  assert.equal(
    env.result,
    'env:\n  - name: API_TOKEN\n    value: [REDACTED]\n  - name: LOG_LEVEL\n    value: debug\n',
  );
  assert.equal(prose.result, 'my password is [REDACTED]\nsee you');
  assert.equal(pw.result, 'login --user ann pw=[REDACTED]');
  assert.equal(
    upstream.result,
    'connected to https://api.example.com, signed requests with [REDACTED] since start',
  );
  assert.equal(code.tool, 'execute_code');
  assert.match(
    (code.params as { code: string }).code,
    /^unlock = \{'group': 'secrets', 'code': '\[REDACTED\]'\}\n# or: gate_unlock\(group='secrets', code="\[REDACTED\]"\)\nprint/,
  );
});

/** The log's entries once `count` are written (it is written in the background). */
async function entriesOnce(file: string, count: number): Promise<Array<Record<string, unknown>>> {
  for (let i = 0; ; i++) {
    const lines = await readFile(file, 'utf8').then(
      (text) => text.trim().split('\n'),
      () => [],
    );
    if (lines.length >= count || i === 200) return lines.map((line) => JSON.parse(line));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
