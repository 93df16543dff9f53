/**
 * `search_tools` with `language`, both eras: a real mcp-factory over stdio mirroring
 * server-memory, server-filesystem and server-everything, with code_mode. TypeScript hits are the calls
 * code makes (`tools.<server>.<tool>`, brackets for a dashed name) with their signatures; the
 * default stays Python's import lines; a language it does not know is a clear error.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ERAS } from '@mcpbox/framework';
import { EVERYTHING_BIN, textOf } from '../../../server/testing.ts';
import { connectFactory, eraClient, factoryConfig, mirroredServers } from '../../testing.ts';

for (const era of ERAS) {
  test(`search_tools in TypeScript (${era} client)`, async (t) => {
    // Not the echo plugin: server-everything has an `echo` tool too, and one name is one tool.
    const { dir, config } = await factoryConfig(t, (dir) => [
      ...mirroredServers(dir),
      'everything:',
      `  command: ${JSON.stringify(EVERYTHING_BIN)}`,
      '  args: [stdio]',
    ]);
    const client = eraClient(era);
    await connectFactory(client, config, dir);
    t.after(() => client.close());
    const search = async (args: Record<string, unknown>) =>
      client.callTool({ name: 'search_tools', arguments: { limit: 3, ...args } });

    const names = textOf(
      await search({ query: 'create entities in the knowledge graph', language: 'typescript' }),
    );
    assert.match(names, /^\d tools? for "create entities in the knowledge graph"/);
    assert.match(names, /\ntools\.memory\.create_entities\(\{\.\.\.\}\)(\n|$)/);

    const summary = textOf(
      await search({ query: 'echo the message back', language: 'javascript', detail: 'summary' }),
    );
    assert.match(
      summary,
      /\ntools\.everything\.echo\(\{\.\.\.\}\) {2}\/\/ Echoes back the input string(\n|$)/,
    );

    const full = textOf(
      await search({
        query: 'get structured content with an output schema',
        language: 'typescript',
        detail: 'full',
        limit: 1,
      }),
    );
    assert.match(full, /\n\/\/ everything: get-structured-content\n\/\*\*\n/);
    assert.match(full, /\ntools\.everything\["get-structured-content"\]\(args: \{\n/);
    assert.match(full, /\n {2}location: "New York" \| "Chicago" \| "Los Angeles";\n/);
    assert.match(full, /\}\): Promise<\{\n[\s\S]*\n {2}temperature: number;\n[\s\S]*\}>$/);

    // The default is Python, as before.
    const python = textOf(await search({ query: 'create entities in the knowledge graph' }));
    assert.match(python, /from mcptools\.memory import create_entities/);
    assert.doesNotMatch(python, /^tools\./m);

    const wrong = await search({ query: 'echo', language: 'ruby' });
    assert.equal(wrong.isError, true);
    assert.match(textOf(wrong), /language[\s\S]*python[\s\S]*typescript[\s\S]*javascript/);
  });
}
