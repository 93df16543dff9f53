/**
 * `verifyAuditLog`: reads an audit log from the start and checks every record against the chain
 * (`record.ts`): each line is a record, its hash matches its content (else it was edited), its
 * `seq` is the next one and its `prev` the hash of the record before (else one was removed,
 * added or reordered; the first record's `prev` is the genesis value). The first problem is the
 * answer, with its line number. The file is read as a stream: a long log costs time, not memory.
 *
 * @module
 */
import { createReadStream } from 'node:fs';
import { GENESIS, parseRecord, recordHash } from './record.ts';

export type AuditVerification =
  | {
      ok: true;
      records: number /** The last record's hash; absent for an empty log. */;
      last?: string;
    }
  | { ok: false; line: number; problem: string };

/** What the check has seen so far. */
interface Chain {
  line: number;
  seq: number;
  prev: string;
}

/** The problem with `text` as line `chain.line`, or `undefined` when it continues the chain. */
function checkLine(text: string, chain: Chain, terminated: boolean): string | undefined {
  const record = parseRecord(text);
  if (record === undefined) {
    // The line stands where the next record belongs: say which, so the operator knows what is lost.
    const next = chain.seq + 1;
    if (!terminated) return `the file ends mid-record (truncated): record seq ${next} is cut off`;
    return text === ''
      ? `an empty line where record seq ${next} was expected`
      : `not an audit record where seq ${next} was expected (damaged, or cut off mid-record)`;
  }
  if (recordHash(record) !== record.hash) {
    return `record seq ${record.seq} was changed after it was written (its hash does not match its content)`;
  }
  if (record.seq !== chain.seq + 1) {
    return `seq ${record.seq} where seq ${chain.seq + 1} was expected (a record was removed, added or reordered)`;
  }
  if (record.prev !== chain.prev) {
    return chain.seq === 0
      ? 'the first record does not start the chain (records before it were removed)'
      : `its prev is not the hash of the record before it (a record before it was changed, removed or reordered)`;
  }
  chain.seq = record.seq;
  chain.prev = record.hash;
  return undefined;
}

/**
 * Checks the log at `path` record by record.
 * @throws when the file cannot be read (the error names it).
 */
export async function verifyAuditLog(path: string): Promise<AuditVerification> {
  const chain: Chain = { line: 0, seq: 0, prev: GENESIS };
  let rest = '';
  for await (const chunk of createReadStream(path, { encoding: 'utf8' })) {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() as string;
    for (const text of lines) {
      chain.line++;
      const problem = checkLine(text, chain, true);
      if (problem !== undefined) return { ok: false, line: chain.line, problem };
    }
  }
  if (rest !== '') {
    chain.line++;
    const problem = checkLine(rest, chain, false);
    if (problem !== undefined) return { ok: false, line: chain.line, problem };
  }
  return chain.seq === 0
    ? { ok: true, records: 0 }
    : { ok: true, records: chain.seq, last: chain.prev };
}
