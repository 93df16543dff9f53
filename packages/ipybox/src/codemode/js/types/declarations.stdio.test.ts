/**
 * Declarations from the tool lists of real servers, listed by a real SDK v2 client over stdio:
 * mcp-factory serving the echo plugin, server-memory and server-everything (names with
 * dashes, an output schema). The generated `.d.ts` compiles with the TypeScript compiler, right
 * calls type-check, and a wrong call is flagged at its line and column.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import type { CatalogToolInfo } from '@mcpbox/framework';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { EVERYTHING_BIN, FACTORY_BIN, tempWorkspace } from '../../../server/testing.ts';
import { BIN_DIR } from '../../testing.ts';
import { toolDeclarations, toolSignature } from './declarations.ts';
import { typeCheck } from './typeCheck.ts';

/** The tools `command` serves, listed over stdio by an SDK client (the server is stopped after). */
async function listTools(
  plugin: string,
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<CatalogToolInfo[]> {
  const client = new Client({ name: 'ts-types-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command,
      args,
      env: { ...(process.env as Record<string, string>), ...env },
      stderr: 'ignore',
    }),
  );
  try {
    return (await client.listTools()).tools.map((tool) => ({ plugin, tool }));
  } finally {
    await client.close();
  }
}

describe('declarations of real servers', () => {
  let tools: CatalogToolInfo[] = [];
  let declarations = '';

  before(async () => {
    const { dir, remove } = await tempWorkspace('ts-types-');
    try {
      const lists = await Promise.all([
        listTools('echo', process.execPath, [FACTORY_BIN, '-p', 'echo']),
        listTools('memory', join(BIN_DIR, 'mcp-server-memory'), [], {
          MEMORY_FILE_PATH: join(dir, 'memory.json'),
        }),
        listTools('everything', EVERYTHING_BIN, ['stdio']),
      ]);
      tools = lists.flat();
    } finally {
      await remove();
    }
    declarations = toolDeclarations(tools);
  });

  test('the .d.ts has every tool, compiles, and is the same text for the same view', async () => {
    assert.ok(tools.length > 15, `${tools.length} tools`);
    for (const { tool } of tools) {
      const key = /^[A-Za-z_$][\w$]*$/.test(tool.name) ? tool.name : JSON.stringify(tool.name);
      assert.ok(declarations.includes(`    ${key}(args`), `${tool.name} declared`);
    }
    assert.match(declarations, /declare const tools: \{\n {2}echo: \{/);
    assert.match(declarations, /\n {2}everything: \{/);
    // The declarations as code: every type in them is checked (not skipped as a library).
    assert.deepEqual(await typeCheck(declarations, ''), []);
    assert.equal(toolDeclarations([...tools]), declarations);
  });

  test('right calls type-check, with results typed from the output schema', async () => {
    const code = [
      "const echoed = await tools.echo.echo({ message: 'hi' });",
      'const text: string | undefined = echoed.content[0]?.type === "text" ? echoed.content[0].text : undefined;',
      "await tools.memory.create_entities({ entities: [{ name: 'a', entityType: 't', observations: [] }] });",
      'const graph = await tools.memory.read_graph();',
      "const weather = await tools.everything['get-structured-content']({ location: 'Chicago' });",
      'const celsius: number = weather.temperature;',
      "const sum = await tools.everything['get-sum']({ a: 1, b: 2 });",
      'session.last = celsius;',
      'console.log(text, graph.entities.length, sum.content.length);',
      'weather.conditions',
    ].join('\n');
    assert.deepEqual(await typeCheck(code, declarations), []);
  });

  test('a wrong call is flagged at its line and column', async () => {
    const code = [
      '// three tools, one wrong',
      "await tools.echo.echo({ message: 'fine' });",
      '',
      "await tools.memory.create_entities({ entities: [{ name: 1, entityType: 't', observations: [] }] });",
      "await tools.everything['get-structured-content']({ location: 'Paris' });",
      'await tools.echo.shout({});',
    ].join('\n');
    const diagnostics = await typeCheck(code, declarations);
    assert.deepEqual(
      diagnostics.map(({ line, column }) => [line, column]),
      [
        [4, 51],
        [5, 52],
        [6, 18],
      ],
    );
    assert.match(diagnostics[0]!.message, /Type 'number' is not assignable to type 'string'/);
    assert.match(
      diagnostics[1]!.message,
      /"Paris"' is not assignable to type '"New York" \| "Chicago" \| "Los Angeles"'/,
    );
    assert.match(diagnostics[2]!.message, /Property 'shout' does not exist/);
  });

  test('a search hit is the call with its documented signature', () => {
    const sum = tools.find((t) => t.tool.name === 'get-sum')!;
    const signature = toolSignature('everything', sum.tool);
    assert.match(
      signature,
      /^\/\*\*\n \* .+\n \* @returns the MCP result `\{ content, isError\? \}`\n \*\//,
    );
    assert.match(signature, /\ntools\.everything\["get-sum"\]\(args: \{\n/);
    assert.match(signature, /\n {2}a: number;\n/);
    assert.match(signature, /\}\): Promise<ToolResult>$/);
  });
});
