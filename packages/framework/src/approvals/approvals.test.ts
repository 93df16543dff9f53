import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitFor } from '@mcpbox/test-utils';
import { randomKeyRing } from '../state/keys.ts';
import { MemoryRecordStore } from '../state/memoryRecords.ts';
import { approvalsContract } from './approvals.contract.ts';
import { OperatorDesk } from './desk.ts';
import { GrantBook } from './grants.ts';

approvalsContract('in memory', async () => {
  const store = new MemoryRecordStore();
  return { a: store, b: store };
});

test('a waiting call id is safe to type as a CLI argument (never starts with "-")', async () => {
  const store = new MemoryRecordStore();
  const keys = randomKeyRing();
  const desk = new OperatorDesk(store, new GrantBook(store, () => keys));
  const controller = new AbortController();
  const subject = { principal: 'p', server: 's', tool: 't', argsDigest: 'a', policyVersion: 'b' };
  const request = { subject, args: {}, rule: 'r', via: 'call' };
  // One in 64 base64url ids starts with '-': 256 waits make a slip all but certain to show.
  const waits = Array.from({ length: 256 }, () => desk.wait(request, 60_000, controller.signal));
  let ids: string[] = [];
  await waitFor(async () => {
    ids = (await desk.pending()).map((pending) => pending.id);
    return ids.length === waits.length;
  }, 'every call to wait');
  controller.abort();
  await Promise.all(waits);
  for (const id of ids) assert.match(id, /^[0-9a-f]{24}$/);
});
