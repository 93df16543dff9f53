/**
 * ipybox MCP server benchmark, two questions:
 *
 * 1. What does the MCP layer cost? `execute_ipython_cell('x += 1')` through the real `ipybox`
 *    bin over stdio with the real SDK client, against `KernelClient.execute('x += 1')` on a kernel
 *    this process owns (the baseline: the same kernel client without MCP, tool server or
 *    streaming). Blocks of calls alternate between the two so both see the same machine.
 * 2. What does a tool call from kernel code cost? `echo.run({'message': …})` from a cell —
 *    generated module → tool server (HTTP, token) → approval (auto) → cached MCP connection →
 *    `@modelcontextprotocol/server-everything` — timed inside the kernel, against the same echo
 *    called directly from Node through the SDK client (the baseline), blocks interleaved.
 *
 * Tuning: BENCH_ROUNDS (5), BENCH_PER_ROUND (40 calls per subject per round).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { KernelClient } from '../packages/ipybox/src/index.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PER_ROUND = Number(process.env.BENCH_PER_ROUND ?? 40);
const BLOCK = 10;
const IPYBOX = fileURLToPath(new URL('../packages/ipybox/bin/ipybox.js', import.meta.url));
const EVERYTHING = fileURLToPath(
  new URL('../node_modules/.bin/mcp-server-everything', import.meta.url),
);

const workspace = mkdtempSync(join(tmpdir(), 'bench-ipybox-'));

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

function stats(samples: number[]): { median: number; p95: number; n: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), n: sorted.length };
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

function text(result: unknown): string {
  return ((result as CallToolResult).content ?? [])
    .map((item) => (item.type === 'text' ? item.text : ''))
    .join('');
}

async function connectStdio(command: string, args: string[]): Promise<Client> {
  const client = new Client({ name: 'bench-ipybox', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command,
      args,
      env: process.env as Record<string, string>,
      stderr: 'ignore',
    }),
  );
  return client;
}

async function main(): Promise<void> {
  console.log(
    `machine: ${cpus().length} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; ${ROUNDS} rounds × ${PER_ROUND} calls per subject`,
  );
  const ipybox = await connectStdio(process.execPath, [
    IPYBOX,
    '--workspace',
    workspace,
    '--log-level',
    'warning',
  ]);
  const direct = new KernelClient({ cwd: workspace, imagesDir: join(workspace, 'images') });
  const everything = await connectStdio(EVERYTHING, ['stdio']);
  try {
    // Warm-up: kernels started, x defined, the upstream registered and connected.
    await ipybox.callTool({ name: 'execute_ipython_cell', arguments: { code: 'x = 0' } });
    await direct.execute('x = 0');
    const registered = await ipybox.callTool({
      name: 'register_mcp_server',
      arguments: {
        server_name: 'everything',
        server_params: { command: EVERYTHING, args: ['stdio'] },
      },
    });
    if ((registered as CallToolResult).isError) throw new Error(text(registered));
    const setup = await ipybox.callTool({
      name: 'execute_ipython_cell',
      arguments: {
        code: [
          'import json, time',
          'from mcptools.everything import echo',
          "echo.run({'message': 'warm'})",
          'def _bench(n):',
          '    out = []',
          '    for i in range(n):',
          '        t = time.perf_counter()',
          "        echo.run({'message': 'hi'})",
          '        out.append((time.perf_counter() - t) * 1000)',
          '    return json.dumps(out)',
        ].join('\n'),
      },
    });
    if ((setup as CallToolResult).isError) throw new Error(text(setup));
    await everything.callTool({ name: 'echo', arguments: { message: 'warm' } });

    const viaMcp: number[] = [];
    const viaClient: number[] = [];
    const fromKernel: number[] = [];
    const fromNode: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (let done = 0; done < PER_ROUND; done += BLOCK) {
        const order = (round + done / BLOCK) % 2 === 0;
        const blocks = [
          async () => {
            for (let i = 0; i < BLOCK; i++) {
              const t = performance.now();
              const r = await ipybox.callTool({
                name: 'execute_ipython_cell',
                arguments: { code: 'x += 1' },
              });
              viaMcp.push(performance.now() - t);
              if ((r as CallToolResult).isError) throw new Error(text(r));
            }
          },
          async () => {
            for (let i = 0; i < BLOCK; i++) {
              const t = performance.now();
              await direct.execute('x += 1');
              viaClient.push(performance.now() - t);
            }
          },
        ];
        for (const block of order ? blocks : blocks.reverse()) await block();

        const toolBlocks = [
          async () => {
            const r = await ipybox.callTool({
              name: 'execute_ipython_cell',
              arguments: { code: `print(_bench(${BLOCK}))` },
            });
            if ((r as CallToolResult).isError) throw new Error(text(r));
            fromKernel.push(...(JSON.parse(text(r)) as number[]));
          },
          async () => {
            for (let i = 0; i < BLOCK; i++) {
              const t = performance.now();
              await everything.callTool({ name: 'echo', arguments: { message: 'hi' } });
              fromNode.push(performance.now() - t);
            }
          },
        ];
        for (const block of order ? toolBlocks : toolBlocks.reverse()) await block();
      }
    }

    const rows: [string, ReturnType<typeof stats>][] = [
      ["execute_ipython_cell('x += 1'), SDK client → ipybox (stdio)", stats(viaMcp)],
      ["KernelClient.execute('x += 1') (baseline)", stats(viaClient)],
      ['echo tool called from kernel code (generated module → tool server)', stats(fromKernel)],
      ['echo tool called from Node, SDK client over stdio (baseline)', stats(fromNode)],
    ];
    const width = Math.max(...rows.map(([name]) => name.length));
    console.log(`\n${'subject'.padEnd(width)}  ${'median'.padStart(10)}  ${'p95'.padStart(10)}  n`);
    for (const [name, s] of rows) {
      console.log(
        `${name.padEnd(width)}  ${ms(s.median).padStart(10)}  ${ms(s.p95).padStart(10)}  ${s.n}`,
      );
    }
    const [mcp, client, kernel, node] = rows.map(([, s]) => s.median) as number[];
    console.log(
      `\nMCP layer overhead: ${((mcp as number) / (client as number)).toFixed(2)}× the direct kernel call ` +
        `(+${ms((mcp as number) - (client as number))} per cell)`,
    );
    console.log(
      `tool call from code: ${((kernel as number) / (node as number)).toFixed(2)}× a direct MCP call ` +
        `(+${ms((kernel as number) - (node as number))} per call)`,
    );
  } finally {
    await Promise.allSettled([ipybox.close(), direct.close(), everything.close()]);
    rmSync(workspace, { recursive: true, force: true });
  }
}

await main();
