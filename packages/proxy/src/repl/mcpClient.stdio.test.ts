/**
 * The real `mcp-client` bin, driven through piped stdin, against real servers over stdio:
 * @modelcontextprotocol/server-everything, a small fixture that changes its tool list, and a
 * 2026-only SDK v2 server (the framework's upstream-modern fixture).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  askingServerCommand,
  clientBin,
  everythingBin,
  growingServerCommand,
  killGroup,
  repoRoot,
  runScript,
  startClient,
} from './__fixtures__/driveClient.ts';

const everything = ['--quiet-server', '--', everythingBin, 'stdio'];

/** The PNG that server-everything's get-tiny-image returns (the package ships no types). */
async function tinyImageBytes(): Promise<number> {
  const module = '@modelcontextprotocol/server-everything/dist/tools/get-tiny-image.js';
  const { MCP_TINY_IMAGE } = (await import(module)) as { MCP_TINY_IMAGE: string };
  return Buffer.from(MCP_TINY_IMAGE, 'base64').length;
}

test('every command works against server-everything over stdio, and EOF exits 0', async (t) => {
  const run = await runScript(t, everything, [
    'tools',
    'call echo {"message":"hi there"}',
    'echo hello world',
    'get-sum {"a": 2, "b": 40}',
    'get-tiny-image',
    'get-structured-content Chicago',
    'trigger-long-running-operation {"duration": 0.2, "steps": 2}',
    'resources',
    'read demo://resource/static/document/architecture.md',
    'prompts',
    'prompt args-prompt {"city":"Paris"}',
    'info',
    'help',
  ]);
  assert.equal(run.code, 0, run.output);
  const out = run.stdout;
  assert.match(
    out,
    /^Connected to mcp-servers\/everything 2\.0\.0 via stdio .*pid \d+.*: \d+ tools/m,
  );
  assert.match(out, /\d+ tools:\n {2}echo\(message\) — Echoes back the input string/);
  assert.match(out, /get-sum\(a, b\)/);
  assert.match(out, /Echo: hi there/);
  assert.match(out, /Echo: hello world/);
  assert.match(out, /The sum of 2 and 40 is 42\./);
  const bytes = await tinyImageBytes();
  assert.ok(out.includes(`[image image/png, ${bytes} bytes]`), out);
  assert.match(out, /structuredContent:\n\{\n {2}"temperature": /);
  assert.match(out, /progress 1\/2\n(progress 2\/2\n)?Long running operation completed/);
  assert.match(out, /resources:\n {2}demo:\/\/resource\/static\/document\/architecture\.md/);
  assert.match(out, /resource templates:\n {2}demo:\/\/resource\/dynamic\/text\/\{resourceId\}/);
  assert.match(out, /# Everything Server – Architecture/);
  assert.match(out, /args-prompt\(city, state\?\)/);
  assert.match(out, /\[user\] .*Paris/);
  assert.match(out, /Server: mcp-servers\/everything 2\.0\.0 \(Everything Reference Server\)/);
  assert.match(out, /Capabilities: \{\n/);
  assert.match(out, /Instructions:\n# Everything Server/);
  assert.match(out, /call NAME \[ARGS\]/);
  assert.equal(run.stderr, '', 'no errors expected');
});

test('bad input gets a message, the next command still runs, and the script exits 1', async (t) => {
  const run = await runScript(t, everything, [
    'frobnicate',
    'call echo {"message": oops}',
    'call no-such-tool',
    'get-sum 5',
    'read',
    'read demo://no/such/thing',
    'echo still alive',
    'quit',
    'echo never runs',
  ]);
  assert.equal(run.code, 1, run.output);
  assert.match(run.stderr, /mcp-client: 6 commands failed \(exit code 1\)\.\n$/);
  assert.match(run.stderr, /Unknown command "frobnicate"\. Type "help"/);
  assert.match(
    run.stderr,
    /Bad JSON: .*Arguments are a JSON object, e\.g\. call echo \{"message": …\}/,
  );
  assert.match(run.stderr, /Unknown tool "no-such-tool"/);
  assert.match(run.stderr, /call get-sum takes 2 parameters \(a, b\): pass a JSON object/);
  assert.match(run.stderr, /Usage: read URI/);
  assert.match(run.stderr, /Error: MCP error .*demo:\/\/no\/such\/thing/i);
  assert.match(run.stdout, /Echo: still alive/);
  assert.doesNotMatch(run.stdout, /never runs/);
});

test('call NAME without arguments asks for each required parameter, typed, re-asking bad values', async (t) => {
  const run = await runScript(t, everything, [
    'call get-sum',
    'x', // not a number: explained, asked again
    '3',
    '4.5',
    'get-structured-content',
    'Atlantis', // not in the enum
    'Chicago',
    'prompt args-prompt',
    'Oslo', // city; state is optional, so a script is not asked for it
    'echo after the prompt',
  ]);
  assert.equal(run.code, 0, run.output);
  assert.match(
    run.stdout,
    /mcp> call get-sum\n {2}a \(number, required\)[^:\n]*: x\n {2}a \(number, required\)[^:\n]*: 3\n/,
  );
  assert.match(run.stderr, /a: expected a number, got "x"/);
  assert.match(run.stdout, /The sum of 3 and 4\.5 is 7\.5\./);
  assert.match(
    run.stderr,
    /location: expected one of New York\|Chicago\|Los Angeles, got "Atlantis"/,
  );
  assert.match(run.stdout, /"temperature"/);
  assert.match(
    run.stdout,
    /mcp> prompt args-prompt\n {2}city \(string, required\)[^\n]*: Oslo\n\[user\] .*Oslo/,
  );
  assert.match(run.stdout, /Echo: after the prompt/);
  assert.doesNotMatch(run.stdout, /state \(/);
});

test('a tool with only optional parameters is called with {}; the next line stays a command', async (t) => {
  const run = await runScript(t, everything, [
    'get-resource-reference', // resourceType?, resourceId?
    'echo next line',
    'call get-resource-links', // count?
    'echo last line',
  ]);
  assert.equal(run.code, 0, run.output);
  assert.doesNotMatch(run.stdout, /resourceType \(|count \(/, 'nothing is asked');
  assert.match(
    run.stdout,
    /mcp> get-resource-reference\nReturning resource reference for Resource 1/,
  );
  assert.match(run.stdout, /mcp> echo next line\nEcho: next line\n/);
  assert.match(
    run.stdout,
    /mcp> call get-resource-links\nHere are \d+ resource links.*\n\[resource link demo:\/\/resource\//,
  );
  assert.match(run.stdout, /mcp> echo last line\nEcho: last line\n/);
  assert.equal(run.stderr, '');
});

test('arguments are quoted like a shell: bare values and NAME=VALUE pairs', async (t) => {
  const run = await runScript(t, everything, [
    'echo "a b"',
    `echo 'single  quoted'   and more`,
    "echo don't panic",
    'get-sum a=2 b="40"',
    `prompt args-prompt city="New York" state='NY'`,
    'echo "unterminated',
  ]);
  assert.match(run.stdout, /^Echo: a b$/m);
  assert.match(run.stdout, /^Echo: single {2}quoted {3}and more$/m);
  assert.match(run.stdout, /^Echo: don't panic$/m);
  assert.match(run.stdout, /The sum of 2 and 40 is 42\./);
  assert.match(run.stdout, /\[user\] .*New York, NY/);
  assert.match(run.stderr, /call echo: unterminated " quote in: "unterminated/);
  assert.equal(run.code, 1, 'the unterminated quote failed');
});

test('a script exits 1 when a tool answers isError, and says how many commands failed', async (t) => {
  const failing = await runScript(
    t,
    ['--', ...growingServerCommand],
    ['shout before', 'fail', 'shout after'],
  );
  assert.equal(failing.code, 1, failing.output);
  assert.match(
    failing.stdout,
    /BEFORE[\s\S]*Tool error \(isError\):\nit broke on purpose[\s\S]*AFTER/,
  );
  assert.match(failing.stderr, /mcp-client: 1 command failed \(exit code 1\)\./);

  const passing = await runScript(t, ['--', ...growingServerCommand], ['shout fine']);
  assert.equal(passing.code, 0, passing.output);
  assert.equal(passing.stderr, '');
});

test('an approval request (ipybox --approval elicit) is asked once; Enter approves', async (t) => {
  const run = await runScript(
    t,
    ['--', ...askingServerCommand],
    [
      'guarded',
      '', // Enter: the default, approve
      'guarded',
      'n',
      'configure',
      '', // accept the form
      '', // retries: Enter takes the default 3
      'echo-less line that must be a command',
    ],
  );
  const approvals = run.stdout.match(/Approve \(Run files\.rm\)\? \[Y\]es, \[n\]o, \[c\]ancel: /g);
  assert.equal(approvals?.length, 2, run.output);
  assert.doesNotMatch(run.stdout, /approve \(boolean/);
  assert.doesNotMatch(run.stderr, /is required/);
  assert.match(
    run.stdout,
    /\[c\]ancel: \nanswer: \{"action":"accept","content":\{"approve":true\}\}\n[\s\S]*\[c\]ancel: n\nanswer: \{"action":"accept","content":\{"approve":false\}\}/,
  );
  assert.match(
    run.stdout,
    /retries \(integer, required, Enter for 3\): \nanswer: \{"action":"accept","content":\{"retries":3\}\}/,
  );
  assert.match(run.stderr, /Unknown command "echo-less"/);
});

test('a server asking for input (elicitation) gets the answers typed at the prompt', async (t) => {
  const run = await runScript(t, everything, [
    'trigger-elicitation-request',
    'y',
    'Ann', // name (required)
    'yes', // check
    '', // firstLine: skipped, the SDK fills in the default
    'ann@example.com',
    '',
    '',
    '7', // integer
    '',
    'Joey',
    '',
    'wonder woman', // a titled choice, typed by its title
    '',
    '',
    'trigger-elicitation-request',
    'n',
  ]);
  assert.equal(run.code, 0, run.output);
  assert.match(run.stdout, /The server asks: Please provide inputs for the following fields:/);
  assert.match(run.stdout, /User provided the requested information!\nUser inputs:\n- Name: Ann\n/);
  assert.match(run.stdout, /- Favorite Integer: 7/);
  assert.match(run.stdout, /"titledSingleSelectEnum": "hero-3"/);
  assert.match(run.stdout, /"firstLine": "It was a dark and stormy night\."/);
  assert.match(run.stdout, /User declined to provide the requested information/);
});

test('input ending in the middle of the questions gives a message, not a call', async (t) => {
  const run = await runScript(t, everything, ['call get-sum', '1']);
  assert.equal(run.code, 1, run.output);
  assert.match(run.stderr, /Not sent: input ended before every required parameter was given/);
  assert.doesNotMatch(run.stdout, /The sum/);
});

test('a server killed mid-session: a message, the prompt comes back, reconnect restarts it', async (t) => {
  const client = startClient(t, everything);
  const banner = await client.waitFor(/pid (\d+)/);
  const pid = Number(/pid (\d+)/.exec(banner)![1]);
  client.send('echo before');
  await client.waitFor('Echo: before');
  process.kill(pid, 'SIGKILL');
  await client.waitFor('The connection to the server closed. Type "reconnect"');
  client.send('echo after');
  await client.waitFor('Not connected to the server');
  client.send('tools');
  await client.waitFor('Not connected to the server');
  client.send('reconnect');
  await client.waitFor(/Connected to mcp-servers\/everything .*pid (\d+)/);
  client.send('echo again');
  await client.waitFor('Echo: again');
  client.send('quit');
  // Piped input is a script, and the two commands sent while disconnected failed in it.
  assert.equal(await client.exited, 1);
  assert.match(client.stderr(), /mcp-client: 2 commands failed \(exit code 1\)\./);
});

test('list_changed: the refreshed tool list is announced, new tools are callable', async (t) => {
  const client = startClient(t, ['--', ...growingServerCommand]);
  await client.waitFor('Connected to growing 1.0.0');
  client.send('tools');
  await client.waitFor('4 tools:');
  client.send('grow');
  await client.waitFor('grown');
  await client.waitFor('Tool list refreshed: 4 -> 6 tools (+twice, +thrice)');
  client.send('twice 21'); // shorthand with the sole required parameter, typed as a number
  const out = await client.waitFor(/structuredContent:\n\{\n {2}"result": 42\n\}/);
  assert.match(out, /mcp> twice 21\n42\n/);
  client.send('fail');
  await client.waitFor('Tool error (isError):\nit broke on purpose');
  client.send('exit');
  assert.equal(await client.exited, 1, 'a script in which `fail` failed');
});

test('start-up failures exit 1 with a one-line reason', async (t) => {
  const none = await runScript(t, [], []);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /missing required argument 'server'/);

  const missing = await runScript(t, ['--', '/nonexistent/server-binary'], []);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /mcp-client: could not connect: .*ENOENT/);

  const dies = await runScript(t, ['--', process.execPath, '-e', 'process.exit(3)'], []);
  assert.equal(dies.code, 1);
  assert.match(
    dies.stderr,
    /could not connect: .*the server exited before the MCP handshake finished/,
  );
});

test('either protocol era: negotiated by default and named in the banner; --protocol pins one', async (t) => {
  const modern = [
    '--quiet-server',
    '--',
    process.execPath,
    '--import',
    'tsx',
    join(repoRoot, 'packages/framework/src/__fixtures__/upstream-modern.ts'),
  ];
  const auto = await runScript(t, modern, ['echo {"text":"hi"}']);
  assert.equal(auto.code, 0, auto.output);
  assert.match(
    auto.stdout,
    /^Connected to upstream-modern 1\.0\.0 via stdio .*, protocol 2026-07-28 \(modern\): \d+ tools/m,
  );
  assert.match(auto.stdout, /echo: hi/);

  const pinned = await runScript(
    t,
    ['--protocol', '2026-07-28', ...modern],
    ['echo {"text":"pinned"}'],
  );
  assert.equal(pinned.code, 0, pinned.output);
  assert.match(pinned.stdout, /protocol 2026-07-28 \(modern\)/);
  assert.match(pinned.stdout, /echo: pinned/);

  const refused = await runScript(t, ['--protocol', '2025-11-25', ...modern], []);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^mcp-client: could not connect: .*2025-11-25/m);

  const legacy = await runScript(t, ['--quiet-server', '--', ...growingServerCommand], ['tools']);
  assert.equal(legacy.code, 0, legacy.output);
  assert.match(
    legacy.stdout,
    /^Connected to growing 1\.0\.0 via stdio .*, protocol 2025-11-25 \(legacy\)/m,
  );
});

test('`mcp-client … < script | head -n 1`: the closed pipe ends the client quietly with 0', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-client-pipe-'));
  t.after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 }));
  const script = join(dir, 'script.txt');
  // Far more output than a pipe buffers, so the client is still writing after head has exited.
  writeFileSync(script, 'help\n'.repeat(300));
  const pipeline = spawn(
    'bash',
    [
      '-c',
      // $PIPESTATUS alone is its first element: the client's exit status, not head's.
      '"$NODE" "$CLIENT" --quiet-server -- "$SERVER" stdio < "$SCRIPT" | head -n 1; exit "$PIPESTATUS"',
    ],
    {
      env: {
        ...process.env,
        NODE: process.execPath,
        CLIENT: clientBin,
        SERVER: everythingBin,
        SCRIPT: script,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  t.after(() => killGroup(pipeline));
  let stdout = '';
  let stderr = '';
  pipeline.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  pipeline.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const [code] = await once(pipeline, 'exit');
  assert.equal(stderr, '', 'no EPIPE stack trace');
  assert.equal(code, 0, 'the client itself exits 0');
  assert.match(stdout, /^Connected to mcp-servers\/everything [^\n]*\n$/);
  const pid = Number(/pid (\d+)/.exec(stdout)![1]);
  assert.throws(
    () => process.kill(pid, 0),
    { code: 'ESRCH' },
    'the stdio server it started is gone',
  );
});
