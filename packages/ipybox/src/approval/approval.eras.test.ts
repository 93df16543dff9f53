/**
 * `--approval elicit` in both protocol eras, with real SDK v2 clients: a 2025 client answers a
 * real `elicitation/create`; a 2026 client answers an `input_required` result while the cell waits
 * in the kernel, and its retry brings the decision to that cell (never a second run). Over stdio
 * against the `ipybox` bin, over HTTP against `ipybox --http` and `mcp-proxy -a ipybox`; a 2026
 * client that never comes back releases the cell with `ApprovalTimeout`, and its late answer is
 * refused with a clear error.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, type TestContext, test } from 'node:test';
import { ERAS, type Era, versionOfEra } from '@mcpbox/framework';
import { runServerBin, startProxy } from '@mcpbox/test-utils';
import {
  Client,
  type ClientOptions,
  type InputRequiredResult,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import {
  IPYBOX_BIN,
  registerEverything,
  runCell,
  startStdioIpybox,
  tempWorkspace,
  textOf,
} from '../server/testing.ts';

function clientOptions(era: Era, extra: ClientOptions = {}): ClientOptions {
  return {
    capabilities: { elicitation: {} },
    versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } },
    ...extra,
  };
}

/**
 * A cell that counts its runs in `<label>.runs` (the workspace is its cwd), calls the everything
 * server's echo, and prints the answer or `<ApprovalError subclass> | reason`, also written to
 * `<label>.outcome` for a caller that never sees the result.
 */
function approvalCell(label: string): string {
  return [
    `open('${label}.runs', 'a').write('x')`,
    'from mcptools._runtime import ApprovalError',
    'from mcptools.everything import echo',
    'try:',
    `    outcome = echo.run({'message': '${label}'})`,
    'except ApprovalError as e:',
    "    outcome = f'{type(e).__name__} | {e}'",
    `open('${label}.outcome', 'w').write(str(outcome))`,
    'print(outcome)',
  ].join('\n');
}

/** The cell's own output: a 2026 HTTP caller's first cell adds a line naming its new kernel. */
function printed(result: unknown): string {
  return textOf(result).split('\n')[0] as string;
}

async function runsOf(workspace: string, label: string): Promise<number> {
  return (await readFile(join(workspace, `${label}.runs`), 'utf8')).length;
}

/** Answers elicitations: approve or decline, after `delayMs`; records each question. */
function answering(client: Client, decide: () => 'accept' | 'decline', delayMs = () => 0) {
  const asked: string[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params.message);
    await new Promise((resolve) => setTimeout(resolve, delayMs()));
    return decide() === 'accept'
      ? { action: 'accept', content: { approve: true } }
      : { action: 'decline' };
  });
  return asked;
}

/** Approve once, decline once: each asked once, each cell run once. */
async function approveAndDecline(client: Client, workspace: string, era: Era): Promise<void> {
  let decision: 'accept' | 'decline' = 'accept';
  const asked = answering(client, () => decision);
  await registerEverything(client);
  const yes = `${era}-yes`;
  assert.equal(printed(await runCell(client, approvalCell(yes))), `Echo: ${yes}`);
  assert.equal(asked.length, 1);
  assert.match(asked[0] ?? '', /'echo' of the MCP server 'everything'/);
  assert.equal(await runsOf(workspace, yes), 1);

  decision = 'decline';
  const no = `${era}-no`;
  assert.match(
    printed(await runCell(client, approvalCell(no))),
    /^ToolRejected \| .*rejected by the approver/,
  );
  assert.equal(asked.length, 2);
  assert.equal(await runsOf(workspace, no), 1);
}

async function workspace(t: TestContext): Promise<string> {
  const ws = await tempWorkspace();
  t.after(() => ws.remove());
  return ws.dir;
}

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('--approval elicit over stdio', () => {
  for (const era of ERAS) {
    test(`${era}: approve and decline reach the waiting cell`, async (t) => {
      const ws = await workspace(t);
      const box = await startStdioIpybox(ws, {
        args: ['--approval', 'elicit'],
        clientOptions: clientOptions(era),
      });
      t.after(() => box.close());
      assert.equal(box.client.getProtocolEra(), era);
      await approveAndDecline(box.client, ws, era);
    });
  }

  test('2026-07-28: deciding does not count against the cell timeout', async (t) => {
    const ws = await workspace(t);
    const box = await startStdioIpybox(ws, {
      args: ['--approval', 'elicit'],
      clientOptions: clientOptions('modern'),
    });
    t.after(() => box.close());
    let delay = 0;
    answering(
      box.client,
      () => 'accept',
      () => delay,
    );
    await registerEverything(box.client);
    // Warm up (kernel, imports, the upstream's process) so the timed cell runs only the call.
    assert.equal(textOf(await runCell(box.client, approvalCell('warm'))), 'Echo: warm');
    delay = 2500;
    const slow = await runCell(box.client, approvalCell('slow'), { timeout: 1 });
    assert.equal(slow.isError, undefined, textOf(slow));
    assert.equal(textOf(slow), 'Echo: slow');
  });

  test('2026-07-28: a client that never answers releases the cell with ApprovalTimeout; its late answer is refused', async (t) => {
    const ws = await workspace(t);
    const box = await startStdioIpybox(ws, {
      args: ['--approval', 'elicit', '--approval-timeout', '2'],
      clientOptions: clientOptions('modern', { inputRequired: { autoFulfill: false } }),
    });
    t.after(() => box.close());
    await registerEverything(box.client);
    const args = { code: approvalCell('gone') };
    const round = (await box.client.callTool(
      { name: 'execute_ipython_cell', arguments: args },
      { allowInputRequired: true, timeout: 300_000 },
    )) as unknown as InputRequiredResult;
    assert.equal(round.resultType, 'input_required');
    const [key, question] = Object.entries(round.inputRequests ?? {})[0] ?? [];
    assert.equal(question?.method, 'elicitation/create');

    // Nobody answers: the cell gets ApprovalTimeout and goes on (it writes what it saw).
    const outcome = join(ws, 'gone.outcome');
    await until(
      () => readFile(outcome, 'utf8').then(Boolean, () => false),
      'the cell to finish without an answer',
    );
    assert.match(await readFile(outcome, 'utf8'), /^ApprovalTimeout \| .*within 2 s/);
    assert.equal(await runsOf(ws, 'gone'), 1);

    const late = {
      name: 'execute_ipython_cell',
      arguments: args,
      inputResponses: { [key as string]: { action: 'accept', content: { approve: true } } },
      requestState: round.requestState,
    };
    await assert.rejects(box.client.callTool(late as Parameters<Client['callTool']>[0]), {
      code: -32602,
      message: /not answered in time.*call the tool again/s,
    });
    assert.equal(await runsOf(ws, 'gone'), 1);
  });
});

type Start = (t: TestContext, workspace: string) => Promise<URL>;

const startIpybox: Start = async (t, ws) => {
  const run = await runServerBin(
    t,
    IPYBOX_BIN,
    ['--workspace', ws, '--http', '0', '--approval', 'elicit'],
    /ipybox MCP endpoint: (\S+)/,
  );
  assert.ok(run.match, run.stderr());
  return new URL(run.match[1] as string);
};

const startProxyWithIpybox: Start = async (t, ws) => {
  const config = join(ws, 'proxy.yaml'); // removed with the workspace
  await writeFile(
    config,
    `plugins:\n  ipybox:\n    workspace: ${JSON.stringify(ws)}\n    approval: elicit\n`,
  );
  const proxy = await startProxy(
    ['--http', '0', '--mgmt-port', '0', '--health-port', '0', '-c', config, '-a', 'ipybox'],
    { env: { HOME: ws }, timeoutMs: 120_000 },
  );
  t.after(() => proxy.stop());
  return new URL(proxy.mcpUrl as string);
};

for (const [name, start] of [
  ['ipybox --http', startIpybox],
  ['mcp-proxy -a ipybox', startProxyWithIpybox],
] as const) {
  describe(`--approval elicit over HTTP: ${name}`, () => {
    for (const era of ERAS) {
      test(`${era}: approve and decline reach the waiting cell`, async (t) => {
        const ws = await workspace(t);
        const url = await start(t, ws);
        const client = new Client(
          { name: `approval-${era}`, version: '1.0.0' },
          clientOptions(era),
        );
        await client.connect(new StreamableHTTPClientTransport(url));
        t.after(() => client.close());
        await approveAndDecline(client, ws, era);
      });
    }
  });
}
