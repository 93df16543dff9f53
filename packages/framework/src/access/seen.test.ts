import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Principal } from '../contract/principal.ts';
import { PrincipalsSeen } from './seen.ts';

const person = (id: string, groups: string[] = [], claims: Record<string, unknown> = {}) =>
  ({ id, kind: 'oauth', scopes: [], groups, claims }) as Principal;

test('principals seen: most recent first, calls and refusals counted, bounded by last use', () => {
  let now = 1000;
  const seen = new PrincipalsSeen({ capacity: 2, clock: () => now });
  seen.request(person('sub:alice', ['support'], { team: 'blue', groups: ['support'] }), undefined);
  now = 2000;
  seen.request(person('sub:bob'), 'support');
  seen.call(person('sub:bob'), true);
  now = 3000;
  // Alice again, with a refreshed token: her latest claims are kept; she moves to the front.
  seen.request(person('sub:alice', ['support', 'ops']), 'support');
  seen.call(person('sub:alice', ['support', 'ops']), false);
  assert.deepEqual(
    seen
      .list()
      .map((p) => [p.id, p.views, p.requests, p.calls, p.refusals, p.firstSeen, p.lastSeen]),
    [
      ['sub:alice', ['', 'support'], 2, 1, 0, 1000, 3000],
      ['sub:bob', ['support'], 1, 1, 1, 2000, 2000],
    ],
  );
  assert.deepEqual(seen.principal('sub:alice')?.groups, ['support', 'ops']);
  // A third principal evicts the least recently seen (bob), not the first ever seen.
  seen.request(person('sub:carol', [], { projects: ['p1'] }), undefined);
  assert.deepEqual(
    seen.list().map((p) => p.id),
    ['sub:carol', 'sub:alice'],
  );
  assert.equal(seen.principal('sub:bob'), undefined);
  // Seen again while still the most recent: counted, and its latest credentials kept.
  now = 4000;
  seen.call(person('sub:carol', ['ops'], { projects: ['p1'] }), false);
  assert.deepEqual(
    seen.list().map((p) => [p.id, p.groups, p.calls, p.lastSeen]),
    [
      ['sub:carol', ['ops'], 1, 4000],
      ['sub:alice', ['support', 'ops'], 1, 3000],
    ],
  );
  // Claim names are listed, never their values.
  assert.deepEqual(seen.list()[0].claimKeys, ['projects']);
  assert.equal(JSON.stringify(seen.list()).includes('p1'), false);
});
