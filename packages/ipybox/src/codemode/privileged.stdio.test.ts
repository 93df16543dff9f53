/**
 * Privileged tools are not tools for kernel code (DESIGN decision 15), on every route code has:
 * code mode's catalog in a real mcp-factory (ipybox's `register_mcp_server`/`install_package`,
 * the gate's kill switch) and a registered server in plain ipybox (another ipybox). Refused with
 * a clear error and nothing spawned unless the operator allows them; allowed, each call waits
 * for an approval even under `approval: auto`.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { Secret, TOTP } from 'otpauth';
import { checkSandboxHost } from '../sandbox/preflight.ts';
import { IPYBOX_BIN, runCell, startStdioIpybox, tempWorkspace, textOf } from '../server/testing.ts';
import { connectFactory, eraClient, executeCode, factoryConfig } from './testing.ts';

/** The OS sandbox around code mode's kernel where this host can run it. */
function sandboxSetting(): string[] {
  try {
    checkSandboxHost();
    return ['sandbox: true'];
  } catch {
    return [];
  }
}

/** Kernel code calling each `(module, args)` and printing the result or the Python error. */
function callEach(imports: string, calls: [string, unknown][]): string {
  return [
    imports,
    'from mcptools._runtime import ToolCallError',
    ...calls.flatMap(([tool, args]) => [
      'try:',
      `    print(${tool}.run(${JSON.stringify(args)}))`,
      'except ToolCallError as error:',
      "    print(f'{type(error).__name__} | {error}')",
    ]),
  ].join('\n');
}

/** What a host-run command leaves: `/bin/sh -c 'touch <marker>'` as an MCP server's command. */
function spawning(marker: string) {
  return {
    server_name: 'evil',
    server_params: { command: '/bin/sh', args: ['-c', `touch ${JSON.stringify(marker)}`] },
  };
}

async function codeModeBesideIpybox(
  t: { after: (fn: () => unknown) => void },
  settings: string[],
  client = eraClient('legacy'),
) {
  const { dir, config } = await factoryConfig(
    t,
    (root) => ['ipybox:', `  workspace: ${JSON.stringify(join(root, 'workspace'))}`],
    settings,
  );
  await connectFactory(client, config, dir);
  t.after(() => client.close());
  return { dir, client, marker: join(dir, 'spawned-on-the-host') };
}

test('code mode (approval auto, sandboxed kernel where possible): register_mcp_server and install_package from code are refused, naming the setting; nothing runs on the host', async (t) => {
  const { dir, client, marker } = await codeModeBesideIpybox(t, [
    'approval: auto',
    ...sandboxSetting(),
  ]);
  const cell = await executeCode(
    client,
    callEach('from mcptools.ipybox import register_mcp_server, install_package', [
      ['register_mcp_server', spawning(marker)],
      ['install_package', { package_name: 'six' }],
    ]),
  );
  assert.equal(cell.isError, false, cell.text);
  const lines = cell.text.trim().split('\n');
  assert.equal(lines.length, 2, cell.text);
  for (const [line, tool] of [
    [lines[0], 'register_mcp_server'],
    [lines[1], 'install_package'],
  ] as const) {
    assert.match(
      line ?? '',
      new RegExp(
        `^ToolRejected \\| call to ipybox\\.${tool} refused: it is a privileged tool \\(it runs programs on the host, outside any sandbox\\)`,
      ),
    );
    assert.match(
      line ?? '',
      /allow_privileged_tools: true under plugins\.ipybox or plugins\.code_mode/,
    );
  }
  assert.equal(existsSync(marker), false, 'the command was run on the host');
  assert.equal(existsSync(join(dir, 'workspace', '.venv')), false, 'pip was run');
  assert.equal(existsSync(join(dir, 'workspace', 'mcptools', 'evil')), false);
  // The client itself still may: privileges bind code, not the user's own calls.
  const direct = (await client.callTool({
    name: 'register_mcp_server',
    arguments: spawning(marker),
  })) as CallToolResult;
  assert.equal(direct.isError, true); // sh is no MCP server, but it ran
  assert.equal(existsSync(marker), true);
});

test('code mode with allow_privileged_tools (approval auto): each privileged call is put to the user, never approved by itself', async (t) => {
  const asked: string[] = [];
  let answer: 'accept' | 'decline' = 'decline';
  const client = eraClient('legacy', { elicitation: true });
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params.message);
    return answer === 'accept'
      ? { action: 'accept', content: { approve: true } }
      : { action: 'decline' };
  });
  const { client: connected, marker } = await codeModeBesideIpybox(
    t,
    ['approval: auto', 'allow_privileged_tools: true', ...sandboxSetting()],
    client,
  );
  const code = callEach('from mcptools.ipybox import register_mcp_server', [
    ['register_mcp_server', spawning(marker)],
  ]);
  const declined = await executeCode(connected, code);
  assert.match(
    declined.text.trim(),
    /^ToolRejected \| call to ipybox\.register_mcp_server rejected by the approver$/,
  );
  assert.equal(asked.length, 1);
  assert.match(
    asked[0] ?? '',
    /wants to call the PRIVILEGED tool \(it runs programs on this machine/,
  );
  assert.equal(existsSync(marker), false, 'ran before it was approved');

  answer = 'accept';
  const approved = await executeCode(connected, code, { kernel: declined.kernel });
  assert.equal(asked.length, 2);
  // Approved, it ran: sh touched the marker (and, being no MCP server, failed to register).
  assert.match(
    approved.text,
    /^ToolError \| ipybox\.register_mcp_server: register_mcp_server evil: /,
  );
  assert.equal(existsSync(marker), true);
});

test("code mode: the gate's kill switch and unlock are the operator's; kernel code cannot lock what the user unlocked", async (t) => {
  const secret = new Secret({ size: 20 }).base32;
  const { dir, config } = await factoryConfig(t, ['gated: {}']);
  const client = eraClient('legacy');
  await connectFactory(client, config, dir, { MCP_GATE_SECRET_SECRETS: secret });
  t.after(() => client.close());
  const code = TOTP.generate({ secret: Secret.fromBase32(secret) });
  const unlocked = await client.callTool({
    name: 'gate_unlock',
    arguments: { group: 'secrets', code },
  });
  assert.match(textOf(unlocked), /^Group 'secrets' unlocked/);

  const cell = await executeCode(
    client,
    callEach('from mcptools.gated import gate_lock, gate_unlock, gated_secret_action', [
      ['gate_lock', {}],
      ['gate_unlock', { group: 'secrets', code: '000000' }],
      ['gated_secret_action', { what: 'from code' }],
    ]),
  );
  const lines = cell.text.trim().split('\n');
  assert.match(
    lines[0] ?? '',
    /^ToolRejected \| call to gated\.gate_lock refused: it is a privileged tool/,
  );
  assert.match(
    lines[1] ?? '',
    /^ToolRejected \| call to gated\.gate_unlock refused: it is a privileged tool/,
  );
  // Still unlocked, for code (as its caller) and for the client.
  assert.equal(lines[2], 'Done: from code');
  const after = await client.callTool({ name: 'gated_secret_action', arguments: { what: 'x' } });
  assert.equal(textOf(after), 'Done: x');
});

test('plain ipybox: a privileged tool of a registered server (another ipybox) is refused to kernel code', async (t) => {
  const outer = await tempWorkspace();
  const inner = await tempWorkspace();
  t.after(async () => {
    await outer.remove();
    await inner.remove();
  });
  const box = await startStdioIpybox(outer.dir);
  t.after(() => box.close());
  const registered = (await box.client.callTool({
    name: 'register_mcp_server',
    arguments: {
      server_name: 'inner',
      server_params: { command: process.execPath, args: [IPYBOX_BIN, '--workspace', inner.dir] },
    },
  })) as CallToolResult;
  assert.notEqual(registered.isError, true, textOf(registered));
  const marker = join(outer.dir, 'spawned-on-the-host');
  const cell = await runCell(
    box.client,
    callEach('from mcptools.inner import register_mcp_server, reset', [
      ['register_mcp_server', spawning(marker)],
      ['reset', {}],
    ]),
  );
  const lines = textOf(cell).trim().split('\n');
  assert.match(
    lines[0] ?? '',
    /^ToolRejected \| call to inner\.register_mcp_server refused: it is a privileged tool/,
  );
  // An ordinary tool of the same server runs.
  assert.match(lines[1] ?? '', /^Kernel reset/);
  assert.equal(existsSync(marker), false, 'the command was run on the host');
});
