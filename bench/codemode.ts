/**
 * Code mode against classic tool use, on one catalog: the demo plugins (echo, greet, demo_full),
 * three mirrored reference servers (server-everything, server-memory, server-filesystem) and
 * synthetic200 (200 tools), served by mcp-factory over stdio
 * (server-everything's tools prefixed `everything_`: its echo would collide with the plugin's).
 *
 * 1. Tool definitions a client receives: classic (`tools/list` of the catalog served without code
 *    mode) against code mode (the same catalog with `--code-mode on`: search_tools and
 *    execute_code only), in bytes of the `tools/list` JSON and ≈ tokens (chars / 4).
 * 2. A scripted three-step task — read a log file (filesystem), store a derived entity (memory),
 *    echo a summary (echo) — the bytes that pass through the model's context: classic, every
 *    call's arguments and result; code mode, the code and its printed output (and, on its own
 *    line, the search_tools calls a model would make first to find the three tools). Wall time
 *    of each path: median of BENCH_ROUNDS (5) runs; code mode's first cell (kernel start) apart.
 *
 * 3. Languages (issue 36): on a small catalog (echo, server-memory), the cold start of a
 *    TypeScript execution (QuickJS isolate, first of the process) against a Python cell in a
 *    fresh kernel, a warm round trip of each, and a 10-tool-call script — TypeScript against
 *    Python against ten direct MCP calls — wall time (median of BENCH_ROUNDS, the three
 *    interleaved per round) and bytes through the model's context.
 *
 * Both eras by default (BENCH_ERAS=2025,2026 to choose).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Era } from '@mcpbox/framework';
import { mirroredServers } from '@mcpbox/ipybox/testing';
import type { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { benchClient, benchEras, checkEra, eraLabel, median, table } from './lib/measure.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'node_modules/.bin');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CODE_MODE_TOOLS = new Set(['search_tools', 'execute_code', 'save_code_skill']);
const eras = benchEras();

const dir = mkdtempSync(join(tmpdir(), 'mcpbox-bench-codemode-'));
const logFile = join(dir, 'service.log');
// A realistic log: the task needs only a count from it, classic mode reads all of it.
const levels = ['INFO', 'INFO', 'INFO', 'WARN', 'ERROR'];
writeFileSync(
  logFile,
  Array.from(
    { length: 400 },
    (_, i) =>
      `2026-12-03T10:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z ${levels[i % 5]} checkout-service request ${1000 + i} handled in ${(i * 37) % 900} ms`,
  ).join('\n'),
);
const catalog = [
  'plugins:',
  '  echo: {}',
  '  greet: {}',
  '  demo_full: {}',
  '  synthetic200: {}',
  '  everything:',
  `    command: ${JSON.stringify(join(BIN, 'mcp-server-everything'))}`,
  '    args: [stdio]',
  // Its echo would collide with the echo plugin's.
  '    prefix: everything',
  ...mirroredServers(dir).map((line) => `  ${line}`),
];
// Classic: the catalog alone. Code mode: the same with `--code-mode on` and code_mode's workspace.
const classicConfig = join(dir, 'classic.yaml');
writeFileSync(classicConfig, `${catalog.join('\n')}\n`);
const config = join(dir, 'factory.yaml');
writeFileSync(
  config,
  [...catalog, '  code_mode:', `    workspace: ${JSON.stringify(join(dir, 'workspace'))}`, ''].join(
    '\n',
  ),
);

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
const tokens = (n: number) => `≈${Math.round(n / 4).toLocaleString('en')}`;
const kb = (n: number) => n.toLocaleString('en');

async function connect(era: Era, args: string[]): Promise<Client> {
  const client = benchClient(era);
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(ROOT, 'packages/proxy/bin/mcp-factory.js'), ...args, '--log-level', 'error'],
      env: { ...(process.env as Record<string, string>), HOME: dir },
      stderr: 'inherit',
    }),
  );
  checkEra(client, era);
  return client;
}

/** Classic: the model calls each tool; every argument and result passes through its context. */
async function classicTask(client: Client, run: number): Promise<number> {
  let through = 0;
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
    through += bytes({ name, arguments: args }) + bytes(result.content);
    return result;
  };
  const read = await call('read_text_file', { path: logFile });
  const text = (read.content as Array<{ text: string }>)[0]!.text;
  const errors = text.split('\n').filter((line) => line.includes(' ERROR ')).length;
  await call('create_entities', {
    entities: [
      { name: `classic-${run}`, entityType: 'log_summary', observations: [`${errors} errors`] },
    ],
  });
  await call('echo', { message: `service.log: ${errors} errors, stored as classic-${run}` });
  return through;
}

/** Code mode: one cell does the three steps; only the code and its print pass through. */
async function codeTask(client: Client, run: number, kernel?: string) {
  const code = [
    'from mcptools.filesystem import read_text_file',
    'from mcptools.memory import create_entities',
    'from mcptools.echo import echo',
    `text = read_text_file.run({'path': ${JSON.stringify(logFile)}})`,
    "text = text['content'] if isinstance(text, dict) else text",
    "errors = sum(' ERROR ' in line for line in text.splitlines())",
    `create_entities.run({'entities': [{'name': 'code-${run}', 'entityType': 'log_summary', 'observations': [f'{errors} errors']}]})`,
    `print(echo.run({'message': f'service.log: {errors} errors, stored as code-${run}'}))`,
  ].join('\n');
  const args = { code, ...(kernel && { kernel }) };
  const result = await client.callTool({ name: 'execute_code', arguments: args });
  if (result.isError) throw new Error(`execute_code: ${JSON.stringify(result.content)}`);
  const handle = (result._meta as Record<string, string> | undefined)?.['ipybox/kernel'];
  return {
    through: bytes({ name: 'execute_code', arguments: { code } }) + bytes(result.content),
    kernel: handle,
  };
}

/** What a model would ask search_tools to find the three tools (summary detail). */
async function discovery(client: Client): Promise<number> {
  let through = 0;
  for (const query of [
    'read a text file',
    'create entities in the knowledge graph',
    'echo a message',
  ]) {
    const args = { query, detail: 'summary', limit: 3 };
    const result = await client.callTool({ name: 'search_tools', arguments: args });
    through += bytes({ name: 'search_tools', arguments: args }) + bytes(result.content);
  }
  return through;
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await fn();
  return [value, performance.now() - start];
}

/** One `execute_code`: wall time and bytes through the context (the call and its result). */
async function execute(client: Client, args: Record<string, unknown>) {
  const [result, ms] = await timed(() =>
    client.callTool({ name: 'execute_code', arguments: args }, { timeout: 300_000 }),
  );
  if (result.isError) throw new Error(`execute_code: ${JSON.stringify(result.content)}`);
  const kernel = (result._meta as Record<string, string> | undefined)?.['ipybox/kernel'];
  return {
    ms,
    through: bytes({ name: 'execute_code', arguments: args }) + bytes(result.content),
    kernel,
  };
}

const TEN_CALLS = {
  typescript:
    'const out: string[] = [];\nfor (let i = 0; i < 10; i++) out.push((await tools.echo.echo({ message: "m" + i })).content[0].text);\nconsole.log(out.join(" "));',
  python:
    "from mcptools.echo import echo\nprint(' '.join(echo.run({'message': f'm{i}'}) for i in range(10)))",
};

async function languages(era: Era): Promise<void> {
  const small = join(dir, 'languages.yaml');
  writeFileSync(
    small,
    [
      'plugins:',
      '  echo: {}',
      ...mirroredServers(dir)
        .slice(0, 3)
        .map((line) => `  ${line}`),
      '  code_mode:',
      `    workspace: ${JSON.stringify(join(dir, 'workspace-languages'))}`,
      '',
    ].join('\n'),
  );
  const client = await connect(era, ['-c', small, '--code-mode', 'both']);
  try {
    // A 2026 client has no handshake to wait for the server's start: it would be timed with it.
    await client.listTools();
    const coldTs = await execute(client, { language: 'typescript', code: '1 + 1' });
    const coldPy = await execute(client, { language: 'python', code: '1 + 1' });
    const kernel = coldPy.kernel;
    const warm = { ts: [] as number[], py: [] as number[] };
    const ten = { direct: [] as number[], ts: [] as number[], py: [] as number[] };
    const through = { direct: 0, ts: 0, py: 0 };
    for (let run = 0; run < ROUNDS; run++) {
      warm.ts.push((await execute(client, { language: 'typescript', code: '1 + 1' })).ms);
      warm.py.push((await execute(client, { language: 'python', code: '1 + 1', kernel })).ms);
      const [direct, directMs] = await timed(async () => {
        let sum = 0;
        for (let i = 0; i < 10; i++) {
          const args = { message: `m${i}` };
          const result = await client.callTool({ name: 'echo', arguments: args });
          sum += bytes({ name: 'echo', arguments: args }) + bytes(result.content);
        }
        return sum;
      });
      ten.direct.push(directMs);
      through.direct = direct;
      const ts = await execute(client, { language: 'typescript', code: TEN_CALLS.typescript });
      ten.ts.push(ts.ms);
      through.ts = ts.through;
      const py = await execute(client, { language: 'python', code: TEN_CALLS.python, kernel });
      ten.py.push(py.ms);
      through.py = py.through;
    }
    const ms = (values: number[]) => median(values).toFixed(1);
    console.log(`\nLanguages (${eraLabel(era)} client), wall time ms (median of ${ROUNDS})`);
    console.log(
      table(
        [
          ['', 'TypeScript (isolate)', 'Python (kernel)', 'direct MCP calls'],
          ['cold start: first execution, ms', coldTs.ms.toFixed(0), coldPy.ms.toFixed(0), ''],
          ['warm round trip (1 + 1), ms', ms(warm.ts), ms(warm.py), ''],
          ['10 tool calls, ms', ms(ten.ts), ms(ten.py), ms(ten.direct)],
          ['10 tool calls, bytes to the model', kb(through.ts), kb(through.py), kb(through.direct)],
        ],
        1,
      ),
    );
  } finally {
    await client.close();
  }
}

try {
  for (const era of eras) {
    if (process.env.BENCH_ONLY === 'languages') {
      await languages(era);
      continue;
    }
    // What each kind of client is sent: the classic server's list, the code-mode server's.
    const plain = await connect(era, ['-c', classicConfig]);
    const classicDefs = (await plain.listTools()).tools;
    await plain.close();
    // Every tool stays callable by name under --code-mode on: both tasks run on this server.
    const client = await connect(era, ['-c', config, '--code-mode', 'on']);
    try {
      const codeDefs = (await client.listTools()).tools;
      if (codeDefs.some((t) => !CODE_MODE_TOOLS.has(t.name))) {
        throw new Error(`--code-mode on listed ${codeDefs.map((t) => t.name).join(', ')}`);
      }
      const classicBytes = bytes({ tools: classicDefs });
      const codeBytes = bytes({ tools: codeDefs });

      const classic: number[] = [];
      const classicMs: number[] = [];
      const code: number[] = [];
      const codeMs: number[] = [];
      let kernel: string | undefined;
      const [first, firstMs] = await timed(() => codeTask(client, 0, kernel));
      kernel = first.kernel;
      for (let run = 1; run <= ROUNDS; run++) {
        const [c, cMs] = await timed(() => classicTask(client, run));
        classic.push(c);
        classicMs.push(cMs);
        const [k, kMs] = await timed(() => codeTask(client, run, kernel));
        code.push(k.through);
        codeMs.push(kMs);
      }
      const search = await discovery(client);

      console.log(
        `\nCatalog (${eraLabel(era)} client): ${classicDefs.length} tools classic, ${codeDefs.length} in code mode`,
      );
      console.log(
        table(
          [
            ['', 'classic', 'code mode', 'ratio'],
            [
              'tool definitions, bytes',
              kb(classicBytes),
              kb(codeBytes),
              `${(classicBytes / codeBytes).toFixed(1)}×`,
            ],
            ['tool definitions, tokens', tokens(classicBytes), tokens(codeBytes), ''],
            [
              'task through context, bytes',
              kb(median(classic)),
              kb(median(code)),
              `${(median(classic) / median(code)).toFixed(1)}×`,
            ],
            ['task through context, tokens', tokens(median(classic)), tokens(median(code)), ''],
            ['+ search_tools to find the 3 tools, bytes', '', kb(search), ''],
            [
              `task wall time, ms (median of ${ROUNDS})`,
              median(classicMs).toFixed(0),
              median(codeMs).toFixed(0),
              '',
            ],
            ['first cell (kernel start), ms', '', firstMs.toFixed(0), ''],
          ],
          1,
        ),
      );
    } finally {
      await client.close();
    }
    await languages(era);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
