/**
 * Approvals through `proxy__run`, on a real `mcp-proxy` over HTTP with SDK v2 clients of both
 * eras: a policy `approve` rule about a tool loaded at run time asks the caller's user before
 * `proxy__run` reaches it — the same question, the same single-use grant, as a direct call — and
 * a declined approval runs nothing.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ERAS, versionOfEra } from '@mcpbox/framework';
import { connectHttp, startHttpProxy, textOf } from '@mcpbox/test-utils';
import { testdir } from './__fixtures__/testdir.ts';

const CONFIG = [
  'dynamic_dispatch: true',
  'policy:',
  '  default: allow',
  '  rules:',
  '    - name: loud-echoes',
  '      tools: [echo]',
  `      approve: 'args.message.startsWith("LOUD")'`,
  '      approver: client',
  '',
].join('\n');

test('proxy__run asks for the approval an approve rule names, in both eras', async (t) => {
  const dir = testdir({ 'proxy.yaml': CONFIG }, t);
  const proxy = await startHttpProxy(t, ['-c', join(dir, 'proxy.yaml')], {
    env: { HOME: dir },
    timeoutMs: 60_000,
  });
  const admin = await connectHttp(t, proxy.mcpUrl, { name: 'admin' });
  // Loaded at run time, so its tools are dynamic: reachable through proxy__run.
  const loaded = await admin.callTool({ name: 'proxy__load', arguments: { plugin: 'echo' } });
  assert.equal(loaded.isError, undefined, textOf(loaded));

  for (const era of ERAS) {
    for (const action of ['accept', 'decline'] as const) {
      const asked: string[] = [];
      const client = await connectHttp(t, proxy.mcpUrl, {
        name: `approver-${era}-${action}`,
        options: {
          capabilities: { elicitation: { form: {} } },
          versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } },
        },
      });
      client.setRequestHandler('elicitation/create', async (request) => {
        asked.push(request.params.message);
        return { action };
      });
      const run = (message: string) =>
        client.callTool({
          name: 'proxy__run',
          arguments: { tool: 'echo', arguments: { message } },
        });

      const quiet = await run('quiet');
      assert.equal(quiet.isError, undefined, textOf(quiet));
      assert.equal(asked.length, 0, `${era}: no rule asks for a quiet echo`);

      const loud = await run(`LOUD ${era}`);
      assert.equal(asked.length, 1, `${era} ${action}: asked once`);
      assert.match(asked[0] ?? '', /Approve this call of echo \(policy rule "loud-echoes"\)/);
      if (action === 'accept') {
        assert.equal(loud.isError, undefined, textOf(loud));
        assert.match(textOf(loud), new RegExp(`LOUD ${era}`));
      } else {
        assert.equal(loud.isError, true, textOf(loud));
        assert.match(textOf(loud), /needs an approval.+the user declined/);
      }
    }
  }
});
