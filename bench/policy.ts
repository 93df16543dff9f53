/**
 * What views and policy cost (issue 31's benchmark), in one process, interleaved:
 *
 * (a) `echo` calls through a view with 50 policy rules (45 about other tools, 3 about every
 *     tool, 2 argument rules about echo itself: each call evaluates them) against the same
 *     server with no views or policy. Two real servers (createServer: sessions, dispatcher,
 *     interceptors) side by side, each with an SDK client over an in-memory transport, so what
 *     differs is the access decision alone, not a network. Rounds alternate which goes first.
 * (b) `tools/list` for one principal over a synthetic catalog of 2,000 tools with 50 rules: the
 *     access decision for the first listing (nothing kept: after a catalog change, or a new
 *     caller) and a repeated one (kept per principal and view until the catalog changes), and
 *     the whole request through a client, with and without the policy.
 *
 * Environment: BENCH_ROUNDS (default 10), BENCH_CALLS (sequential echo calls per round, 500),
 * BENCH_LISTINGS (listings measured per kind, 30).
 */
import { cpus } from 'node:os';
import { createServer, type McpboxServer, type ServerOptions } from '@mcpbox/framework';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { median, percentile, ratio, table } from './lib/measure.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const CALLS = Number(process.env.BENCH_CALLS ?? 500);
const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 30);

type Principal = Parameters<McpboxServer['access']['listTools']>[0];
type Access = NonNullable<ServerOptions['access']>;
type Rule = NonNullable<Access['policy']>['rules'][number];

/** A member of two services' groups: 40 of the 2,000 tools are hers. */
const dana: Principal = {
  id: 'sub:dana',
  kind: 'oauth',
  subject: 'dana',
  scopes: ['user'],
  groups: ['g7', 'g12'],
  claims: { groups: ['g7', 'g12'] },
};

const alice: Principal = {
  id: 'sub:alice',
  kind: 'oauth',
  subject: 'alice',
  scopes: ['user'],
  groups: ['support', 'g7'],
  claims: { groups: ['support', 'g7'], projects: ['p1'] },
};

/** 50 rules: 45 about other services' tools, 3 about every tool, 2 argument rules on echo. */
function fiftyRules(): Access['policy'] {
  const rules: Rule[] = Array.from({ length: 45 }, (_, i) => ({
    name: `service-${i}`,
    tools: [`svc${i}_*`],
    allow: `"g${i}" in principal.groups`,
  }));
  rules.push(
    { name: 'banned', deny: '"banned" in principal.groups' },
    { name: 'support', allow: '"support" in principal.groups && tool.plugin != "admin"' },
    {
      name: 'in-view',
      allow: 'principal.kind == "oauth" && view == "bench" && tool.name == "echo"',
    },
    { name: 'no-secrets', tools: ['echo'], deny: 'args.message == "secret"' },
    { name: 'short', tools: ['echo'], deny: 'size(args.message) > 10000' },
  );
  return { default: 'deny', rules };
}

const ACCESS: Access = {
  views: { bench: { tools: ['echo', 'svc*'], description: 'the benchmark view' } },
  policy: fiftyRules(),
};

async function clientOf(
  server: McpboxServer,
  view?: string,
  principal: Principal = alice,
): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const session = server.sessions.open({ era: 'legacy', view, principal });
  await session.server.connect(serverSide);
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

function echoServer(access?: Access): McpboxServer {
  const server = createServer({ name: 'bench', ...(access && { access }) });
  server.registerTool(
    'echo',
    { description: 'Returns the message.', inputSchema: { message: z.string() } },
    ({ message }) => message,
  );
  return server;
}

async function echoOnce(client: Client, message: string): Promise<void> {
  const result = (await client.callTool({ name: 'echo', arguments: { message } })) as {
    content: { text: string }[];
  };
  if (result.content[0]?.text !== message) {
    throw new Error(`echo answered ${JSON.stringify(result)}`);
  }
}

interface Subject {
  name: string;
  client: Client;
  latencies: number[];
  rounds: number[];
}

async function measureEcho(): Promise<void> {
  const plain = echoServer();
  const guarded = echoServer(ACCESS);
  const subjects: Subject[] = [
    { name: 'no views, no policy', client: await clientOf(plain), latencies: [], rounds: [] },
    {
      name: 'view + 50 rules',
      client: await clientOf(guarded, 'bench'),
      latencies: [],
      rounds: [],
    },
  ];
  for (const s of subjects) for (let i = 0; i < 200; i++) await echoOnce(s.client, 'warm');
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? subjects : [...subjects].reverse();
    for (const s of order) {
      const start = performance.now();
      for (let i = 0; i < CALLS; i++) {
        const t0 = performance.now();
        await echoOnce(s.client, `m${i}`);
        s.latencies.push(performance.now() - t0);
      }
      s.rounds.push(performance.now() - start);
    }
  }
  const [base] = subjects;
  console.log(
    `\n(a) echo, ${ROUNDS} interleaved rounds x ${CALLS} sequential calls, in process ` +
      `(2025 session over an in-memory transport; ${cpus().length} CPUs)\n`,
  );
  const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;
  console.log(
    table(
      [
        ['server', 'median', 'p95', 'vs none', 'round median', 'vs none'],
        ...subjects.map((s) => [
          s.name,
          us(median(s.latencies)),
          us(percentile(s.latencies, 95)),
          ratio(median(s.latencies), median(base.latencies), 'x'),
          `${median(s.rounds).toFixed(1)} ms`,
          ratio(median(s.rounds), median(base.rounds), 'x'),
        ]),
      ],
      1,
    ),
  );
  const overall = median(subjects[1].rounds) / median(base.rounds);
  console.log(`ratio (view + 50 rules / none): ${overall.toFixed(3)}x (target <= 1.1x)`);
  // The decision alone, without the machine's noise around a whole call: what the guarded
  // server does per call that the plain one does not.
  const echo = guarded.catalog.getTool('echo');
  if (echo === undefined) throw new Error('no echo tool');
  const decisions = 100_000;
  const started = performance.now();
  for (let i = 0; i < decisions; i++) guarded.access.admit(alice, 'bench', echo, { message: 'm' });
  const perCall = (performance.now() - started) / decisions;
  console.log(
    `access decision per call (view + 50 rules, 2 of them argument rules on echo): ${us(perCall)}` +
      ` = ${((perCall / median(base.latencies)) * 100).toFixed(1)}% of a plain call's median`,
  );
  await Promise.all(subjects.map((s) => s.client.close()));
  await Promise.all([plain.close(), guarded.close()]);
}

/** 2,000 tools over 100 services (svc0_ … svc99_), each with a small schema. */
function catalogServer(access?: Access): McpboxServer {
  const server = createServer({ name: 'bench-catalog', ...(access && { access }) });
  for (let s = 0; s < 100; s++) {
    for (let t = 0; t < 20; t++) {
      server.registerTool(
        `svc${s}_tool${t}`,
        {
          description: `Tool ${t} of service ${s}: does one thing to one record.`,
          inputSchema: { id: z.string().describe('Record id'), limit: z.number().optional() },
        },
        ({ id }) => id,
      );
    }
  }
  return server;
}

const timed = (fn: () => unknown): number => {
  const start = performance.now();
  fn();
  return performance.now() - start;
};

async function measureListing(): Promise<void> {
  const server = catalogServer(ACCESS);
  const plain = catalogServer();
  const { access, catalog } = server;
  const lookup = (name: string) => catalog.getTool(name);
  const list = (who: Principal) => access.listTools(who, 'bench', catalog.listTools(), lookup);
  const listed = list(dana).length;
  const first: number[] = [];
  const newCaller: number[] = [];
  const repeated: number[] = [];
  for (let i = 0; i < LISTINGS; i++) {
    access.forget(); // as a catalog change does
    first.push(timed(() => list(dana)));
    repeated.push(timed(() => list(dana)));
    const stranger = { ...dana, id: `sub:user${i}`, subject: `user${i}` };
    newCaller.push(timed(() => list(stranger)));
  }
  const guardedClient = await clientOf(server, 'bench', dana);
  const plainClient = await clientOf(plain);
  const request = { policy: [] as number[], none: [] as number[] };
  for (let i = 0; i < LISTINGS; i++) {
    for (const [key, client] of [
      ['policy', guardedClient],
      ['none', plainClient],
    ] as const) {
      const start = performance.now();
      await client.listTools();
      request[key].push(performance.now() - start);
    }
  }
  const ms = (values: number[]) => `${median(values).toFixed(3)} ms`;
  const p95 = (values: number[]) => `${percentile(values, 95).toFixed(3)} ms`;
  console.log(
    `\n(b) tools/list over ${catalog.listTools().length} tools, 50 rules, one principal ` +
      `(${listed} tools listed for it), ${LISTINGS} samples each\n`,
  );
  console.log(
    table(
      [
        ['what', 'median', 'p95'],
        ['access decision, first listing (after a catalog change)', ms(first), p95(first)],
        ['access decision, first listing of a new principal', ms(newCaller), p95(newCaller)],
        ['access decision, repeated listing', ms(repeated), p95(repeated)],
        ['whole tools/list request, view + policy', ms(request.policy), p95(request.policy)],
        ['whole tools/list request, no policy', ms(request.none), p95(request.none)],
      ],
      1,
    ),
  );
  console.log('(target: <= 5 ms for the listing)');
  await Promise.all([guardedClient.close(), plainClient.close()]);
  await Promise.all([server.close(), plain.close()]);
}

await measureEcho();
await measureListing();
