/**
 * Kernel code's approvals are framework grants (issue 32): real Python — the generated runtime's
 * own transport to the tool server, as kernel code has it — calls a tool of a real upstream under
 * `approval: ask`. The approver says yes once: the call runs and its reply names the grant. The
 * same grant replayed with the same call, and a tampered one, are refused (nothing runs, the
 * approver is not asked again); every step is in the audit log, hash-chained and intact.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  AuditLog,
  AuditTrail,
  processGrants,
  UpstreamPool,
  verifyAuditLog,
} from '@mcpbox/framework';
import { pythonJson } from '../__fixtures__/toolserver-python.ts';
import { generateMcpSources } from '../mcptools/generate.ts';
import { ToolServer } from '../toolserver/toolServer.ts';
import { ApprovalGate } from './approvalGate.ts';
import { KernelGrants } from './kernelGrants.ts';

const FIXTURE = fileURLToPath(new URL('../__fixtures__/toolserver-upstream.ts', import.meta.url));

type Reply = { result?: unknown; grant?: string; error?: string; type?: string };

test('an approval of kernel code is a single-use grant: replayed or tampered, it is refused', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'kernel-grants-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const pool = new UpstreamPool();
  await pool.define('fixture', { command: process.execPath, args: ['--import', 'tsx', FIXTURE] });
  const audit = new AuditTrail();
  const log = new AuditLog({ path: join(root, 'audit.jsonl') });
  audit.attach(log);
  const approval = new ApprovalGate({
    policy: 'ask',
    grants: new KernelGrants({ book: processGrants(), principal: () => 'sub:alice', audit }),
  });
  let asked = 0;
  approval.attach(() => ++asked === 1, 'test');
  const server = await ToolServer.start({ connections: pool, approval });
  t.after(() => server.close());
  await generateMcpSources('fixture', {}, root, {
    listTools: () => pool.get('fixture').listTools(),
  });

  const replies = await pythonJson<Record<'first' | 'replay' | 'tampered', Reply>>(
    `
import json, os
from mcptools._runtime import _exchange, TOKEN_ENV

def run(**extra):
    call = {'server_name': 'fixture', 'tool_name': 'echo-args',
            'tool_args': {'class': 'A', 'x-y': 1}, **extra}
    headers = {'Content-Type': 'application/json',
               'Authorization': 'Bearer ' + os.environ[TOKEN_ENV]}
    status, raw = _exchange(json.dumps(call).encode(), headers)
    return json.loads(raw)

first = run()
token = first.get('grant', '')
flipped = token[:-1] + ('A' if token[-1:] != 'A' else 'B')
print(json.dumps({'first': first, 'replay': run(grant=token), 'tampered': run(grant=flipped)}))
`,
    { root, env: server.kernelEnv() },
  );

  assert.deepEqual(JSON.parse(replies.first.result as string), { class: 'A', 'x-y': 1 });
  assert.match(replies.first.grant ?? '', /^[\w-]{22}\.[\w-]{43}$/);
  assert.equal(replies.replay.type, 'rejected');
  assert.match(replies.replay.error ?? '', /grant was refused: .*(used|taken)/);
  assert.equal(replies.tampered.type, 'rejected');
  assert.match(replies.tampered.error ?? '', /grant was refused/);
  assert.equal(asked, 1, 'the approver was asked once');

  await log.close();
  const records = (await readFile(log.path, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.deepEqual(
    records.map((r) => [r.kind, r.decision, r.principal, r.tool, r.by]),
    [
      ['approval', 'granted', 'sub:alice', 'echo-args', 'ipybox:test'],
      ['approval', 'refused', 'sub:alice', 'echo-args', 'grant:used'],
      ['approval', 'refused', 'sub:alice', 'echo-args', records[2].by],
    ],
  );
  assert.match(records[2].by, /^grant:(forged|unknown)$/);
  assert.equal((await verifyAuditLog(log.path)).ok, true);
});
