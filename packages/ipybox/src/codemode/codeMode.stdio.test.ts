/**
 * Code mode end to end, both eras: a real mcp-factory over stdio serving echo, server-memory and
 * server-filesystem (mirrored) and code_mode. search_tools finds the tools with their import
 * lines; execute_code calls a local plugin's tool and the mirrored servers' tools; bad input gets
 * a clear Python error and the kernel stays; the approval rules deny a tool; calls from code are
 * logged with via "code"; code without the tool server's token and calls between cells are
 * refused.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { ERAS } from '@mcpbox/framework';
import { checkSandboxHost } from '../sandbox/preflight.ts';
import { EVERYTHING_BIN, textOf } from '../server/testing.ts';
import {
  connectFactory,
  eraClient,
  executeCode,
  factoryConfig,
  mirroredServers,
  toolLogEntries,
  waitFor,
} from './testing.ts';

for (const era of ERAS) {
  test(`code mode over stdio (${era} client): search, call local and mirrored tools, bad input, policy`, async (t) => {
    const { dir, config } = await factoryConfig(t, (dir) => ['echo: {}', ...mirroredServers(dir)], [
      'approval_rules: {"memory.delete_entities": "deny"}',
    ]);
    await writeFile(join(dir, 'notes.txt'), 'alpha\nbeta\ngamma\n');
    const client = eraClient(era);
    await connectFactory(client, config, dir);
    t.after(() => client.close());

    // Code mode on a factory configured with code_mode only adds two tools; the rest stay listed.
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(names.includes('search_tools') && names.includes('execute_code'), names.join(' '));

    const search = async (query: string, detail = 'summary', limit = 3) =>
      textOf(await client.callTool({ name: 'search_tools', arguments: { query, detail, limit } }));
    assert.match(
      await search('read a text file'),
      /from mcptools\.filesystem import read_text_file/,
    );
    assert.match(
      await search('create entities in the knowledge graph'),
      /from mcptools\.memory import create_entities/,
    );
    const full = await search('echo the message back', 'full', 1);
    assert.match(full, /from mcptools\.echo import echo/);
    // The signature and docstring as the generated module declares them.
    assert.match(
      full,
      /def run\(params: Optional\[Params\] = None, \/, \*, timeout: Optional\[float\] = None\)/,
    );
    assert.match(full, /message \(str, required\)/);
    const none = await search('zzqx memroy');
    assert.match(
      none,
      /^No tools match "zzqx memroy"\. Plugins, nearest to your words first: memory/,
    );
    // Code mode's own tools are not in its catalog.
    assert.doesNotMatch(
      await search('execute python code', 'name', 50),
      /execute_code|search_tools/,
    );

    // A local plugin's tool and two mirrored servers' tools in one cell; only the print returns.
    const step = await executeCode(
      client,
      [
        'from mcptools.echo import echo',
        'from mcptools.filesystem import read_text_file',
        'from mcptools.memory import create_entities, open_nodes',
        `text = read_text_file.run({'path': ${JSON.stringify(join(dir, 'notes.txt'))}})`,
        "content = text['content'] if isinstance(text, dict) else text",
        'lines = content.split()',
        "create_entities.run({'entities': [{'name': 'notes', 'entityType': 'file', 'observations': [f'{len(lines)} lines']}]})",
        "graph = open_nodes.run({'names': ['notes']})",
        "print(echo.run({'message': f\"{lines[0]} {graph['entities'][0]['observations'][0]}\"}))",
      ].join('\n'),
    );
    assert.equal(step.isError, false, step.text);
    assert.equal(step.text.trim(), 'alpha 3 lines');
    const kernel = step.kernel;

    // Wrong arguments: a Python error naming the field.
    const wrong = await executeCode(client, "echo.run({'msg': 'x'})", { kernel });
    assert.equal(wrong.isError, true);
    assert.match(wrong.text, /ToolError: echo\.echo: .*message/);
    // A tool that does not exist.
    const unknown = await executeCode(
      client,
      "from mcptools._runtime import call_tool\ncall_tool('echo', 'no_such_tool', {})",
      { kernel },
    );
    assert.match(
      unknown.text,
      /ToolNotFound: tool 'no_such_tool' is not in the catalog: plugin 'echo' was unloaded or does not have it/,
    );
    // Denied by the approval rules (the rule names the mirrored server's tool).
    const denied = await executeCode(
      client,
      "from mcptools.memory import delete_entities\ndelete_entities.run({'entityNames': ['notes']})",
      { kernel },
    );
    assert.match(
      denied.text,
      /ToolRejected: call to memory\.delete_entities rejected: tool calls are denied by policy/,
    );
    assert.match(
      (
        await executeCode(client, "open_nodes.run({'names': ['notes']})['entities'][0]['name']", {
          kernel,
        })
      ).text,
      /'notes'/,
      'the denied call deleted nothing',
    );
    // An endless loop: interrupted at the timeout, the kernel and its variables kept.
    const endless = await executeCode(client, 'while True:\n    pass', { kernel, timeout: 3 });
    assert.equal(endless.isError, true);
    assert.match(endless.text, /timed out|timeout|interrupted/i);
    assert.equal((await executeCode(client, 'len(lines)', { kernel })).text.trim(), '3');

    // Code that reaches the tool server without its token is refused.
    const noToken = await executeCode(
      client,
      [
        // Over the kernel's own channel (a local kernel's is a Unix socket), with the runtime's
        // HTTP client.
        'import json, os',
        'from mcptools._runtime import _Connection',
        "print(os.environ['IPYBOX_TOOL_SERVER'].split(':')[0])",
        "body = json.dumps({'server_name': 'echo', 'tool_name': 'echo', 'tool_args': {'message': 'x'}}).encode()",
        'for headers in ({}, {"Authorization": "Bearer not-the-token"}):',
        "    connection = _Connection(os.environ['IPYBOX_TOOL_SERVER'])",
        "    status, _, _ = connection.exchange(body, {'Content-Type': 'application/json', **headers})",
        '    connection.close()',
        "    print('refused' if status == 401 else 'accepted', status)",
      ].join('\n'),
      { kernel },
    );
    assert.equal(noToken.text.trim(), 'unix\nrefused 401\nrefused 401');

    // A call from a thread after its cell ended has no caller to act as: refused.
    const marker = join(dir, 'late.txt');
    await executeCode(
      client,
      [
        'import threading, time',
        'def late():',
        '    time.sleep(1)',
        '    try:',
        "        outcome = echo.run({'message': 'late'})",
        '    except Exception as error:',
        "        outcome = f'{type(error).__name__}: {error}'",
        `    open(${JSON.stringify(`${marker}.tmp`)}, 'w').write(outcome)`,
        `    os.rename(${JSON.stringify(`${marker}.tmp`)}, ${JSON.stringify(marker)})`,
        'import os',
        'threading.Thread(target=late).start()',
      ].join('\n'),
      { kernel },
    );
    await waitFor(() => existsSync(marker), 'the thread to call between cells');
    const late = (
      await executeCode(client, `print(open(${JSON.stringify(marker)}).read())`, { kernel })
    ).text;
    assert.match(
      late,
      /ToolRejected: echo\.echo: refused: no execute_code cell of this kernel is running/,
    );

    // Calls from code are in the tool-call log, marked as such.
    await waitFor(
      async () =>
        (await toolLogEntries(dir)).some((e) => e.tool === 'create_entities' && e.via === 'code'),
      'create_entities in tool_calls.jsonl with via "code"',
    );
    const echoes = (await toolLogEntries(dir)).filter((e) => e.tool === 'echo');
    assert.ok(
      echoes.every((e) => e.via === 'code'),
      JSON.stringify(echoes),
    );
  });
}

/** Why the sandbox cannot run here, or undefined when it can (bwrap, socat, rg present). */
function sandboxUnavailable(): string | undefined {
  try {
    checkSandboxHost();
    return undefined;
  } catch (error) {
    return `the OS sandbox cannot run here: ${(error as Error).message}`;
  }
}

test('code mode with the sandboxed kernel: catalog tools work from confined code', {
  skip: sandboxUnavailable(),
}, async (t) => {
  const { dir, config } = await factoryConfig(t, ['echo: {}'], ['sandbox: true']);
  const client = eraClient('modern');
  await connectFactory(client, config, dir);
  t.after(() => client.close());
  const called = await executeCode(
    client,
    "import os\nfrom mcptools.echo import echo\nprint(os.environ['IPYBOX_TOOL_SERVER'].split(':')[0], echo.run({'message': 'confined'}))",
  );
  assert.equal(called.isError, false, called.text);
  assert.equal(called.text.trim(), 'unix confined');
  const outside = await executeCode(client, "open('/usr/escaped.txt', 'w')", {
    kernel: called.kernel,
  });
  assert.match(outside.text, /Read-only file system/);
});

for (const era of ERAS) {
  test(`code mode approval_rules (${era} client): an elicit rule asks the cell's client, others run`, async (t) => {
    const { dir, config } = await factoryConfig(
      t,
      ['echo: {}', 'greet: {}'],
      ['approval: auto', 'approval_rules: {"greet": "elicit"}'],
    );
    const client = eraClient(era, { elicitation: true });
    let decision: 'accept' | 'decline' = 'accept';
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      return decision === 'accept'
        ? { action: 'accept', content: { approve: true } }
        : { action: 'decline' };
    });
    await connectFactory(client, config, dir);
    t.after(() => client.close());

    const cell = [
      'from mcptools.echo import echo',
      'from mcptools.greet import greet',
      'from mcptools._runtime import ApprovalError',
      "print(echo.run({'message': 'no question'}))",
      'try:',
      "    print(greet.run({'name': 'Ada'}))",
      'except ApprovalError as error:',
      "    print(f'{type(error).__name__} | {error}')",
    ].join('\n');
    const approved = await executeCode(client, cell);
    assert.equal(approved.text.trim(), 'no question\nHello, Ada!');
    assert.equal(asked.length, 1, 'only the greet call was asked about');
    assert.match(asked[0] ?? '', /'greet' of the MCP server 'greet'/);

    decision = 'decline';
    const declined = await executeCode(client, cell, { kernel: approved.kernel });
    assert.match(
      declined.text,
      /^no question\nToolRejected \| call to greet\.greet rejected by the approver/,
    );
    assert.equal(asked.length, 2);
  });
}

test('code mode beside the ipybox plugin: a server registered with register_mcp_server is callable from code', async (t) => {
  const { dir, config } = await factoryConfig(t, (root) => [
    'ipybox:',
    `  workspace: ${JSON.stringify(join(root, 'workspace'))}`,
  ]);
  const client = eraClient('legacy');
  await connectFactory(client, config, dir);
  t.after(() => client.close());
  // The kernel exists before the registration: it must take the server on, not only new ones.
  assert.equal((await executeCode(client, 'print(1)')).text.trim(), '1');
  const registered = await client.callTool({
    name: 'register_mcp_server',
    arguments: {
      server_name: 'everything',
      server_params: { command: EVERYTHING_BIN, args: ['stdio'] },
    },
  });
  assert.notEqual(registered.isError, true, textOf(registered));
  const called = await executeCode(
    client,
    "from mcptools.everything import echo\nprint(echo.run({'message': 'registered'}))",
  );
  assert.equal(called.isError, false, called.text);
  assert.equal(called.text.trim(), 'Echo: registered');
  // The ipybox plugin's tools are in the catalog, but not the one that runs code (no recursion).
  const ipyboxTools = await executeCode(
    client,
    'import mcptools.ipybox as p\nprint(sorted(p.TOOLS))',
  );
  assert.match(ipyboxTools.text, /'register_mcp_server'/);
  assert.doesNotMatch(ipyboxTools.text, /execute/);
});

for (const era of ERAS) {
  test(`code mode (${era} client): a mirrored server's question during a call from code reaches the cell's client, its clock stopped`, async (t) => {
    const { dir, config } = await factoryConfig(t, [
      'everything:',
      `  command: ${JSON.stringify(EVERYTHING_BIN)}`,
      '  args: [stdio]',
    ]);
    const client = eraClient(era, { elicitation: true });
    const asked: string[] = [];
    let answered = false;
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      // Longer than the cell's timeout: only a stopped clock lets the cell finish.
      await new Promise((resolve) => setTimeout(resolve, 5000));
      answered = true;
      return { action: 'decline' };
    });
    await connectFactory(client, config, dir);
    t.after(() => client.close());
    const result = await executeCode(
      client,
      "from mcptools._runtime import call_tool\nprint(call_tool('everything', 'trigger-elicitation-request', {}))",
      { timeout: 2 },
    );
    assert.equal(result.isError, false, result.text);
    assert.ok(answered);
    assert.match(result.text, /User declined to provide the requested information/);
    assert.equal(asked.length, 1);
    assert.match(
      asked[0] ?? '',
      /^The MCP server 'everything' \(tool 'trigger-elicitation-request', called by code in the ipybox kernel\) asks:/,
    );
  });
}
