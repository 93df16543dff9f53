/**
 * Output sized for a model's context window, end to end: the real `ipybox` bin, real SDK v2
 * clients of both protocol eras over stdio, real IPython kernels (matplotlib, pandas).
 *
 * Each output reaches the client once, in the result; streamed progress stops at
 * `max_output_chars`; long output keeps its head and tail and always the traceback; full outputs,
 * HTML and full-size images are resources the client reads on demand.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, type ClientOptions, type ResourceLink } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { CallToolResult } from '@modelcontextprotocol/server';
import sharp from 'sharp';
import {
  FACTORY_BIN,
  runCell,
  type StdioIpybox,
  startHttpIpybox,
  startStdioIpybox,
  tempWorkspace,
  textOf,
} from '../server/testing.ts';
import { INLINE_MAX_SIDE } from './inlineImages.ts';

const ERAS = ['2025-11-25', '2026-07-28'] as const;
const pinned = (era: (typeof ERAS)[number]): ClientOptions =>
  era === '2025-11-25' ? {} : { versionNegotiation: { mode: { pin: era } } };

function links(result: CallToolResult): ResourceLink[] {
  return result.content.filter((c): c is ResourceLink => c.type === 'resource_link');
}

/** `print(i)` for i below n, as the kernel prints it (trailing newline trimmed). */
const printed = (n: number) => Array.from({ length: n }, (_, i) => String(i)).join('\n');

for (const era of ERAS) {
  describe(`cell output within max_output_chars (${era} client over stdio)`, () => {
    let ws: Awaited<ReturnType<typeof tempWorkspace>>;
    let box: StdioIpybox;
    const logged: string[] = [];

    before(async () => {
      ws = await tempWorkspace();
      box = await startStdioIpybox(ws.dir, {
        args: ['--max-output-chars', '3000', '--max-output-chars-limit', '50000'],
        clientOptions: pinned(era),
      });
      assert.equal(box.client.getNegotiatedProtocolVersion(), era);
      box.client.setNotificationHandler('notifications/message', (n) => {
        logged.push(JSON.stringify(n.params.data));
      });
    });
    after(async () => {
      await box?.close();
      await ws?.remove();
    });

    test('the server-wide default is the schema default; the three templates are listed', async () => {
      const { tools } = await box.client.listTools();
      const execute = tools.find((t) => t.name === 'execute_ipython_cell');
      const props = execute?.inputSchema.properties as Record<string, { default?: unknown }>;
      assert.equal(props.max_output_chars?.default, 3000);
      const { resourceTemplates } = await box.client.listResourceTemplates();
      assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate).sort(), [
        'ipybox://images/{id}',
        'ipybox://outputs/{id}',
        // The workspace's skills saved from code (save_skill), served as Skills.
        'skill://{+path}',
      ]);
    });

    test('a 2 MB print with max_output_chars=100: ~100 characters streamed, no log copies, a small result, its start and end as a resource', async () => {
      const messages: string[] = [];
      let notifications = 0;
      const n = 350_000;
      const result = (await box.client.callTool(
        {
          name: 'execute_ipython_cell',
          arguments: { code: `for i in range(${n}):\n    print(i)`, max_output_chars: 100 },
        },
        {
          timeout: 300_000,
          onprogress: (p) => {
            notifications += 1;
            if (p.message) messages.push(p.message);
          },
        },
      )) as CallToolResult;
      const full = printed(n);
      assert.ok(full.length > 2_000_000);
      // Before the fix: one notification per chunk (thousands), each with its text, plus a log
      // message with the same text: ~4 MB for this cell.
      const streamed = messages.join('');
      assert.ok(streamed.length <= 100 + 200, `${streamed.length} characters streamed`);
      assert.match(
        streamed,
        /^0\n1\n2\n[\s\S]*\[streamed output stops here: it passed max_output_chars=100/,
      );
      assert.ok(notifications < 200, `${notifications} progress notifications`);
      assert.equal(logged.filter((l) => l.includes('\\n1\\n2\\n')).length, 0, 'no log copies');

      const text = textOf(result);
      assert.ok(text.length < 700, text);
      assert.ok(text.startsWith('0\n1\n2\n'));
      assert.ok(text.endsWith(`${n - 2}\n${n - 1}`));
      const [link] = links(result);
      assert.ok(link);
      assert.match(
        text,
        new RegExp(
          `\\[Output truncated: [\\d,]+ characters \\([\\d,]+ lines\\) cut from the middle to fit max_output_chars=100; for more, read the resource ${link.uri} \\(its start and end\\), or run it with a larger max_output_chars \\(at most 50,000\\)\\]`,
        ),
      );
      // 2.3 M characters are more than one resource keeps (2 M: one MCP message over stdio is
      // at most 10 MB), so it has the first and last million.
      const read = await box.client.readResource({ uri: link.uri });
      const kept = (read.contents[0] as { text: string }).text;
      const note = `\n[ipybox keeps at most 2000000 characters of one output: ${(full.length - 2_000_000).toLocaleString('en-US')} characters from the middle are not here]\n`;
      assert.equal(kept, full.slice(0, 1_000_000) + note + full.slice(-1_000_000));
    });

    test('12 M characters: the server keeps start and end, counts all of it, and the resource read fits one message', async () => {
      const result = await runCell(
        box.client,
        'for i in range(12):\n    print(str(i % 10) * 1_000_000)',
        { max_output_chars: 200 },
      );
      const total = 12 * 1_000_001 - 1;
      const text = textOf(result);
      const marker =
        /\n\[Output truncated: ([\d,]+) characters \(([\d,]+) lines\) cut[^\]]*\(its start and end\)[^\]]*\]\n/.exec(
          text,
        );
      assert.ok(marker, text);
      const head = text.slice(0, marker.index);
      const tail = text.slice(marker.index + marker[0].length);
      assert.equal(Number(marker[1]?.replaceAll(',', '')), total - head.length - tail.length);
      assert.equal(marker[2], '12');
      const [link] = links(result);
      assert.ok(link);
      // Before: the read of a ~10 MB text broke the stdio connection (and so the server).
      const read = await box.client.readResource({ uri: link.uri });
      const note = `\n[ipybox keeps at most 2000000 characters of one output: ${(total - 2_000_000).toLocaleString('en-US')} characters from the middle are not here]\n`;
      assert.equal(
        (read.contents[0] as { text: string }).text,
        `${'0'.repeat(1_000_000)}${note}${'1'.repeat(1_000_000)}`,
      );
      assert.equal(textOf(await runCell(box.client, '6 * 7')), '42');
    });

    test('long output then 1/0: head, tail and the whole ZeroDivisionError traceback', async () => {
      const result = await runCell(box.client, 'for i in range(10_000):\n    print(i)\n1/0', {
        max_output_chars: 200,
      });
      assert.equal(result.isError, true);
      const text = textOf(result);
      assert.ok(text.startsWith('0\n1\n2\n'), text.slice(0, 40));
      assert.match(text, /\n9999\n\n/);
      assert.match(text, /ZeroDivisionError\s+Traceback \(most recent call last\)/);
      assert.match(text, /----> 3 1\/0/);
      assert.match(text, /ZeroDivisionError: division by zero$/);
    });

    test('carriage-return progress lines collapse to their last state', async () => {
      const result = await runCell(
        box.client,
        "import sys\nfor i in range(101):\n    sys.stdout.write(f'\\rprogress {i}%')\nprint()\nprint('done')",
        { max_output_chars: 100 },
      );
      assert.equal(textOf(result), 'progress 100%\ndone');
    });

    test('max_output_chars above the server limit is lowered, with a note', async () => {
      const result = await runCell(box.client, "print('c' * 60_000)", {
        max_output_chars: 10_000_000,
      });
      const text = textOf(result);
      assert.match(
        text,
        /cut from the middle to fit max_output_chars=50,000; for more, read the resource ipybox:\/\/outputs\/\S+ \(all of it\)\]/,
      );
      assert.match(
        text,
        /\[max_output_chars=10000000 is above this server's limit; 50000 was used\]$/,
      );
      assert.ok(text.length < 50_500);
    });

    test('a DataFrame: plain text inline, its HTML as a linked resource', async () => {
      const result = await runCell(
        box.client,
        "import pandas as pd\npd.DataFrame({'a': [1, 2], 'b': [3, 4]})",
      );
      assert.equal(result.isError, undefined, textOf(result));
      const [link] = links(result);
      assert.ok(link, JSON.stringify(result.content));
      assert.equal(link.mimeType, 'text/html');
      assert.equal(
        textOf(result),
        `   a  b\n0  1  3\n1  2  4\n\nHTML output (its plain-text form is above): ${link.uri}`,
      );
      const read = await box.client.readResource({ uri: link.uri });
      assert.equal(read.contents[0]?.mimeType, 'text/html');
      assert.match((read.contents[0] as { text: string }).text, /<table[\s\S]*<td>4<\/td>/);
    });

    test('a 20×20-inch figure at dpi 200: a downscaled copy inline, the full one as a resource', async () => {
      const result = await runCell(
        box.client,
        'import matplotlib.pyplot as plt\nplt.figure(figsize=(20, 20), dpi=200)\nplt.plot([1, 2, 3], [1, 4, 9])\nplt.show()',
      );
      assert.equal(result.isError, undefined, textOf(result));
      const image = result.content.find((c) => c.type === 'image') as { data: string };
      const inline = await sharp(Buffer.from(image.data, 'base64')).metadata();
      assert.equal(Math.max(inline.width ?? 0, inline.height ?? 0), INLINE_MAX_SIDE);
      const text = textOf(result);
      const match =
        /- \[[\w-]+\]\((\/\S+\.png)\) \((\d+)×(\d+) px, shown at (\d+)×(\d+); full size: (ipybox:\/\/images\/\S+)\)$/.exec(
          text,
        );
      assert.ok(match, text);
      const [, path, width, height, , , uri] = match;
      assert.ok(Number(width) > 3000 && Number(height) > 3000, `${width}×${height}`);
      const read = await box.client.readResource({ uri: String(uri) });
      const full = Buffer.from((read.contents[0] as { blob: string }).blob, 'base64');
      assert.deepEqual(full, readFileSync(String(path)));
      const meta = await sharp(full).metadata();
      assert.deepEqual([meta.width, meta.height], [Number(width), Number(height)]);
    });

    test('an unknown output id is a clear not-found error; the server keeps serving', async () => {
      await assert.rejects(
        box.client.readResource({ uri: 'ipybox://outputs/not-a-real-id' }),
        /has no output ipybox:\/\/outputs\/not-a-real-id.*Run the cell again/,
      );
      assert.equal(textOf(await runCell(box.client, '6 * 7')), '42');
    });
  });
}

test('over HTTP a 2025 session cannot read the outputs of another session', async (t) => {
  const ws = await tempWorkspace();
  const server = await startHttpIpybox(ws.dir);
  t.after(async () => {
    await server.close();
    await ws.remove();
  });
  const alice = await server.connect();
  const bob = await server.connect();
  const result = await runCell(alice, "print('secret ' * 1000)", { max_output_chars: 20 });
  const [link] = links(result);
  assert.ok(link, textOf(result));
  assert.match((await alice.readResource({ uri: link.uri })).contents[0]?.uri ?? '', /^ipybox:/);
  await assert.rejects(bob.readResource({ uri: link.uri }), /has no output/);
});

test('as a plugin (mcp-factory -p ipybox), settings and resources work the same (2026 client)', async (t) => {
  const ws = await tempWorkspace();
  const config = join(ws.dir, 'factory.yaml');
  await writeFile(
    config,
    `plugins:\n  ipybox:\n    workspace: ${ws.dir}\n    max_output_chars: 50\n    max_output_chars_limit: 60\n`,
  );
  const client = new Client({ name: 'ipybox-output-test', version: '1.0.0' }, pinned('2026-07-28'));
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [FACTORY_BIN, '-c', config, '-p', 'ipybox', '--log-level', 'warning'],
      cwd: ws.dir,
      env: process.env as Record<string, string>,
      stderr: 'ignore',
    }),
  );
  t.after(async () => {
    await client.close();
    await ws.remove();
  });
  const result = await runCell(client, "print('q' * 500)");
  assert.match(
    textOf(result),
    /^q{20}\n\[Output truncated: 450 characters \(1 line\) cut from the middle to fit max_output_chars=50; for more, read the resource \S+ \(all of it\), or run it with a larger max_output_chars \(at most 60\)\]\nq{30}$/,
  );
  const [link] = links(result);
  assert.ok(link);
  const read = await client.readResource({ uri: link.uri });
  assert.equal((read.contents[0] as { text: string }).text, 'q'.repeat(500));
});
