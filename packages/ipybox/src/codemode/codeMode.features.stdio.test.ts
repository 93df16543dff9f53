/**
 * Code mode beside the ipybox plugin, both eras, over a real mcp-factory (stdio):
 * - `execute_code` keeps a long output and an image as `codemode://` resources of its own (the
 *   ipybox plugin's `ipybox://` templates are there too, no collision), read back with
 *   `resources/read`; an id that is not the caller's is refused;
 * - `search_tools` finds the tools of a server registered with `register_mcp_server`, ranked
 *   with the catalog's, with their import lines (also one whose name a catalog tool has);
 * - a call from code that times out is cancelled: the slow plugin tool sees its abort.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ERAS } from '@mcpbox/framework';
import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult, ResourceLink } from '@modelcontextprotocol/server';
import { registerEverything, textOf } from '../server/testing.ts';
import { connectFactory, eraClient, factoryConfig, waitFor } from './testing.ts';

const SLOW_PLUGIN = fileURLToPath(new URL('./__fixtures__/slow.ts', import.meta.url));

for (const era of ERAS) {
  describe(`code mode beside ipybox (${era} client over stdio)`, () => {
    const cleanups: (() => unknown)[] = [];
    let client: Client;
    let dir: string;
    let kernel = '';

    before(async () => {
      const made = await factoryConfig({ after: (fn) => cleanups.push(fn) }, (dir) => [
        'echo: {}',
        `slow: {path: ${JSON.stringify(SLOW_PLUGIN)}}`,
        `ipybox: {workspace: ${JSON.stringify(join(dir, 'workspace'))}}`,
      ]);
      dir = made.dir;
      client = eraClient(era);
      await connectFactory(client, made.config, dir);
      cleanups.push(() => client.close());
    });
    after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    });

    /** `execute_code` in one kernel (a 2026 client passes its handle). */
    const run = async (code: string, extra: Record<string, unknown> = {}) => {
      const result = (await client.callTool(
        { name: 'execute_code', arguments: { code, ...(kernel && { kernel }), ...extra } },
        { timeout: 300_000 },
      )) as CallToolResult;
      kernel ||= (result._meta as Record<string, string> | undefined)?.['ipybox/kernel'] ?? '';
      return result;
    };

    test('long outputs and images are codemode:// resources, beside ipybox:// ones', async () => {
      const { resourceTemplates } = await client.listResourceTemplates();
      assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate).sort(), [
        'codemode://images/{id}',
        'codemode://outputs/{id}',
        'ipybox://images/{id}',
        'ipybox://outputs/{id}',
        // The workspace's skills saved from code (save_skill), served as Skills.
        'skill://{+path}',
      ]);

      const long = await run("print('\\n'.join(str(i) for i in range(5000)))", {
        max_output_chars: 100,
      });
      const text = textOf(long);
      const [link] = long.content.filter((c): c is ResourceLink => c.type === 'resource_link');
      assert.ok(link, text);
      assert.match(link.uri, /^codemode:\/\/outputs\/[A-Za-z0-9_-]{22}$/);
      assert.match(text, new RegExp(`read the resource ${link.uri}`));
      const read = await client.readResource({ uri: link.uri });
      assert.equal(
        (read.contents[0] as { text: string }).text,
        Array.from({ length: 5000 }, (_, i) => String(i)).join('\n'),
      );

      const figure = await run(
        'import matplotlib.pyplot as plt\nplt.figure(figsize=(4, 3), dpi=100)\nplt.plot([1, 2, 3], [1, 4, 9])\nplt.show()',
      );
      const match = /\((\/\S+\.png)\) .*full size: (codemode:\/\/images\/\S+)\)/.exec(
        textOf(figure),
      );
      assert.ok(match, textOf(figure));
      const [, path, uri] = match;
      const image = await client.readResource({ uri: String(uri) });
      assert.equal(image.contents[0]?.mimeType, 'image/png');
      assert.deepEqual(
        Buffer.from((image.contents[0] as { blob: string }).blob, 'base64'),
        readFileSync(String(path)),
      );

      // Not this caller's (an id never given out, or the ipybox plugin's store): not found.
      const id = link.uri.slice('codemode://outputs/'.length);
      for (const other of ['codemode://outputs/AAAAAAAAAAAAAAAAAAAAAA', `ipybox://outputs/${id}`]) {
        await assert.rejects(client.readResource({ uri: other }), /has no output/);
      }
      assert.equal(textOf(await run('6 * 7')), '42');
    });

    test('search_tools finds a registered server’s tools, ranked with the catalog’s', async () => {
      const search = async (query: string, limit = 5) =>
        textOf(
          await client.callTool({
            name: 'search_tools',
            arguments: { query, detail: 'summary', limit },
          }),
        );
      assert.doesNotMatch(await search('sum of two numbers'), /mcptools\.everything/);
      await registerEverything(client);
      assert.match(
        await search('sum of two numbers', 3),
        /^from mcptools\.everything import get_sum {2}# Returns the sum of two numbers$/m,
      );
      // Its echo and the echo plugin's, one index: both found for the same words.
      const echoes = await search('echo the message back', 10);
      assert.match(echoes, /^from mcptools\.echo import echo /m);
      assert.match(echoes, /^from mcptools\.everything import echo /m);
      // What search_tools names is what the kernel imports.
      const summed = await run(
        "from mcptools.everything import get_sum\nprint(get_sum.run({'a': 2, 'b': 3}))",
      );
      assert.equal(summed.isError, undefined, textOf(summed));
      assert.match(textOf(summed), /5/);
    });

    test('a call from code that times out is cancelled: the tool sees the abort', async () => {
      const marker = join(dir, `aborted-${era}`);
      const timedOut = await run(
        [
          'from mcptools.slow import wait_for_abort',
          'try:',
          `    wait_for_abort.run({'marker': ${JSON.stringify(marker)}}, timeout=2)`,
          'except Exception as error:',
          "    print(type(error).__name__, '|', error)",
        ].join('\n'),
      );
      assert.match(textOf(timedOut), /time/i);
      await waitFor(() => existsSync(marker), 'the slow tool to see its call aborted');
      assert.match(readFileSync(marker, 'utf8'), /^aborted: /);
    });
  });
}
