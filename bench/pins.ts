/**
 * What pinning costs a large upstream: a plugin of 2,000 tools (each with a description and a
 * JSON Schema of a few properties, as a mirrored server gives them) loaded into a real
 * framework server with `pins: {mode: strict, file}` — every definition pinned at first sight —
 * then reloaded unchanged (every definition screened again: canonical JSON, SHA-256, a map
 * lookup), against the same server without pins. Rounds are interleaved (pins on, pins off, in
 * a rotating order) so drift hits both alike. Printed: median load and reload time, each with
 * the extra over pins off, and the time until the first sight's 2,000 pins are in the file.
 * Afterwards the book is checked: 2,000 pinned, nothing held.
 *
 * Tuning: BENCH_ROUNDS (7), BENCH_TOOLS (2000).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createServer, type McpboxServer, type PluginServer } from '@mcpbox/framework';
import { median, ratio, table } from './lib/measure.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const TOOLS = Number(process.env.BENCH_TOOLS ?? 2000);

const scratch = mkdtempSync(join(tmpdir(), 'bench-pins-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** A plugin like a mirrored server of TOOLS tools. */
const upstream = {
  register(server: PluginServer) {
    for (let i = 0; i < TOOLS; i++) {
      server.registerTool(
        `tool_${i}`,
        {
          title: `Tool ${i}`,
          description: `Does thing number ${i}: reads the input, looks it up, answers in JSON.`,
          inputSchema: {
            type: 'object',
            properties: {
              query: { type: 'string', description: 'What to look up' },
              limit: { type: 'integer', minimum: 1, maximum: 100 },
              tags: { type: 'array', items: { type: 'string' } },
            },
            required: ['query'],
          },
          annotations: { readOnlyHint: true },
        },
        () => 'ok',
      );
    }
  },
};

interface Sample {
  load: number;
  reload: number;
  saved?: number;
}

let round = 0;
async function sample(pinned: boolean): Promise<Sample> {
  const file = join(scratch, `pins-${round++}.json`);
  const server: McpboxServer = createServer({
    logger: silent,
    ...(pinned ? { pins: { mode: 'strict', file } } : {}),
  });
  let started = performance.now();
  const loaded = await server.registry.loadPlugin('up', { module: upstream });
  const load = performance.now() - started;
  if (!loaded.ok) throw new Error(loaded.error);
  let saved: number | undefined;
  if (pinned) {
    // The first sight's writes go behind the decision; the file is whole when they settle.
    await (server.pins as unknown as { flush(): Promise<void> }).flush();
    saved = performance.now() - started;
  }
  started = performance.now();
  const reloaded = await server.registry.reloadPlugin('up', { module: upstream });
  const reload = performance.now() - started;
  if (!reloaded.ok) throw new Error(reloaded.error);
  if (pinned) {
    const pins = server.pins.list('up');
    const held = pins.filter((p) => p.state !== 'pinned');
    if (pins.length !== TOOLS || held.length > 0 || server.catalog.size.tools !== TOOLS) {
      throw new Error(
        `expected ${TOOLS} pinned and listed, got ${pins.length} (${held.length} held)`,
      );
    }
  }
  await server.close();
  return { load, reload, saved };
}

const on: Sample[] = [];
const off: Sample[] = [];
await sample(true); // warm-up: imports, JIT
await sample(false);
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 === 0 ? [true, false] : [false, true];
  for (const pinned of order) (pinned ? on : off).push(await sample(pinned));
}

const ms = (v: number) => v.toFixed(1);
const med = (samples: Sample[], key: keyof Sample) => median(samples.map((s) => s[key] ?? 0));
const rows = [
  ['', 'load (first sight) ms', 'reload (unchanged) ms', 'pins in file ms'],
  ['pins off', ms(med(off, 'load')), ms(med(off, 'reload')), '—'],
  ['pins strict', ms(med(on, 'load')), ms(med(on, 'reload')), ms(med(on, 'saved'))],
  [
    'pins extra',
    ms(med(on, 'load') - med(off, 'load')),
    ms(med(on, 'reload') - med(off, 'reload')),
    '',
  ],
  [
    'ratio',
    ratio(med(on, 'load'), med(off, 'load'), '×'),
    ratio(med(on, 'reload'), med(off, 'reload'), '×'),
    '',
  ],
];
console.log(`${TOOLS} tools, ${ROUNDS} interleaved rounds (medians)\n`);
console.log(table(rows, 1));
