/**
 * Results by reference: a framework server with `result_preview` on and a tool answering with
 * 1 MB and 10 MB of JSON records (as a mirrored upstream's text reaches the dispatcher), called
 * by a real SDK client. Printed, per size: the bytes the model receives (the preview result as
 * JSON) against the whole result; the median time to serve a 100-item page of `results://ID`
 * (rounds interleaved between the sizes); the heap held per stored result over its size (after
 * a GC, several results kept at once); and a model-free task — sum a field over 50,000 records —
 * done from code in one call (what reaches the model: its answer) against the whole result
 * through the model.
 *
 * Tuning: BENCH_ROUNDS (9), BENCH_KEPT (4: results held at once for the memory figure).
 */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  createServer,
  parseResultPreview,
  RESULT_META_KEY,
  type ToolContext,
} from '@mcpbox/framework';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { median, ratio, table } from './lib/measure.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const KEPT = Number(process.env.BENCH_KEPT ?? 4);
const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** `count` records of about 100 bytes as JSON: 10,000 ≈ 1 MB. */
function recordsJson(count: number): string {
  const rows = Array.from({ length: count }, (_, i) => ({
    id: i,
    name: `item-${i}`,
    price: i % 100,
    tags: ['alpha', 'beta'],
    note: 'x'.repeat(30),
  }));
  return JSON.stringify(rows);
}

const server = createServer({ logger: silent, resultPreview: parseResultPreview({}) });
server.registerTool(
  'export',
  { description: 'records', inputSchema: z.object({ count: z.number() }) },
  ({ count }) => recordsJson(count),
);
server.registerTool(
  'sum_prices',
  { description: 'sums the price over 50,000 records, from code' },
  async (ctx: ToolContext) => {
    const whole = await server.callTool('export', { count: 50_000 }, ctx, { via: 'code' });
    const rows = JSON.parse((whole.content[0] as { text: string }).text) as { price: number }[];
    return `sum of price over ${rows.length} records: ${rows.reduce((n, r) => n + r.price, 0)}`;
  },
);
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
const client = new Client({ name: 'bench', version: '1.0.0' });
await client.connect(clientSide);

const SIZES = [
  { label: '1 MB', count: 10_000 },
  { label: '10 MB', count: 100_000 },
] as const;

const call = (name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args });
function handleOf(result: Awaited<ReturnType<typeof call>>): string {
  const stored = result._meta?.[RESULT_META_KEY] as { handle?: string } | undefined;
  if (!stored?.handle) throw new Error('the result was not stored: result_preview is not on');
  return stored.handle;
}

// The model's bytes, and a handle per size to page.
const rows: string[][] = [];
const handles: string[] = [];
for (const size of SIZES) {
  const result = await call('export', { count: size.count });
  const whole = Buffer.byteLength(recordsJson(size.count));
  const model = Buffer.byteLength(JSON.stringify(result));
  const preview = Buffer.byteLength((result.content[0] as { text: string }).text);
  handles.push(handleOf(result));
  rows.push([size.label, String(whole), String(model), String(preview), ratio(whole, model, '×')]);
}
console.log(
  table([['result', 'whole bytes', 'model bytes', 'preview text', 'whole / model'], ...rows], 1),
);

// Pages of 100 items, interleaved between the sizes.
const pages: number[][] = SIZES.map(() => []);
for (let r = 0; r < ROUNDS; r++) {
  for (let s = 0; s < SIZES.length; s++) {
    const i = (s + r) % SIZES.length;
    const offset = Math.floor(SIZES[i]!.count / 2);
    const started = performance.now();
    await client.readResource({ uri: `results://${handles[i]}?offset=${offset}&limit=100` });
    pages[i]!.push(performance.now() - started);
  }
}
console.log(
  `\n${table(
    [
      ['result', `median ms per 100-item page (${ROUNDS} interleaved rounds)`],
      ...SIZES.map((size, i) => [size.label, median(pages[i]!).toFixed(1)]),
    ],
    1,
  )}`,
);

// Heap held per stored result: KEPT results of each size, the client's copies dropped.
const memory: string[][] = [];
for (const size of SIZES) {
  gc();
  const before = process.memoryUsage();
  for (let k = 0; k < KEPT; k++) await call('export', { count: size.count });
  gc();
  const after = process.memoryUsage();
  const held = (after.heapUsed + after.external - before.heapUsed - before.external) / KEPT;
  const bytes = Buffer.byteLength(recordsJson(size.count));
  memory.push([size.label, String(Math.round(held)), ratio(held, bytes, '×')]);
}
console.log(
  `\n${table([['result', `heap held per stored result (${KEPT} kept)`, 'held / size'], ...memory], 1)}`,
);

// Sum a field over 50,000 records: from code, versus the whole result through the model.
const started = performance.now();
const summed = await call('sum_prices', {});
const codeMs = performance.now() - started;
const viaCode = Buffer.byteLength(JSON.stringify(summed));
const viaModel = Buffer.byteLength(recordsJson(50_000));
console.log(
  `\n${table(
    [
      ['sum over 50,000 records', 'bytes to the model', 'ms'],
      ['from code, one call', String(viaCode), codeMs.toFixed(0)],
      ['whole result through the model', String(viaModel), '-'],
      ['model / code', ratio(viaModel, viaCode, '×'), ''],
    ],
    1,
  )}`,
);
console.log((summed.content[0] as { text: string }).text);
await client.close();
await server.close();
