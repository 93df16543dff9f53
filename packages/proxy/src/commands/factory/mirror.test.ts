/**
 * mcp-factory mirrors an MCP server named by a `plugins:` entry with `command:` (issue 15 item 19),
 * as mcp-proxy does: the real bin over stdio, server-everything as the upstream, a 2025 and a
 * 2026 client.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const BIN = fileURLToPath(new URL('../../../bin/mcp-factory.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));
const EVERYTHING = join(ROOT, 'node_modules/.bin/mcp-server-everything');

for (const era of ['legacy', '2026-07-28'] as const) {
  test(`a plugins: entry with command: is mirrored (${era} client)`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'factory-mirror-'));
    const config = join(dir, 'factory.yaml');
    writeFileSync(
      config,
      `plugins:\n  everything:\n    command: ${JSON.stringify(EVERYTHING)}\n    args: [stdio]\n`,
    );
    const client = new Client(
      { name: 'mirror-test', version: '1.0.0' },
      { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: era } } },
    );
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, '-c', config, '--log-level', 'warning'],
        env: { ...(process.env as Record<string, string>), HOME: dir },
        stderr: 'ignore',
      }),
    );
    t.after(async () => {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(tools.includes('echo'), `mirrored tools: ${tools.join(', ')}`);
    const result = await client.callTool({ name: 'echo', arguments: { message: 'through' } });
    const text = (result.content as Array<{ text?: string }>)[0]?.text ?? '';
    assert.match(text, /through/);
  });
}
