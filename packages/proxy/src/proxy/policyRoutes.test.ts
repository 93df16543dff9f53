/**
 * Listing matches calling, on every route of a real `mcp-proxy` over HTTP (issue 31): OAuth
 * against a real (local) introspection server whose tokens name two principals of different
 * groups, a policy of tool-level rules and one argument rule over the demo plugins (echo, greet,
 * demo_full, synthetic200: 204 tools, loaded at run time so `proxy__run` reaches them), and SDK
 * clients of both eras (a 2025 session, 2026 per-request calls).
 *
 * For each principal and era, every tool of the catalog is called on each route — directly
 * (`tools/list`, `tools/call`) and through `proxy__search`/`proxy__run` — with arguments the
 * argument rule lets through: a tool the route lists (or finds) is never refused, one it does not
 * is "not found" or refused naming the policy rule (or the default). The routes agree with one
 * another, and `proxy__tools` names exactly what `tools/list` lists. The argument rule refuses a
 * call with its arguments on both routes, naming itself.
 *
 * Views are not reached here: over HTTP a client reaches the whole catalog (views are served
 * over stdio, `--view`); `access.test.ts` holds listing against calling through views.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { ERAS, type Era, versionOfEra } from '@mcpbox/framework';
import { startHttpProxy, startIntrospectionServer, textOf } from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Tool } from '@modelcontextprotocol/server';
import { testdir } from './__fixtures__/testdir.ts';

type After = { after(fn: () => unknown): void };

const POLICY = [
  'dynamic_dispatch: true',
  'policy:',
  '  default: deny',
  '  rules:',
  '    - name: dispatch',
  '      tools: [proxy__search, proxy__run, proxy__tools]',
  "      allow: 'true'",
  '    - name: admins',
  `      allow: '"admin" in principal.groups'`,
  '    - name: support-team',
  `      allow: '"support" in principal.groups && tool.plugin in ["echo", "greet", "synthetic200"]'`,
  '    - name: data-team',
  `      allow: '"data" in principal.groups && (tool.plugin in ["echo", "demo_full"] || tool.name.startsWith("db_"))'`,
  '    - name: capitals-for-support',
  '      tools: [echo_upper]',
  `      deny: '!("support" in principal.groups)'`,
  '    - name: no-payments-for-support',
  '      tools: ["payments_*"]',
  `      deny: '"support" in principal.groups'`,
  '    - name: no-secrets',
  '      description: nothing secret is echoed',
  '      tools: [echo, echo_upper]',
  `      deny: 'args.message == "secret"'`,
];

const PLUGINS = ['echo', 'greet', 'demo_full', 'synthetic200'];

/** Who calls: a token each, and the groups the introspection answer names. */
const PRINCIPALS = {
  alice: ['support'],
  bob: ['data'],
} as const;

type Name = keyof typeof PRINCIPALS | 'root';

/** Arguments that satisfy a tool's schema (and the argument rule: no "secret"). */
function argsFor(tool: Tool): Record<string, unknown> {
  const known: Record<string, Record<string, unknown>> = {
    proxy__search: { query: 'echo' },
    proxy__run: { tool: 'echo', arguments: { message: 'hi' } },
  };
  if (known[tool.name]) return known[tool.name];
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: string }>;
  const args: Record<string, unknown> = {};
  for (const key of tool.inputSchema.required ?? []) {
    const type = properties[key]?.type;
    args[key] =
      type === 'array' ? [] : type === 'boolean' ? true : type === 'string' ? 'hi' : type ? 1 : '';
  }
  return args;
}

async function connect(t: After, url: string, era: Era, token: string): Promise<Client> {
  const client = new Client(
    { name: `policy-routes-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  t.after(() => client.close());
  return client;
}

/** What a call came to, as a user tells it apart. */
type Outcome = { kind: 'ran' | 'failed' | 'not found' | 'refused'; text: string };

const REFUSAL = /is not allowed for \S+: (denied by policy rule "[\w-]+"|no policy rule allows it)/;

async function outcomeOf(call: () => Promise<unknown>, name: string): Promise<Outcome> {
  try {
    const result = (await call()) as { isError?: boolean };
    const text = textOf(result);
    if (REFUSAL.test(text)) return { kind: 'refused', text };
    if (new RegExp(`(^|')${name}'? not found`).test(text)) return { kind: 'not found', text };
    return { kind: result.isError ? 'failed' : 'ran', text };
  } catch (error) {
    const text = (error as Error).message;
    if (text.includes(`Tool ${name} not found`)) return { kind: 'not found', text };
    throw error;
  }
}

/** A route's answer for one tool agrees with whether the route lists it. */
function agrees(listed: boolean, outcome: Outcome, where: string): void {
  if (listed) assert.equal(outcome.kind, 'ran', `${where} is listed, so it runs: ${outcome.text}`);
  else assert.ok(outcome.kind !== 'ran', `${where} is not listed, yet ran: ${outcome.text}`);
  if (!listed) assert.ok(outcome.kind !== 'failed', `${where}: ${outcome.text}`);
}

async function startPolicyProxy(t: TestContext) {
  const as = await startIntrospectionServer();
  t.after(() => as.close());
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const groups: Record<Name, readonly string[]> = { ...PRINCIPALS, root: ['admin'] };
  for (const [name, of] of Object.entries(groups)) {
    as.tokens.set(`${name}-token`, { active: true, sub: name, groups: of, exp });
  }
  const dir = testdir(
    {
      'proxy.yaml': [
        `oauth_server_url: ${as.url}`,
        'oauth_public_url: http://127.0.0.1/mcp',
        ...POLICY,
        '',
      ].join('\n'),
    },
    t,
  );
  const proxy = await startHttpProxy(t, ['-c', join(dir, 'proxy.yaml')], {
    env: { HOME: dir },
    timeoutMs: 60_000,
  });
  // Loaded at run time (by an admin), so every tool is dynamic: proxy__run reaches it.
  const root = await connect(t, proxy.mcpUrl, 'legacy', 'root-token');
  for (const plugin of PLUGINS) {
    const loaded = await root.callTool({ name: 'proxy__load', arguments: { plugin } });
    assert.equal(loaded.isError, undefined, textOf(loaded));
  }
  const catalog = (await root.listTools()).tools;
  return { url: proxy.mcpUrl, catalog };
}

// The four callers run at once: one proxy, as real clients share it.
test('listing matches calling on every route, for each principal and era', {
  concurrency: true,
}, async (t) => {
  const { url, catalog } = await startPolicyProxy(t);
  assert.ok(catalog.length > 200, `the whole catalog: ${catalog.length} tools`);
  const plugins = catalog.filter((tool) => !tool.name.startsWith('proxy__'));

  const callers = (Object.keys(PRINCIPALS) as (keyof typeof PRINCIPALS)[]).flatMap((name) =>
    ERAS.map((era) => ({ name, era })),
  );
  const routes = callers.map(({ name, era }) =>
    t.test(`${name}, ${era}`, async (st) => {
      const client = await connect(st, url, era, `${name}-token`);
      const listed = new Set((await client.listTools()).tools.map((tool) => tool.name));

      // Direct: tools/call of every tool of the catalog.
      for (const tool of catalog) {
        const outcome = await outcomeOf(
          () => client.callTool({ name: tool.name, arguments: argsFor(tool) }),
          tool.name,
        );
        agrees(listed.has(tool.name), outcome, `${name} ${era} tools/call ${tool.name}`);
      }

      // proxy__tools names what tools/list lists.
      const named = textOf(await client.callTool({ name: 'proxy__tools', arguments: {} }));
      assert.deepEqual(named.split('\n'), [...listed].sort());

      // proxy__search finds a tool by its name exactly when it is listed; proxy__run agrees.
      for (const tool of plugins) {
        const search = await client.callTool({
          name: 'proxy__search',
          arguments: { query: tool.name, limit: 50 },
        });
        const found = textOf(search)
          .split('\n')
          .some((line) => line.startsWith(`${tool.name} (`));
        assert.equal(found, listed.has(tool.name), `${name} ${era} proxy__search ${tool.name}`);
        const run = await outcomeOf(
          () =>
            client.callTool({
              name: 'proxy__run',
              arguments: { tool: tool.name, arguments: argsFor(tool) },
            }),
          tool.name,
        );
        agrees(found, run, `${name} ${era} proxy__run ${tool.name}`);
      }

      // Not vacuous: each principal sees some of the catalog, and not all of it.
      assert.ok(listed.size > 3 && listed.size < catalog.length, [...listed].join(', '));
    }),
  );
  await Promise.all(routes);

  await t.test(
    'the argument rule refuses the call with its arguments, naming itself',
    async (st) => {
      for (const era of ERAS) {
        const alice = await connect(st, url, era, 'alice-token');
        const secret = { message: 'secret' };
        const direct = await alice.callTool({ name: 'echo_upper', arguments: secret });
        assert.equal(direct.isError, true);
        assert.match(
          textOf(direct),
          /^Tool echo_upper is not allowed for sub:alice: denied by policy rule "no-secrets": nothing secret is echoed$/,
        );
        const viaRun = await alice.callTool({
          name: 'proxy__run',
          arguments: { tool: 'echo', arguments: secret },
        });
        assert.match(textOf(viaRun), /denied by policy rule "no-secrets"/);
        const fine = await alice.callTool({ name: 'echo_upper', arguments: { message: 'ok' } });
        assert.equal(textOf(fine), 'OK');
      }
    },
  );
});
