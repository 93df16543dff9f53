/**
 * Test helpers for code mode: a real `mcp-factory` over stdio with local plugins, mirrored
 * reference servers and `code_mode`, connected with an SDK v2 client of either era.
 *
 * @module
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Era, versionOfEra } from '@mcpbox/framework';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { FACTORY_BIN, tempWorkspace, textOf } from '../server/testing.ts';

// Waits for a condition with a generous deadline (a loaded machine), never for a fixed time.
export { waitFor } from '@mcpbox/test-utils';

export const BIN_DIR = fileURLToPath(new URL('../../../../node_modules/.bin/', import.meta.url));

export function eraClient(era: Era, { elicitation = false } = {}): Client {
  return new Client(
    { name: 'code-mode-test', version: '1.0.0' },
    {
      versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } },
      ...(elicitation && { capabilities: { elicitation: {} } }),
    },
  );
}

/** `plugins:` entries (unindented) mirroring server-memory (its file in `dir`) and server-filesystem (`dir`). */
export function mirroredServers(dir: string): string[] {
  return [
    'memory:',
    `  command: ${JSON.stringify(join(BIN_DIR, 'mcp-server-memory'))}`,
    `  env: {MEMORY_FILE_PATH: ${JSON.stringify(join(dir, 'memory.json'))}}`,
    'filesystem:',
    `  command: ${JSON.stringify(join(BIN_DIR, 'mcp-server-filesystem'))}`,
    `  args: [${JSON.stringify(dir)}]`,
  ];
}

/**
 * A temporary directory (removed after the test) holding `factory.yaml`: the `plugins:` entries
 * given (or made for the directory), then code_mode with its workspace in the directory and the settings given.
 */
export async function factoryConfig(
  t: { after: (fn: () => unknown) => void },
  plugins: readonly string[] | ((dir: string) => readonly string[]),
  codeMode: readonly string[] = [],
): Promise<{ dir: string; config: string }> {
  const { dir, remove } = await tempWorkspace('code-mode-');
  t.after(remove);
  const config = join(dir, 'factory.yaml');
  const lines = [
    'plugins:',
    ...(typeof plugins === 'function' ? plugins(dir) : plugins).map((line) => `  ${line}`),
    '  code_mode:',
    `    workspace: ${JSON.stringify(join(dir, 'workspace'))}`,
    ...codeMode.map((line) => `    ${line}`),
    '',
  ];
  await writeFile(config, lines.join('\n'));
  return { dir, config };
}

/**
 * Spawns `mcp-factory -c <config>` over stdio with HOME in `dir` (and `env` added) and connects
 * `client`.
 */
export async function connectFactory(
  client: Client,
  config: string,
  dir: string,
  env: Record<string, string> = {},
): Promise<{ stderr(): string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [FACTORY_BIN, '-c', config, '--log-level', 'info'],
    env: { ...(process.env as Record<string, string>), HOME: dir, TMPDIR: dir, ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  await client.connect(transport);
  return { stderr: () => stderr };
}

/**
 * Runs `code` with `execute_code`; `kernel` keeps a 2026 client in one kernel; `language` picks
 * TypeScript or JavaScript (default: the server's).
 */
export async function executeCode(
  client: Client,
  code: string,
  options: { kernel?: string; timeout?: number; language?: string; max_output_chars?: number } = {},
): Promise<{ text: string; isError: boolean; kernel: string }> {
  const result = await client.callTool(
    { name: 'execute_code', arguments: { code, ...options } },
    { timeout: 300_000 },
  );
  const kernel = (result._meta as Record<string, string> | undefined)?.['ipybox/kernel'] ?? '';
  return { text: textOf(result), isError: result.isError === true, kernel };
}

/** Every line of every `tool_calls.jsonl` under `dir`, parsed. */
export async function toolLogEntries(dir: string): Promise<Record<string, unknown>[]> {
  const files = (await readdir(dir, { recursive: true }))
    .filter((f) => f.endsWith('tool_calls.jsonl'))
    .map((f) => join(dir, f));
  const lines = (await Promise.all(files.map((f) => readFile(f, 'utf8')))).join('');
  return lines
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
