/**
 * Approval of tool calls from kernel code, end to end over stdio: `--approval deny`,
 * `--approval channel` with no approval client connected, and `--approval elicit` with a real
 * SDK client that answers elicitation requests (accept, decline, a slow decision that must not
 * count against the cell's timeout), and with a client that has no elicitation capability.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/server';
import {
  callEcho,
  registerEverything,
  runCell,
  startStdioIpybox,
  tempWorkspace,
  textOf,
} from '../server/testing.ts';

describe('ipybox approvals over stdio', () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  before(async () => {
    ws = await tempWorkspace();
  });
  after(async () => {
    await ws?.remove();
  });

  test('--approval deny: the call is refused with ToolRejected, the cell goes on', async (t) => {
    const box = await startStdioIpybox(ws.dir, { args: ['--approval', 'deny'] });
    t.after(() => box.close());
    await registerEverything(box.client);
    const result = await runCell(box.client, callEcho('hi'));
    assert.match(textOf(result), /^ToolRejected \| .*denied by policy/);
  });

  test('--approval elicit: the user is asked; accept runs the call, decline refuses it', async (t) => {
    const asked: ElicitRequest['params'][] = [];
    let answer: (request: ElicitRequest) => Promise<ElicitResult> = async () => ({
      action: 'accept',
      content: { approve: true },
    });
    const box = await startStdioIpybox(ws.dir, {
      args: ['--approval', 'elicit'],
      clientOptions: { capabilities: { elicitation: {} } },
    });
    t.after(() => box.close());
    box.client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params);
      return answer(request);
    });
    await registerEverything(box.client);

    const accepted = await runCell(box.client, callEcho('yes please'));
    assert.equal(textOf(accepted), 'Echo: yes please');
    assert.equal(asked.length, 1);
    assert.match(asked[0]?.message ?? '', /'echo' of the MCP server 'everything'/);
    assert.match(asked[0]?.message ?? '', /"message": "yes please"/);

    answer = async () => ({ action: 'decline' });
    const declined = await runCell(box.client, callEcho('no thanks'));
    assert.match(textOf(declined), /^ToolRejected \| .*rejected by the approver/);

    answer = async () => ({ action: 'accept', content: { approve: false } });
    const unticked = await runCell(box.client, callEcho('unticked'));
    assert.match(textOf(unticked), /^ToolRejected/);
    assert.equal(asked.length, 3);
  });

  test('--approval elicit: deciding does not count against the cell timeout; --approval-timeout bounds it', async (t) => {
    const box = await startStdioIpybox(ws.dir, {
      args: ['--approval', 'elicit', '--approval-timeout', '5'],
      clientOptions: { capabilities: { elicitation: {} } },
    });
    t.after(() => box.close());
    let decisionMs = 0;
    box.client.setRequestHandler('elicitation/create', async () => {
      await new Promise((resolve) => setTimeout(resolve, decisionMs));
      return { action: 'accept', content: { approve: true } };
    });
    await registerEverything(box.client);
    // Warm up (kernel, imports, the upstream's process) so the timed cell runs only the call.
    assert.equal(textOf(await runCell(box.client, callEcho('warm'))), 'Echo: warm');
    decisionMs = 2500;
    // A 1 s budget; the decision alone takes 2.5 s.
    const result = await runCell(box.client, callEcho('slow decision'), { timeout: 1 });
    assert.equal(result.isError, undefined, textOf(result));
    assert.equal(textOf(result), 'Echo: slow decision');

    // --approval-timeout 5: a user who takes longer gets ApprovalTimeout in the cell.
    decisionMs = 8000;
    const late = await runCell(box.client, callEcho('too late'));
    assert.match(textOf(late), /^ApprovalTimeout \| .*within 5 s/);
  });

  test('--approval elicit with a client that cannot elicit: a refusal that says why', async (t) => {
    const box = await startStdioIpybox(ws.dir, { args: ['--approval', 'elicit'] });
    t.after(() => box.close());
    await registerEverything(box.client);
    const result = await runCell(box.client, callEcho('anyone?'));
    assert.match(
      textOf(result),
      /^ApprovalUnavailable \| .*does not support elicitation.*--approval auto/,
    );
  });

  test('--approval channel: approval clients decide, not the MCP client; none connected refuses at once', async (t) => {
    const box = await startStdioIpybox(ws.dir, {
      args: ['--approval', 'channel'],
      clientOptions: { capabilities: { elicitation: {} } },
    });
    t.after(() => box.close());
    let asked = 0;
    box.client.setRequestHandler('elicitation/create', async () => {
      asked++;
      return { action: 'accept', content: { approve: true } };
    });
    await registerEverything(box.client);
    const result = await runCell(box.client, callEcho('channel?'));
    assert.match(textOf(result), /^ApprovalUnavailable \| .*no approval client connected/);
    assert.equal(asked, 0, 'under channel the MCP client is never asked');
  });
});
