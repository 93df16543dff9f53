/**
 * The audit trail end to end: the real mcp-factory bin over stdio with `audit_log` and a policy
 * that denies `echo_upper` to the local user, real SDK clients of both eras. Allowed and denied
 * calls land in the log with the rule that decided, each result names its record, a second
 * server continues the chain, and `mcp-proxy audit verify` says the real file is intact — and,
 * after one edited byte, which line is not.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { type Era, versionOfEra } from '@mcpbox/framework';
import { connectStdio, FACTORY_BIN, runProxyCli, runServerBin, waitFor } from '@mcpbox/test-utils';
import { Client } from '@modelcontextprotocol/client';
import { testdir } from '../proxy/__fixtures__/testdir.ts';

const CONFIG = [
  'audit_log: logs/audit.jsonl',
  'policy:',
  '  default: allow',
  '  rules:',
  '    - name: no-upper-for-local',
  '      tools: [echo_upper]',
  '      deny: principal.kind == "local"',
  '',
].join('\n');

type After = { after(fn: () => Promise<void>): void };

const lines = (file: string) =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];

/** Runs mcp-factory with the config, makes `calls` as an `era` client, ends the server. */
async function session(t: After, home: string, era: Era, calls: string[]) {
  const file = join(home, 'logs', 'audit.jsonl');
  const before = lines(file).length;
  const client = new Client(
    { name: `audit-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } } },
  );
  await connectStdio(t, {
    bin: FACTORY_BIN,
    args: ['-c', join(home, 'factory.yaml'), '-p', 'echo'],
    home,
    client,
  });
  const results = [];
  for (const name of calls) {
    results.push(await client.callTool({ name, arguments: { message: `hi ${era}` } }));
  }
  // Closing stdin ends the server, which writes what it queued.
  await client.close();
  await waitFor(() => lines(file).length === before + calls.length, 'the audit records');
  return { file, results };
}

test('calls allowed and denied are in a hash-chained audit log that verify checks', async (t) => {
  const home = testdir({ 'factory.yaml': CONFIG }, t);
  const first = await session(t, home, 'modern', ['echo', 'echo_upper']);
  const [allowed, denied] = first.results;
  assert.equal(allowed.isError, undefined);
  assert.equal(denied.isError, true);
  assert.match(
    (denied.content as Array<{ text: string }>)[0].text,
    /denied by policy rule "no-upper-for-local"/,
  );

  const records = lines(first.file).map((line) => JSON.parse(line));
  assert.deepEqual(
    records.map(({ seq, kind, tool, plugin, decision, rule }) => ({
      seq,
      kind,
      tool,
      plugin,
      decision,
      rule,
    })),
    [
      { seq: 1, kind: 'call', tool: 'echo', plugin: 'echo', decision: 'allowed', rule: 'default' },
      {
        seq: 2,
        kind: 'call',
        tool: 'echo_upper',
        plugin: 'echo',
        decision: 'denied',
        rule: 'no-upper-for-local',
      },
    ],
  );
  assert.match(records[0].principal, /^local:/);
  assert.match(records[0].args_sha256, /^[0-9a-f]{64}$/);
  // The arguments themselves are not in the log.
  assert.doesNotMatch(readFileSync(first.file, 'utf8'), /hi modern/);
  // Each result names its record: seq and the start of its hash.
  assert.deepEqual(
    first.results.map((r) => r._meta?.['io.mcpbox/audit']),
    records.map((r) => `${r.seq}:${r.hash.slice(0, 16)}`),
  );

  // Another server on the same file continues the chain, here for a 2025 client.
  const second = await session(t, home, 'legacy', ['echo']);
  const third = JSON.parse(lines(second.file)[2]);
  assert.deepEqual([third.seq, third.prev], [3, records[1].hash]);
  assert.equal(second.results[0]._meta?.['io.mcpbox/audit'], `3:${third.hash.slice(0, 16)}`);

  const intact = await runProxyCli(['audit', 'verify', second.file]);
  assert.equal(intact.code, 0, intact.stderr);
  assert.equal(intact.stdout, `ok: 3 records, chain intact (last hash ${third.hash})\n`);

  // One byte changed in the second record: verify names its line and fails.
  const text = readFileSync(second.file, 'utf8');
  writeFileSync(second.file, text.replace('"tool":"echo_upper"', '"tool":"echo_Upper"'));
  const edited = await runProxyCli(['audit', 'verify', second.file]);
  assert.equal(edited.code, 1);
  assert.match(edited.stdout, /line 2: record seq 2 was changed after it was written/);
});

test('audit verify on a file that is not there: a clear error, exit 1', async () => {
  const missing = await runProxyCli(['audit', 'verify', '/nonexistent/audit.jsonl']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^Error: cannot read the audit log: ENOENT/);
});

test('an audit_log that cannot be written stops the start, naming the key and the file', async (t) => {
  // The path is a folder: the log cannot be read or appended to.
  const home = testdir({ 'factory.yaml': 'audit_log: logs\n', 'logs/x': '' }, t);
  const proc = await runServerBin(
    t,
    FACTORY_BIN,
    ['-c', join(home, 'factory.yaml'), '-p', 'echo'],
    /serving/,
    { env: { HOME: home } },
  );
  assert.equal(proc.exitCode, 1, proc.stderr());
  assert.match(proc.stderr(), /factory\.yaml: audit_log: cannot open \S+\/logs \(EISDIR/);
});
