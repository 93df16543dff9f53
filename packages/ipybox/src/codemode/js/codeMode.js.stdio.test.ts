/**
 * Code mode in TypeScript and JavaScript end to end, both eras: a real mcp-factory over stdio
 * serving echo, server-memory and server-filesystem (mirrored) and code_mode offering only
 * TypeScript and JavaScript, with a Python that does not exist — no kernel is ever needed.
 * A TypeScript script calls several tools; `session` lasts between calls; syntax errors name
 * the line and column; a bad argument, an unknown tool and an approval rule's denial are thrown
 * errors the code can catch; calls are logged with via "code".
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { ERAS } from '@mcpbox/framework';
import { textOf } from '../../server/testing.ts';
import {
  connectFactory,
  eraClient,
  executeCode,
  factoryConfig,
  mirroredServers,
  toolLogEntries,
  waitFor,
} from '../testing.ts';

for (const era of ERAS) {
  test(`code mode in TypeScript over stdio (${era} client): tools, session, errors, policy`, async (t) => {
    const { dir, config } = await factoryConfig(t, (dir) => ['echo: {}', ...mirroredServers(dir)], [
      'languages: [typescript, javascript]',
      'python: /nonexistent/python3',
      'approval_rules: {"memory.delete_entities": "deny"}',
    ]);
    await writeFile(join(dir, 'notes.txt'), 'alpha\nbeta\ngamma\n');
    const client = eraClient(era);
    await connectFactory(client, config, dir);
    t.after(() => client.close());

    const execute = (await client.listTools()).tools.find((tool) => tool.name === 'execute_code');
    const language = execute?.inputSchema.properties?.language as { enum?: string[] } | undefined;
    assert.deepEqual(language?.enum, ['typescript', 'javascript']);
    assert.equal(execute?.inputSchema.properties?.kernel, undefined, 'no kernels without Python');

    const script = [
      'interface Graph { entities: { name: string; observations: string[] }[] }',
      `const file = await tools.filesystem.read_text_file({ path: ${JSON.stringify(join(dir, 'notes.txt'))} });`,
      '// A tool with an outputSchema resolves to its structured content, others to { content }.',
      'const text = (r: any): string => typeof r.content === "string" ? r.content : r.content[0].text;',
      'const content = text(file);',
      'const lines = content.split("\\n").filter(Boolean);',
      'await tools.memory.create_entities({ entities: [{ name: "notes", entityType: "file", observations: [lines.length + " lines"] }] });',
      'const graph = (await tools.memory.open_nodes({ names: ["notes"] })) as Graph;',
      'console.log("read", lines.length);',
      'session.runs = (session.runs ?? 0) + 1;',
      'text(await tools.echo.echo({ message: lines[0] + " " + graph.entities[0].observations[0] }))',
    ].join('\n');
    const step = await executeCode(client, script);
    assert.equal(step.isError, false, step.text);
    assert.equal(step.text, 'read 3\nalpha 3 lines');

    // session lasts; everything else starts fresh.
    const again = await executeCode(client, 'typeof lines + " " + session.runs', {
      language: 'javascript',
    });
    assert.equal(again.text, 'undefined 1');

    const syntax = await executeCode(client, 'const a = 1;\nconst b: number = a +;\n');
    assert.equal(syntax.isError, true);
    assert.match(syntax.text, /SyntaxError: code\.ts:2:22: Unexpected ";"/);

    // check: true — type errors against the tools' declarations, nothing run.
    const checked = await client.callTool({
      name: 'execute_code',
      arguments: {
        code: 'session.ran = true;\nawait tools.echo.echo({ msg: 1 });',
        language: 'typescript',
        check: true,
      },
    });
    assert.equal(checked.isError, true);
    assert.match(textOf(checked), /TypeCheckError: 1 type error; nothing ran/);
    assert.match(textOf(checked), /code\.ts:2:\d+: .*'msg'/);
    assert.equal((await executeCode(client, 'session.ran ?? "no"')).text, 'no');
    // A runtime error's frame at the caller's line, through the transpiled code.
    const runtime = await executeCode(
      client,
      'type A = { a: number };\n\nconst x: A | null = null;\nx!.a;',
    );
    assert.match(
      runtime.text,
      /TypeError: cannot read property 'a' of null\n\s+at .*\(code\.ts:4:\d+\)/,
    );

    // Refusals are thrown errors the code can catch, named as Python's exceptions.
    const errors = await executeCode(
      client,
      [
        'const out: string[] = [];',
        'for (const call of [',
        '  () => tools.echo.echo({ msg: "x" }),',
        '  () => tools.echo.no_such_tool({}),',
        '  () => tools.memory.delete_entities({ entityNames: ["notes"] }),',
        ']) {',
        '  try { await call(); out.push("ran"); } catch (e) { out.push(e.name + ": " + e.message); }',
        '}',
        'out.join("\\n")',
      ].join('\n'),
    );
    assert.equal(errors.isError, false, errors.text);
    const [wrong, unknown, denied] = errors.text.split('\n');
    assert.match(wrong!, /^ToolError: echo\.echo: .*message/);
    assert.match(unknown!, /^ToolNotFound: tools\.echo\.no_such_tool is not a tool/);
    assert.match(
      denied!,
      /^ToolRejected: call to memory\.delete_entities rejected: tool calls are denied by policy/,
    );
    const kept = await executeCode(
      client,
      '(await tools.memory.open_nodes({ names: ["notes"] })).entities[0].name',
    );
    assert.equal(kept.text, 'notes', 'the denied call deleted nothing');

    // An uncaught error: its name, message and where.
    const thrown = await executeCode(client, 'console.log("before");\nnull.x;');
    assert.equal(thrown.isError, true);
    assert.match(thrown.text, /before[\s\S]*TypeError: cannot read property 'x' of null/);

    await waitFor(
      async () =>
        (await toolLogEntries(dir)).some((e) => e.tool === 'create_entities' && e.via === 'code'),
      'create_entities in tool_calls.jsonl with via "code"',
    );
    assert.ok(
      (await toolLogEntries(dir)).filter((e) => e.tool === 'echo').every((e) => e.via === 'code'),
    );
    assert.match(
      textOf(await client.callTool({ name: 'search_tools', arguments: { query: 'echo' } })),
      /echo/,
    );
  });
}
