/**
 * A server registered with `register_mcp_server` is configured with a key in its `env`, and
 * echoes it back in a result, bare. Kernel code calls it and prints the answer: the client sees
 * what the cell printed, but mcp-factory's tool-call log holds the cell's result with the key
 * redacted, as it does for a mirrored server's configured credentials.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { fixtureParams } from '@mcpbox/framework/testing';
import { connectFactory, eraClient, toolLogEntries, waitFor } from '../codemode/testing.ts';
import { tempWorkspace, textOf } from '../server/testing.ts';

const SERVICE_KEY = 'hush-registered-key-2032';

test("a registered server's configured key is redacted in the tool-call log", async (t) => {
  const { dir, remove } = await tempWorkspace('registered-secrets-');
  t.after(remove);
  const config = join(dir, 'factory.yaml');
  await writeFile(
    config,
    `plugins:\n  ipybox:\n    workspace: ${JSON.stringify(join(dir, 'workspace'))}\n`,
  );
  const client = eraClient('legacy');
  await connectFactory(client, config, dir);
  t.after(() => client.close());

  const registered = await client.callTool({
    name: 'register_mcp_server',
    arguments: {
      server_name: 'service',
      server_params: fixtureParams('upstream-status.ts', { SERVICE_API_KEY: SERVICE_KEY }),
    },
  });
  assert.equal(registered.isError, undefined, textOf(registered));
  const cell = await client.callTool({
    name: 'execute_ipython_cell',
    arguments: { code: 'from mcptools.service import status\nprint(status.run({}))' },
  });
  assert.equal(cell.isError, undefined, textOf(cell));
  assert.match(textOf(cell), new RegExp(SERVICE_KEY), 'the server really echoes its key');

  await waitFor(async () => {
    const tools = (await toolLogEntries(dir)).map((entry) => entry.tool);
    return tools.includes('execute_ipython_cell');
  }, 'the cell in tool_calls.jsonl');
  const entries = await toolLogEntries(dir);
  const logged = JSON.stringify(entries);
  assert.ok(!logged.includes(SERVICE_KEY), `the key in tool_calls.jsonl: ${logged}`);
  const cellEntry = entries.find((entry) => entry.tool === 'execute_ipython_cell');
  assert.match(String(cellEntry?.result), /signed requests with \[REDACTED\] since start/);
});
