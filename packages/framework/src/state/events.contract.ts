/**
 * The event bus contract, run against buses on one memory store (`events.test.ts`) and on
 * links to one real redis-server (`cluster/eventBus.test.ts`): an event published on one
 * replica's bus reaches that bus's listeners at once and every other bus's listeners once —
 * never twice, never echoed back to its origin.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitFor } from '@mcpbox/test-utils';
import type { ServerEvent } from '@modelcontextprotocol/server';
import { SharedEventBus } from './events.ts';
import type { RecordStore } from './records.ts';

type After = { after(fn: () => unknown): void };

/** The record stores of three replicas (in memory: one store three times). */
export type MakeEventStores = (t: After) => Promise<RecordStore[]>;

const uriOf = (event: ServerEvent) => (event.kind === 'resource_updated' ? event.uri : event.kind);

export function eventBusContract(name: string, make: MakeEventStores): void {
  test(`event bus contract (${name}): every bus's listeners get each event once, no echo`, async (t) => {
    const replicas = await Promise.all(
      (await make(t)).map(async (records, i) => {
        const bus = await SharedEventBus.create(records, { origin: `replica-${i}` });
        const seen: string[] = [];
        bus.subscribe((event) => seen.push(uriOf(event)));
        t.after(() => bus.close());
        return { bus, seen };
      }),
    );
    const [a, b, c] = replicas as [
      (typeof replicas)[0],
      (typeof replicas)[0],
      (typeof replicas)[0],
    ];

    a.bus.publish({ kind: 'resource_updated', uri: 'memo://1' });
    assert.deepEqual(a.seen, ['memo://1'], "the publisher's own listeners at once");
    await waitFor(() => b.seen.length > 0 && c.seen.length > 0, 'the event on B and C');
    b.bus.publish({ kind: 'resource_updated', uri: 'memo://2' });
    // A marker after both: once it has arrived everywhere, nothing else is in flight.
    c.bus.publish({ kind: 'resource_updated', uri: 'memo://end' });
    await waitFor(
      () => replicas.every((r) => r.seen.includes('memo://end') && r.seen.includes('memo://2')),
      'the marker everywhere',
    );
    for (const replica of replicas) {
      assert.deepEqual(replica.seen.sort(), ['memo://1', 'memo://2', 'memo://end']);
    }
  });
}
