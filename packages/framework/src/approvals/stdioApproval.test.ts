// Client approval over stdio, with real SDK v2 clients of both eras against a real server
// process: the local user is asked, accepting runs the call, declining runs nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { firstText } from '@mcpbox/test-utils';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { ERAS, versionOfEra } from '../protocol/era.ts';

const STDIO_SERVER = fileURLToPath(new URL('../__fixtures__/stdioServer.ts', import.meta.url));

for (const era of ERAS) {
  test(`${era} over stdio: the local user approves a call, or declines it`, async (t) => {
    const asked: string[] = [];
    const answers = ['accept', 'decline'] as const;
    const client = new Client(
      { name: `stdio-approver-${era}`, version: '1.0.0' },
      {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } },
      },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      return { action: answers[asked.length - 1] ?? 'decline' };
    });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', STDIO_SERVER],
        env: { ...process.env, APPROVE_TOOLS: 'add' } as Record<string, string>,
      }),
    );
    t.after(() => client.close());

    const accepted = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    assert.equal(firstText(accepted), '5');
    assert.equal(asked.length, 1);
    assert.match(asked[0] ?? '', /Approve this call of add .+\n.+"a":2,"b":3/);
    const declined = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    assert.equal(declined.isError, true);
    assert.match(firstText(declined), /needs an approval.+the user declined/);
    assert.equal(asked.length, 2, 'each call is asked for: a grant runs one call');

    const unasked = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    assert.equal(firstText(unasked), 'hi');
    assert.equal(asked.length, 2, 'no rule is about echo');
  });
}
