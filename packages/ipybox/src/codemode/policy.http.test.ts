/**
 * Listing matches calling in code mode (issue 31): a real mcp-proxy over HTTP with OAuth against
 * a real (local) introspection server whose tokens name two principals of different groups, a
 * policy of tool-level rules and one argument rule over echo, greet and demo_full, and
 * `code_mode` with real kernels, for SDK clients of both eras.
 *
 * For each principal and era: `search_tools` finds a tool exactly when the caller's `tools/list`
 * lists it, and kernel code calling every tool of the catalog runs exactly those; the others
 * raise `ToolNotFound` or a `ToolError` naming the rule. The argument rule's refusal reaches the
 * Python caller as an exception whose message names the rule.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { ERAS, type Era, versionOfEra } from '@mcpbox/framework';
import { startHttpProxy, startIntrospectionServer } from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { tempWorkspace, textOf } from '../server/testing.ts';
import { executeCode } from './testing.ts';

type After = { after(fn: () => unknown): void };

const POLICY = [
  'policy:',
  '  default: deny',
  '  rules:',
  '    - name: code-mode',
  '      tools: [search_tools, execute_code]',
  "      allow: 'true'",
  '    - name: admins',
  `      allow: '"admin" in principal.groups'`,
  '    - name: support-team',
  `      allow: '"support" in principal.groups && tool.plugin in ["echo", "greet"]'`,
  '    - name: data-team',
  `      allow: '"data" in principal.groups && tool.plugin in ["echo", "demo_full"]'`,
  '    - name: capitals-for-support',
  '      tools: [echo_upper]',
  `      deny: '!("support" in principal.groups)'`,
  '    - name: no-secrets',
  '      description: nothing secret is echoed',
  '      tools: [echo, echo_upper]',
  `      deny: 'args.message == "secret"'`,
];

/** Every tool code may call: its package (plugin) and arguments the argument rule lets through. */
const TOOLS: Record<string, [plugin: string, args: Record<string, unknown>]> = {
  echo: ['echo', { message: 'hi' }],
  echo_upper: ['echo', { message: 'hi' }],
  greet: ['greet', { name: 'Ada' }],
  demo_text_stats: ['demo_full', { text: 'a b' }],
};

const PRINCIPALS = { alice: ['support'], bob: ['data'] } as const;

async function connect(t: After, url: string, era: Era, token: string): Promise<Client> {
  const client = new Client(
    { name: `code-mode-policy-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  t.after(() => client.close());
  return client;
}

async function startPolicyProxy(t: TestContext) {
  const as = await startIntrospectionServer();
  t.after(() => as.close());
  const exp = Math.floor(Date.now() / 1000) + 3600;
  for (const [name, groups] of Object.entries({ ...PRINCIPALS, root: ['admin', 'support'] })) {
    as.tokens.set(`${name}-token`, { active: true, sub: name, groups, exp });
  }
  const { dir, remove } = await tempWorkspace('code-mode-policy-');
  t.after(remove);
  const config = [
    `oauth_server_url: ${as.url}`,
    'oauth_public_url: http://127.0.0.1/mcp',
    ...POLICY,
    'plugins:',
    '  code_mode:',
    `    workspace: ${JSON.stringify(join(dir, 'workspace'))}`,
    '',
  ];
  await writeFile(join(dir, 'proxy.yaml'), config.join('\n'));
  const proxy = await startHttpProxy(
    t,
    ['-c', join(dir, 'proxy.yaml'), '-a', 'echo', 'greet', 'demo_full', 'code_mode'],
    { env: { HOME: dir, TMPDIR: dir }, timeoutMs: 90_000 },
  );
  return proxy.mcpUrl;
}

/** Kernel code calling every tool; prints each outcome as JSON: ran, not found, refused, failed. */
function callEveryTool(): string {
  const calls = Object.entries(TOOLS).map(
    ([tool, [plugin, args]]) =>
      `(${JSON.stringify(plugin)}, ${JSON.stringify(tool)}, ${JSON.stringify(args)})`,
  );
  return [
    'import importlib, json',
    'from mcptools._runtime import ToolError, ToolNotFound',
    'outcomes = {}',
    `for plugin, tool, args in [${calls.join(', ')}]:`,
    '    try:',
    "        importlib.import_module(f'mcptools.{plugin}.{tool}').run(args)",
    "        outcomes[tool] = 'ran'",
    '    except ToolNotFound:',
    "        outcomes[tool] = 'not found'",
    '    except ToolError as error:',
    "        refused = 'denied by policy rule' in str(error) or 'no policy rule allows' in str(error)",
    "        outcomes[tool] = 'refused' if refused else f'failed: {error}'",
    'print(json.dumps(outcomes))',
  ].join('\n');
}

test('code mode: search_tools and kernel calls match the caller’s listing', async (t) => {
  const url = await startPolicyProxy(t);
  const root = await connect(t, url, 'legacy', 'root-token');
  const codeTools = (await root.listTools()).tools
    .map((tool) => tool.name)
    .filter(
      (name) =>
        !name.startsWith('proxy__') &&
        !['search_tools', 'execute_code', 'save_code_skill'].includes(name),
    );
  assert.deepEqual(codeTools.sort(), Object.keys(TOOLS).sort(), 'the table holds every tool');

  for (const name of Object.keys(PRINCIPALS)) {
    for (const era of ERAS) {
      await t.test(`${name}, ${era}`, async (st) => {
        const client = await connect(st, url, era, `${name}-token`);
        const listed = new Set((await client.listTools()).tools.map((tool) => tool.name));
        assert.ok(listed.size > 2 && listed.size < codeTools.length + 2, [...listed].join());

        for (const [tool, [plugin]] of Object.entries(TOOLS)) {
          const search = await client.callTool({
            name: 'search_tools',
            arguments: { query: tool, limit: 50 },
          });
          const found = textOf(search)
            .split('\n')
            .includes(`from mcptools.${plugin} import ${tool}`);
          assert.equal(found, listed.has(tool), `${name} ${era} search_tools ${tool}`);
        }

        const cell = await executeCode(client, callEveryTool());
        assert.equal(cell.isError, false, cell.text);
        const outcomes = JSON.parse(cell.text.trim()) as Record<string, string>;
        for (const tool of Object.keys(TOOLS)) {
          const outcome = outcomes[tool];
          if (listed.has(tool)) assert.equal(outcome, 'ran', `${name} ${era} ${tool}`);
          else assert.match(outcome ?? '', /^(not found|refused)$/, `${name} ${era} ${tool}`);
        }
      });
    }
  }

  await t.test('an argument rule’s refusal is a Python exception naming the rule', async (st) => {
    const alice = await connect(st, url, 'modern', 'alice-token');
    const cell = await executeCode(
      alice,
      "from mcptools.echo import echo_upper\nprint(echo_upper.run({'message': 'ok'}))\necho_upper.run({'message': 'secret'})",
    );
    assert.equal(cell.isError, true);
    assert.match(cell.text, /^OK$/m);
    assert.match(
      cell.text,
      /ToolError: echo\.echo_upper: Tool echo_upper is not allowed for sub:alice: denied by policy rule "no-secrets": nothing secret is echoed/,
    );
  });
});
