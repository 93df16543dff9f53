/**
 * Every operation of the table is reachable at every front door it declares, on a real
 * `mcp-proxy` process: its REST routes answer (not "no such endpoint", not "method not
 * allowed"), its `proxy__*` tool is listed, the CLI offers its command, the console runs its
 * button, and cluster sync reconciles exactly the replicated ones.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runProxyCli, startProxy } from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { RECONCILED_OPERATIONS } from '../cluster/clusterSync.ts';
import { testdir } from '../proxy/__fixtures__/testdir.ts';
import { OPERATIONS, type OperationSpec, type RestRoute } from './table.ts';

/** A request that reaches the route, with arguments the handler may refuse (but sees). */
function probe(route: RestRoute): { path: string; body?: string } {
  const path = route.param === undefined ? route.path : `${route.path}/nosuch`;
  if (route.body === undefined) return { path };
  const body = 'name' in route.body ? { [route.body.name]: 'nosuch' } : {};
  return { path, body: JSON.stringify(body) };
}

async function consoleSession(base: string): Promise<{ cookie: string; csrf: string }> {
  // No token configured: a loopback visitor gets a session with the first page.
  const page = await fetch(`${base}/console/plugins`);
  const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0];
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  assert.ok(cookie && csrf, 'a console session');
  return { cookie, csrf };
}

test('every operation is reachable at every front door it declares', async (t) => {
  const dir = testdir({}, t);
  const proxy = await startProxy(['--http', '0', '--mgmt-port', '0', '-a', 'echo'], {
    env: { HOME: dir },
  });
  t.after(() => proxy.stop());
  const base = `http://127.0.0.1:${proxy.mgmtPort}`;

  const client = new Client({ name: 'table-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(proxy.mcpUrl!)));
  t.after(() => client.close());
  const tools = (await client.listTools()).tools.map((tool) => tool.name);

  // A grouped command is listed in its group's help: `mcp-proxy pins --help`.
  const helps = new Map<string, string>();
  const helpOf = async (group: string | undefined) => {
    const key = group ?? '';
    if (!helps.has(key)) {
      const help = await runProxyCli(group ? [group, '--help'] : ['--help']);
      assert.equal(help.code, 0, help.stderr);
      helps.set(key, help.stdout);
    }
    return helps.get(key)!;
  };
  const session = await consoleSession(base);

  for (const operation of OPERATIONS as readonly OperationSpec[]) {
    for (const route of operation.rest) {
      const { path, body } = probe(route);
      const response = await fetch(`${base}${path}`, { method: route.method, body });
      const answer = (await response.json()) as { error?: string };
      assert.doesNotMatch(
        answer.error ?? '',
        /^(no such endpoint|method .* not allowed)/,
        `${operation.name}: ${route.method} ${path}`,
      );
    }
    assert.ok(tools.includes(operation.tool), `${operation.name}: tool ${operation.tool}`);
    const [word, ...operands] = operation.cli.command.split(' ');
    const line = new RegExp(
      `^  ${word} \\[options\\]${operands.map((o) => ` \\${o}`).join('')}`,
      'm',
    );
    const group = operation.cli.group?.name;
    assert.match(await helpOf(group), line, `${operation.name}: mcp-proxy ${group ?? ''} ${word}`);
    if (operation.console) {
      const response = await fetch(`${base}/console/plugins/${operation.name}`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          cookie: session.cookie,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ plugin: 'nosuch', csrf: session.csrf }).toString(),
      });
      assert.equal(response.status, 303, `${operation.name}: console button`);
      assert.equal(response.headers.get('location'), '/console/plugins');
    }
  }

  const replicated = (OPERATIONS as readonly OperationSpec[])
    .filter((operation) => operation.replicated)
    .map((operation) => operation.name);
  assert.deepEqual(replicated, [...RECONCILED_OPERATIONS]);
});
