/**
 * The limiter over the in-memory store (rate-limiter-flexible's `RateLimiterMemory` and the
 * lease store on a `MemoryRecordStore`): budgets per principal, cost, tool rules, daily quotas
 * by UTC day, concurrency slots, nested calls, exemptions, usage, and the message a caller reads.
 */
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { test } from 'node:test';
import { limitError, refusalMessage } from './errors.ts';
import { LIMITS_CHANNEL, type LimitDecision, type LimitEvent, Limiter } from './limiter.ts';
import { parseLimitSettings } from './settings.ts';
import { memoryLimitStore } from './store.ts';

const limiter = (written: unknown, clock?: () => number) =>
  new Limiter(parseLimitSettings(written)!, memoryLimitStore(), { clock });

const call = (principal: string, tool = 'echo', plugin = 'echo', nested = false) => ({
  principal,
  tool,
  plugin,
  nested,
});

function refused(decision: LimitDecision) {
  assert.equal(decision.admitted, false, 'refused');
  return (decision as Extract<LimitDecision, { admitted: false }>).refusal;
}

test('a principal’s rate runs out for it alone; a refused call spends nothing', async () => {
  const limits = limiter({ per_principal: { rate: '3/minute' } });
  for (let i = 0; i < 3; i++) assert.equal((await limits.admit(call('sub:alice'))).admitted, true);
  const refusal = refused(await limits.admit(call('sub:alice')));
  assert.equal(refusal.limit, 'rate');
  assert.ok(refusal.retryAfterMs > 55_000 && refusal.retryAfterMs <= 60_000);
  assert.equal(
    refusalMessage({ ...refusal, retryAfterMs: 12_000 }, 'echo'),
    'rate limit of 3 calls per minute for sub:alice reached; retry in 12 s',
  );
  const error = limitError(refusal, 'echo');
  assert.equal(error.code, -32029);
  assert.deepEqual(Object.keys(error.data as object).sort(), [
    'limit',
    'max',
    'period',
    'principal',
    'retryAfterMs',
    'scope',
    'tool',
  ]);
  assert.equal((await limits.admit(call('sub:bob'))).admitted, true, 'bob has his own budget');
  const usage = await limits.usage('sub:alice');
  assert.deepEqual(
    usage.budgets.map(({ limit, used, max }) => ({ limit, used, max })),
    [{ limit: 'rate', used: 3, max: 3 }],
  );
  assert.equal(usage.scope, 'process');
});

test('a tool rule’s cost spends the principal’s budget; its own rate counts its calls', async () => {
  const limits = limiter({
    per_principal: { rate: '10/minute' },
    tools: [{ match: 'warehouse__*', rate: '3/minute', cost: 4 }],
  });
  const query = call('sub:alice', 'warehouse__query', 'warehouse');
  assert.equal((await limits.admit(query)).admitted, true);
  assert.equal((await limits.admit(query)).admitted, true);
  const refusal = refused(await limits.admit(query));
  assert.deepEqual([refusal.scope, refusal.cost], ['principal', 4]);
  assert.match(
    refusalMessage(refusal, 'warehouse__query'),
    /^rate limit of 10 calls per minute for sub:alice reached \(a call to warehouse__query counts as 4\); retry in \d+ s$/,
  );
  assert.equal((await limits.admit(call('sub:alice'))).admitted, true, '8 + 1 of 10');

  const own = limiter({ tools: [{ plugin: 'warehouse', rate: '1/hour', cost: 0 }] });
  assert.equal((await own.admit(query)).admitted, true);
  const ruled = refused(await own.admit(query));
  assert.equal(
    refusalMessage({ ...ruled, retryAfterMs: 3_600_000 }, 'warehouse__query'),
    'rate limit of 1 call per hour on plugin:warehouse for sub:alice reached; retry in 60 min',
  );
});

test('a daily quota lasts until midnight UTC and does not spend the rate when refused', async () => {
  let now = Date.parse('2026-03-01T21:00:00Z');
  const limits = limiter({ per_principal: { rate: '10/minute', daily: 2 } }, () => now);
  assert.equal((await limits.admit(call('sub:alice'))).admitted, true);
  assert.equal((await limits.admit(call('sub:alice'))).admitted, true);
  const refusal = refused(await limits.admit(call('sub:alice')));
  assert.equal(refusal.limit, 'daily');
  assert.equal(refusal.retryAfterMs, 3 * 3_600_000);
  assert.equal(
    refusalMessage(refusal, 'echo'),
    'daily quota of 2 calls for sub:alice reached; retry in 3 h',
  );
  const rate = (await limits.usage('sub:alice')).budgets.find((b) => b.limit === 'rate');
  assert.equal(rate?.used, 2, 'the refused call gave its rate back');
  now = Date.parse('2026-03-02T00:00:01Z');
  assert.equal((await limits.admit(call('sub:alice'))).admitted, true, 'a new day');
});

test('concurrent calls: a slot per running call, none for a nested one, back on release', async () => {
  const limits = limiter({ per_principal: { concurrent: 1 } });
  const first = await limits.admit(call('sub:alice'));
  assert.ok(first.admitted);
  const refusal = refused(await limits.admit(call('sub:alice')));
  assert.equal(
    refusalMessage(refusal, 'echo'),
    'concurrency limit of 1 running call for sub:alice reached; retry when one of them has ended',
  );
  assert.equal((await limits.admit(call('sub:alice', 'echo', 'echo', true))).admitted, true);
  assert.deepEqual(
    (await limits.usage('sub:alice')).budgets.map(({ limit, used }) => ({ limit, used })),
    [{ limit: 'concurrent', used: 1 }],
  );
  first.release();
  first.release();
  assert.equal((await limits.admit(call('sub:alice'))).admitted, true);
});

test('exempt principals are never limited nor counted; events carry usage per principal', async () => {
  const limits = limiter({ per_principal: { rate: '1/minute' }, exempt: ['local:*'] });
  const events: LimitEvent[] = [];
  const listen = (message: unknown) => events.push(message as LimitEvent);
  subscribe(LIMITS_CHANNEL, listen);
  try {
    for (let i = 0; i < 3; i++) assert.ok((await limits.admit(call('local:me'))).admitted);
    await limits.admit(call('sub:alice'));
    await limits.admit(call('sub:alice'));
  } finally {
    unsubscribe(LIMITS_CHANNEL, listen);
  }
  assert.deepEqual(events, [
    { principal: 'sub:alice', outcome: 'admitted', cost: 1 },
    { principal: 'sub:alice', outcome: 'refused', cost: 1, limit: 'rate' },
  ]);
  assert.equal((await limits.usage('local:me')).exempt, true);
});
