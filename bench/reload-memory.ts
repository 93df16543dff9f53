/**
 * Memory over 200 transactional reloads of one plugin in a live mcp-proxy (in process: the real
 * server, registry, plugin manager and an MCP client session). Each reload follows a real code
 * change — the file is rewritten, so every reload imports a new copy of the module, as `--watch`
 * does — and the reloaded tool is called once.
 *
 * Heap and RSS are sampled after a full GC. Node's ES module loader never releases a module once
 * imported, so each fresh import of the plugin's code stays resident: the growth per reload
 * printed here is that cost (plugin source size plus module bookkeeping), and it should be small
 * and linear — anything held by an old version's tools, commands or sessions would show as much
 * faster growth.
 *
 * Tuning: BENCH_RELOADS (200).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { inProcessProxy, testdir, writeFile } from '@mcpbox/proxy/testing';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const RELOADS = Number(process.env.BENCH_RELOADS ?? 200);

/** A plugin of realistic size: a few tools with schemas, a resource, a command. */
function pluginSource(version: number): string {
  return `export const description = 'reload subject';
export function register(server) {
  const table = Array.from({ length: 200 }, (_, i) => ({ id: i, label: 'row ' + i }));
  for (const name of ['alpha', 'beta', 'gamma', 'delta']) {
    server.registerTool(name, {
      description: 'tool ' + name,
      inputSchema: { type: 'object', properties: { q: { type: 'string' }, n: { type: 'integer' } } },
    }, ({ q, n }) => JSON.stringify({ version: ${version}, q, n, rows: table.length }));
  }
  server.registerResource('info', 'subject://info', {}, () => 'version ${version}');
  server.proxy?.registerCommand('subject_version', () => ${version});
}
`;
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

function sample() {
  gc();
  gc();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed, rss: usage.rss };
}

async function main(): Promise<void> {
  const dir = testdir({ 'subject.ts': pluginSource(0) });
  const proxy = await inProcessProxy({ plugin_dirs: [dir], autoload: ['subject'] });
  try {
    // Warm up: the first reloads pay for one-time things (the fresh-import hook, JIT).
    for (let i = 1; i <= 5; i++) {
      writeFile(dir, 'subject.ts', pluginSource(i));
      await reloadAndCall(proxy, i);
    }
    const rows: string[][] = [['reloads', 'heap MiB', 'rss MiB']];
    const start = sample();
    rows.push(['0', mib(start.heap), mib(start.rss)]);
    let last = start;
    for (let i = 1; i <= RELOADS; i++) {
      writeFile(dir, 'subject.ts', pluginSource(1000 + i));
      await reloadAndCall(proxy, 1000 + i);
      if (i % 50 === 0) {
        last = sample();
        rows.push([String(i), mib(last.heap), mib(last.rss)]);
      }
    }
    for (const row of rows) console.log(row.map((c) => c.padStart(9)).join('  '));
    const perReloadKiB = (last.heap - start.heap) / RELOADS / 1024;
    console.log(
      `\nheap growth: ${mib(last.heap - start.heap)} MiB over ${RELOADS} reloads ` +
        `(${perReloadKiB.toFixed(1)} KiB per reload); rss growth ${mib(last.rss - start.rss)} MiB`,
    );
  } finally {
    await proxy.close();
  }
}

async function reloadAndCall(proxy: Awaited<ReturnType<typeof inProcessProxy>>, version: number) {
  const result = await proxy.manager.reload('subject');
  if (!result.ok) throw new Error(result.error);
  const answer = await proxy.call('alpha', { q: 'x' });
  if (!answer.text.includes(`"version":${version}`)) throw new Error(`stale code: ${answer.text}`);
}

await main();
