/**
 * Management operations in the audit trail, end to end: a real `mcp-proxy` over HTTP with
 * `audit_log` and OTLP pointed at a local receiver (a node:http server standing in for an
 * OpenTelemetry collector). Operations asked over the management REST API and through the
 * `proxy__*` tools land in the log with who asked and the outcome — never an operation's
 * secret arguments —, every record also reaches the collector as a log record carrying its
 * line and hash, and `mcp-proxy audit verify` passes on the real file. Copies of that file, cut
 * mid-record, with an empty line, a record removed, two swapped or a byte edited, fail verify
 * at the line where it happened.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  connectHttp,
  runProxyCli,
  startHttpProxy,
  startOtlpReceiver,
  textOf,
  waitFor,
} from '@mcpbox/test-utils';
import { testdir } from '../proxy/__fixtures__/testdir.ts';

const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

/** `mcp-proxy audit verify` on `text` written to a file of its own. */
async function verify(dir: string, name: string, text: string) {
  const file = join(dir, name);
  writeFileSync(file, text);
  return runProxyCli(['audit', 'verify', file]);
}

test('operations from REST and proxy__* tools are audited, exported over OTLP, and verified', async (t) => {
  const collector = await startOtlpReceiver(t);
  const home = testdir({ 'proxy.yaml': 'audit_log: logs/audit.jsonl\n' }, t);
  const file = join(home, 'logs', 'audit.jsonl');
  const proxy = await startHttpProxy(t, ['-c', join(home, 'proxy.yaml'), '-a', 'echo'], {
    env: { HOME: home, OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint },
    timeoutMs: 60_000,
  });
  const mgmt = `http://127.0.0.1:${proxy.mgmtPort}`;
  const post = (path: string, body: unknown) =>
    fetch(`${mgmt}${path}`, { method: 'POST', body: JSON.stringify(body) });

  // Over REST: a reload that works, and a command that does not exist, with a secret argument.
  assert.equal((await post('/proxy/reload', { plugin: 'echo' })).status, 200);
  assert.equal((await post('/proxy/command/rotate', { token: 'sekrit-123' })).status, 404);
  // Through the tools, as an MCP client.
  const client = await connectHttp(t, proxy.mcpUrl);
  assert.match(textOf(await client.callTool({ name: 'proxy__status' })), /Plugins: +2 loaded/);
  const failed = await client.callTool({ name: 'proxy__reload', arguments: { plugin: 'nope' } });
  assert.equal(failed.isError, true);
  // Decisions name what they decided on, even when there was nothing to decide.
  assert.equal((await post('/proxy/pins/approve', { server: 'echo', name: 'echo' })).status, 409);
  assert.equal(
    (await fetch(`${mgmt}/proxy/approvals/approve/a1b2`, { method: 'POST' })).status,
    404,
  );
  // Six operations and the two tool calls that carried two of them.
  await waitFor(() => lines(file).length === 8, 'the audit records');
  const records = lines(file).map((line) => JSON.parse(line));

  const operations = records
    .filter((r) => r.kind === 'operation')
    .map(({ operation, plugin, tool, target, by, decision }) => ({
      operation,
      plugin,
      tool,
      target,
      by,
      decision,
    }));
  const u = undefined;
  const api = 'management:api';
  assert.deepEqual(operations, [
    { operation: 'reload', plugin: 'echo', tool: u, target: u, by: api, decision: 'allowed' },
    { operation: 'command', plugin: u, tool: u, target: 'rotate', by: api, decision: 'error' },
    { operation: 'status', plugin: u, tool: u, target: u, by: u, decision: 'allowed' },
    { operation: 'reload', plugin: 'nope', tool: u, target: u, by: u, decision: 'error' },
    {
      operation: 'pins_approve',
      plugin: 'echo',
      tool: 'echo',
      target: u,
      by: api,
      decision: 'error',
    },
    { operation: 'approve', plugin: u, tool: u, target: 'a1b2', by: api, decision: 'error' },
  ]);
  // The tools' operations name the MCP principal that asked, as its call record does.
  const fromTools = records.filter((r) => r.kind === 'operation' && r.by === undefined);
  const calls = records.filter((r) => r.kind === 'call');
  assert.deepEqual(
    calls.map((r) => r.tool),
    ['proxy__status', 'proxy__reload'],
  );
  assert.ok(fromTools.every((r) => typeof r.principal === 'string'));
  assert.deepEqual(
    fromTools.map((r) => r.principal),
    calls.map((r) => r.principal),
  );
  // The command's arguments are not recorded.
  assert.doesNotMatch(readFileSync(file, 'utf8'), /sekrit/);

  // Every record also went to the collector: its line as the body, its fields (hash too) as attributes.
  const exported = await collector.waitForLogs((logs) => logs.length >= records.length);
  assert.deepEqual(
    exported.map((log) => log.body),
    lines(file),
  );
  assert.deepEqual(
    exported.map((log) => log.attributes['mcpbox.audit.hash']),
    records.map((r) => r.hash),
  );
  assert.deepEqual(
    exported.map((log) => [log.eventName, log.service, log.attributes['mcpbox.audit.kind']]),
    records.map((r) => ['mcpbox.audit', 'mcp-proxy', r.kind]),
  );
  assert.equal(exported.find((log) => log.body === lines(file)[1])?.severityText, 'WARN');

  await proxy.stop();
  const intact = await runProxyCli(['audit', 'verify', file]);
  assert.equal(intact.code, 0, intact.stderr);
  assert.match(intact.stdout, /^ok: 8 records, chain intact/);

  // The real log, damaged five ways: each fails verify at the line where it happened.
  const text = readFileSync(file, 'utf8');
  const all = lines(file);
  const joined = (list: string[]) => `${list.join('\n')}\n`;
  const cutAt = text.indexOf('"decision"', text.indexOf(all[3]));
  const cases: Array<[string, string, RegExp]> = [
    [
      'cut.jsonl',
      text.slice(0, cutAt),
      /line 4: the file ends mid-record \(truncated\): record seq 4 is cut off/,
    ],
    [
      'blank.jsonl',
      joined([...all.slice(0, 2), '', ...all.slice(2)]),
      /line 3: an empty line where record seq 3 was expected/,
    ],
    [
      'removed.jsonl',
      joined([...all.slice(0, 2), ...all.slice(3)]),
      /line 3: seq 4 where seq 3 was expected \(a record was removed, added or reordered\)/,
    ],
    [
      'swapped.jsonl',
      joined([all[0], all[2], all[1], ...all.slice(3)]),
      /line 2: seq 3 where seq 2 was expected/,
    ],
    [
      'edited.jsonl',
      text.replace('"target":"rotate"', '"target":"rotatf"'),
      /line 2: record seq 2 was changed after it was written/,
    ],
  ];
  for (const [name, damaged, expected] of cases) {
    const result = await verify(home, name, damaged);
    assert.equal(result.code, 1, `${name}: ${result.stdout}`);
    assert.match(result.stdout, expected, name);
    assert.equal(result.stderr, '', `${name}: a verdict, not a crash`);
  }
});
