// examples/cluster/haproxy.cfg under a real HAProxy (Debian's) in front of three real mcp-factory
// replicas (`-p echo`, no Redis: affinity and balancing only), with real SDK v2 clients of both
// eras: 2025 sessions keep their replica across many calls (another replica would answer 404),
// 2026 requests spread over the three, and a replica killed mid-run fails no request that went
// to a survivor.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type Haproxy, type Replica, startHaproxy, startReplica, waitFor } from './processes.ts';

const MODERN = '2026-07-28';

function client(era: '2025' | '2026'): Client {
  return new Client(
    { name: 'haproxy-test', version: '1.0.0' },
    { versionNegotiation: { mode: era === '2026' ? { pin: MODERN } : 'legacy' } },
  );
}

async function echo(c: Client, message: string): Promise<string> {
  const result = (await c.callTool({ name: 'echo', arguments: { message } })) as {
    content: { text: string }[];
  };
  return result.content[0].text;
}

/** HAProxy's log lines of answered requests: which replica, which status. */
function requestLog(output: string): { server: string; status: number; line: string }[] {
  return output.split('\n').flatMap((line) => {
    const match = / replicas\/(\S+) \S+ (-?\d+) /.exec(line);
    return match ? [{ server: match[1], status: Number(match[2]), line }] : [];
  });
}

describe('examples/cluster/haproxy.cfg: HAProxy in front of three replicas', () => {
  const replicas: Replica[] = [];
  let lb: Haproxy;
  const clients: Client[] = [];

  const connect = async (era: '2025' | '2026') => {
    const c = client(era);
    await c.connect(new StreamableHTTPClientTransport(new URL(lb.url)));
    clients.push(c);
    assert.equal(c.getProtocolEra(), era === '2026' ? 'modern' : 'legacy');
    return c;
  };

  before(async () => {
    const started = await Promise.allSettled(
      [1, 2, 3].map((i) =>
        startReplica(`replica${i}`, 'mcp-factory', ['-p', 'echo', '--log-level', 'warning']),
      ),
    );
    for (const s of started) if (s.status === 'fulfilled') replicas.push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    lb = await startHaproxy(replicas);
  });
  after(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await lb?.stop();
    await Promise.allSettled(replicas.map((r) => r.stop()));
  });

  test('2025-11-25 sessions stay on the replica that opened them, across many calls', async () => {
    const sessions = await Promise.all([1, 2, 3, 4].map(() => connect('2025')));
    await Promise.all(
      sessions.map(async (c, i) => {
        for (let call = 0; call < 25; call++) {
          assert.equal(await echo(c, `s${i} c${call}`), `s${i} c${call}`);
        }
      }),
    );
    // Each session was opened by one replica and every later request reached that one: the
    // stick table holds the sessions (a 404 above would have been another replica).
    const log = requestLog(lb.output());
    for (const c of sessions) {
      const id = (c.transport as StreamableHTTPClientTransport).sessionId;
      assert.ok(id, 'a 2025 session has an Mcp-Session-Id');
    }
    assert.ok(log.length > 0, 'HAProxy logs the requests it forwards');
    assert.deepEqual(
      log.filter((entry) => entry.status >= 400),
      [],
    );
  });

  test('2026-07-28 requests are balanced round robin over the replicas', async () => {
    const before = await lb.servers();
    const c = await connect('2026');
    for (let call = 0; call < 30; call++) assert.equal(await echo(c, `m${call}`), `m${call}`);
    const now = await lb.servers();
    for (const [name, { sessions }] of now) {
      const served = sessions - (before.get(name)?.sessions ?? 0);
      // 30+ requests in turn over three replicas: about ten each, none left out.
      assert.ok(served >= 5, `${name} served ${served} of the 2026 requests`);
    }
  });

  test('a replica killed mid-run: no request that went to a surviving replica fails (2026)', async () => {
    const callers = await Promise.all([1, 2, 3, 4].map(() => connect('2026')));
    const failures: string[] = [];
    let calls = 0;
    let stop = false;
    const loops = callers.map(async (c, i) => {
      while (!stop) {
        try {
          calls += 1;
          assert.equal(await echo(c, `k${i}`), `k${i}`);
        } catch (error) {
          failures.push(String(error));
        }
      }
    });
    await waitFor('calls under way', () => calls >= 40);
    const victim = replicas[1];
    await victim.kill();
    const atKill = calls;
    await waitFor('HAProxy marks the killed replica down', async () => {
      return (await lb.servers()).get('replica2')?.status.startsWith('DOWN') ?? false;
    });
    await waitFor('calls after the kill', () => calls >= atKill + 80);
    stop = true;
    await Promise.all(loops);

    // Only requests in flight on the killed replica may fail: at most one per caller.
    assert.ok(failures.length <= callers.length, failures.join('\n'));
    const log = requestLog(lb.output());
    const failed = log.filter((entry) => entry.status >= 500 || entry.status < 0);
    assert.deepEqual(
      failed.filter((entry) => entry.server !== 'replica2'),
      [],
      'every failed request had gone to the killed replica',
    );
    const survivors = log.filter((entry) => entry.server !== 'replica2' && entry.status === 200);
    assert.ok(survivors.length >= 80, `${survivors.length} requests answered by the survivors`);
  });
});
