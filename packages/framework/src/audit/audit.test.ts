import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFile, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import canonicalize from 'canonicalize';
import { AuditLog } from './log.ts';
import { argsDigest, GENESIS, parseRecord, recordHash, recordId, sealRecord } from './record.ts';
import { verifyAuditLog } from './verify.ts';

async function tempFile(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'audit-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'logs', 'audit.jsonl');
}

/** Writes `n` call records through a real AuditLog and closes it. */
async function writeLog(path: string, n: number, from = 0): Promise<void> {
  const log = new AuditLog({ path, logger: { warn: assert.fail } });
  for (let i = from; i < from + n; i++) {
    log.record({
      kind: 'call',
      principal: 'user:alice',
      tool: `tool_${i}`,
      plugin: 'echo',
      args_sha256: argsDigest({ i }),
      decision: i % 2 === 0 ? 'allowed' : 'denied',
      rule: i % 2 === 0 ? 'default' : 'no-secrets',
    });
  }
  await log.close();
}

const lines = async (path: string) => (await readFile(path, 'utf8')).split('\n').slice(0, -1);

describe('audit log', () => {
  test('records chain from the genesis value, and verify says the chain is intact', async (t) => {
    const path = await tempFile(t);
    await writeLog(path, 5);
    const records = (await lines(path)).map((l) => parseRecord(l));
    assert.equal(records.length, 5);
    assert.equal(records[0]?.prev, GENESIS);
    for (let i = 1; i < 5; i++) assert.equal(records[i]?.prev, records[i - 1]?.hash);
    assert.deepEqual(
      records.map((r) => r?.seq),
      [1, 2, 3, 4, 5],
    );
    assert.equal(records[1]?.decision, 'denied');
    assert.equal(records[1]?.rule, 'no-secrets');
    assert.match(records[0]?.time ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(await verifyAuditLog(path), { ok: true, records: 5, last: records[4]?.hash });
  });

  test('the hash is over prev and the RFC 8785 canonical JSON of the rest', () => {
    const { record, line } = sealRecord(
      { kind: 'call', principal: 'sub:é\u{1F600}', tool: 'a"b', decision: 'allowed', rule: 'r' },
      7,
      'f'.repeat(64),
      Date.UTC(2026, 0, 2),
    );
    const { hash, ...body } = record;
    // The line is the canonical JSON that was hashed, with the hash last.
    assert.equal(line, `${(canonicalize(body) as string).slice(0, -1)},"hash":"${hash}"}`);
    assert.deepEqual(JSON.parse(line), record);
    const expected = createHash('sha256').update(`${'f'.repeat(64)}${canonicalize(body)}`);
    assert.equal(hash, expected.digest('hex'));
    assert.equal(recordHash(record), hash);
    // A key a forger adds counts too.
    const forged = { ...record, extra: { nested: true } };
    assert.notEqual(recordHash(forged), hash);
  });

  test('the argument digest is canonical: key order does not matter, the values do', () => {
    assert.equal(argsDigest({ a: 1, b: [true, 'x'] }), argsDigest({ b: [true, 'x'], a: 1 }));
    assert.notEqual(argsDigest({ a: 1 }), argsDigest({ a: 2 }));
    assert.equal(argsDigest(undefined), argsDigest({}));
    assert.match(argsDigest({ a: 1 }), /^[0-9a-f]{64}$/);
    // Nested and flat arguments alike are RFC 8785's canonical JSON.
    for (const args of [
      { b: { y: 1, x: [0.5, null] }, a: 'é' },
      { z: 'x', a: 2, m: '\u{1F600}' },
    ]) {
      const canonical = createHash('sha256').update(canonicalize(args) as string);
      assert.equal(argsDigest(args), canonical.digest('hex'));
    }
    assert.match(argsDigest({ a: '\ud800' }), /^uncanonical: /);
  });

  test('a new writer continues the chain of the file it finds', async (t) => {
    const path = await tempFile(t);
    await writeLog(path, 3);
    await writeLog(path, 2, 3);
    assert.deepEqual((await verifyAuditLog(path)).ok, true);
    assert.equal((await lines(path)).length, 5);
  });

  test('record ids are seq and a hash prefix; fields are bounded', async (t) => {
    const path = await tempFile(t);
    const log = new AuditLog({ path });
    const record = log.record({
      kind: 'call',
      tool: 'x'.repeat(10_000),
      principal: 'half \ud800 a pair',
      decision: 'allowed',
    });
    await log.close();
    assert.ok(record);
    assert.equal(recordId(record), `1:${record.hash.slice(0, 16)}`);
    assert.ok((record.tool ?? '').length <= 256);
    assert.equal(record.principal, 'half \uFFFD a pair');
    assert.equal(log.record({ kind: 'call' }), undefined, 'closed: nothing more is recorded');
    assert.equal((await verifyAuditLog(path)).ok, true);
  });
});

describe('verifyAuditLog finds edited records and says where', () => {
  test('one edited byte: the line whose hash no longer matches', async (t) => {
    const path = await tempFile(t);
    await writeLog(path, 5);
    const text = await readFile(path, 'utf8');
    // Line 3 is tool_2: make it tool_7.
    await writeFile(path, text.replace('"tool_2"', '"tool_7"'));
    const result = await verifyAuditLog(path);
    assert.equal(result.ok, false);
    assert.ok(!result.ok);
    assert.equal(result.line, 3);
    assert.match(result.problem, /changed after it was written/);
  });

  test('a byte that breaks the JSON: that line is not a record', async (t) => {
    const path = await tempFile(t);
    await writeLog(path, 4);
    const all = await lines(path);
    all[1] = all[1].replace('{', '[');
    await writeFile(path, `${all.join('\n')}\n`);
    assert.deepEqual(await verifyAuditLog(path), {
      ok: false,
      line: 2,
      problem: 'not an audit record where seq 2 was expected (damaged, or cut off mid-record)',
    });
  });

  test('an empty line in the middle: that line, and the record it stands for', async (t) => {
    const path = await tempFile(t);
    await writeLog(path, 4);
    const all = await lines(path);
    all.splice(2, 0, '');
    await writeFile(path, `${all.join('\n')}\n`);
    assert.deepEqual(await verifyAuditLog(path), {
      ok: false,
      line: 3,
      problem: 'an empty line where record seq 3 was expected',
    });
  });

  test('an edited record whose hash was recomputed still breaks the next line', async (t) => {
    const path = await tempFile(t);
    await writeLog(path, 4);
    // A forger rewrites record 2 and seals it properly after record 1: its own hash holds, but
    // line 3's prev names the original record 2.
    const all = await lines(path);
    const first = parseRecord(all[0]);
    assert.ok(first);
    const forged = sealRecord(
      { kind: 'call', tool: 'harmless', decision: 'allowed' },
      2,
      first.hash,
      0,
    );
    all[1] = forged.line;
    await writeFile(path, `${all.join('\n')}\n`);
    const result = await verifyAuditLog(path);
    assert.ok(!result.ok);
    assert.equal(result.line, 3);
    assert.match(result.problem, /prev is not the hash of the record before it/);
  });
});

describe('verifyAuditLog finds removed, reordered and cut-off records', () => {
  test('a removed line: the next one is out of sequence', async (t) => {
    const path = await tempFile(t);
    await writeLog(path, 5);
    const all = await lines(path);
    all.splice(2, 1);
    await writeFile(path, `${all.join('\n')}\n`);
    const result = await verifyAuditLog(path);
    assert.ok(!result.ok);
    assert.equal(result.line, 3);
    assert.match(result.problem, /seq 4 where seq 3 was expected/);
  });

  test('the first line removed: the chain does not start at the genesis value', async (t) => {
    const path = await tempFile(t);
    await writeLog(path, 3);
    const all = await lines(path);
    await writeFile(path, `${all.slice(1).join('\n')}\n`);
    const result = await verifyAuditLog(path);
    assert.ok(!result.ok);
    assert.equal(result.line, 1);
  });

  test('two lines swapped', async (t) => {
    const path = await tempFile(t);
    await writeLog(path, 5);
    const all = await lines(path);
    [all[1], all[2]] = [all[2], all[1]];
    await writeFile(path, `${all.join('\n')}\n`);
    const result = await verifyAuditLog(path);
    assert.ok(!result.ok);
    assert.equal(result.line, 2);
    assert.match(result.problem, /seq 3 where seq 2 was expected/);
  });

  test('truncated mid-record: the last line, named as such', async (t) => {
    const path = await tempFile(t);
    await writeLog(path, 3);
    const size = Buffer.byteLength(await readFile(path, 'utf8'));
    await truncate(path, size - 30);
    assert.deepEqual(await verifyAuditLog(path), {
      ok: false,
      line: 3,
      problem: 'the file ends mid-record (truncated): record seq 3 is cut off',
    });
  });

  test('an empty file is an intact empty log; a missing one is an error', async (t) => {
    const path = await tempFile(t);
    await writeLog(path, 0);
    await writeFile(path, '');
    assert.deepEqual(await verifyAuditLog(path), { ok: true, records: 0 });
    await assert.rejects(verifyAuditLog(`${path}.missing`), { code: 'ENOENT' });
  });
});

describe('a writer finding a damaged file', () => {
  test('truncated mid-record: a break record continues from the last intact record', async (t) => {
    const path = await tempFile(t);
    await writeLog(path, 3);
    const size = Buffer.byteLength(await readFile(path, 'utf8'));
    await truncate(path, size - 30);
    await writeLog(path, 1, 3);
    const all = await lines(path);
    assert.equal(all.length, 5, 'the cut line stays, then the break, then the new record');
    const brk = parseRecord(all[3]);
    assert.equal(brk?.kind, 'break');
    assert.equal(brk?.seq, 3);
    assert.equal(brk?.prev, parseRecord(all[1])?.hash);
    assert.match(brk?.problem ?? '', /ended mid-record after the record seq 2/);
    assert.equal(parseRecord(all[4])?.prev, brk?.hash);
    // The damage stays visible: verify names the cut line.
    const result = await verifyAuditLog(path);
    assert.ok(!result.ok);
    assert.equal(result.line, 3);
    // Without the cut line the rest is one intact chain.
    all.splice(2, 1);
    await writeFile(path, `${all.join('\n')}\n`);
    assert.deepEqual((await verifyAuditLog(path)).ok, true);
  });

  test('a whole last record without its newline is continued as it is', async (t) => {
    const path = await tempFile(t);
    await writeLog(path, 2);
    await truncate(path, Buffer.byteLength(await readFile(path, 'utf8')) - 1);
    await writeLog(path, 1, 2);
    assert.deepEqual((await verifyAuditLog(path)).ok, true);
    assert.equal((await lines(path)).length, 3);
  });

  test('a last line that is not a record (edited, complete) also starts a segment', async (t) => {
    const path = await tempFile(t);
    await writeLog(path, 2);
    await appendFile(path, 'garbage\n');
    await writeLog(path, 1, 2);
    const all = await lines(path);
    assert.equal(parseRecord(all[3])?.kind, 'break');
    assert.match(parseRecord(all[3])?.problem ?? '', /last line was not an audit record/);
  });
});
