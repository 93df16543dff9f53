/**
 * ipybox outputs as an MCP App, end to end: the real `ipybox` bin over stdio, real SDK v2
 * clients of both eras declaring `io.modelcontextprotocol/ui` (2025 at `initialize`, 2026 per
 * request), real IPython kernels with pandas and matplotlib. And a client without the extension
 * gets today's result, tool list and kernel.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { runCell, stdioIpyboxPerSuite, textOf } from '../server/testing.ts';
import {
  FRAME_AND_IMAGE_CELL,
  UI_CAPABILITIES,
  viewerOutputs,
} from './__fixtures__/viewerCells.ts';

interface Page {
  rows: number;
  offset: number;
  columns: string[];
  index: number[];
  data: [number, number, string][];
}

async function page(client: Client, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool(
    { name: 'view_frame_page', arguments: args },
    { timeout: 300_000 },
  )) as CallToolResult;
}

for (const era of ['2025-11-25', '2026-07-28'] as const) {
  describe(`the viewer for a ${era} client that renders MCP Apps`, () => {
    const box = stdioIpyboxPerSuite({
      clientOptions: {
        capabilities: UI_CAPABILITIES,
        ...(era === '2026-07-28' && { versionNegotiation: { mode: { pin: era } } }),
      },
    });
    before(() => assert.equal(box.client.getNegotiatedProtocolVersion(), era));

    test('execute_ipython_cell links ui://ipybox/viewer; the app-only tool is listed', async () => {
      const { tools } = await box.client.listTools();
      const execute = tools.find((tool) => tool.name === 'execute_ipython_cell');
      assert.deepEqual(execute?._meta?.ui, { resourceUri: 'ui://ipybox/viewer' });
      const pager = tools.find((tool) => tool.name === 'view_frame_page');
      assert.deepEqual(pager?._meta?.ui, {
        resourceUri: 'ui://ipybox/viewer',
        visibility: ['app'],
      });
    });

    test('the viewer resource is one offline HTML document with the App class inlined', async () => {
      const { contents } = await box.client.readResource({ uri: 'ui://ipybox/viewer' });
      const [viewer] = contents as unknown as [{ mimeType: string; text: string; _meta?: unknown }];
      assert.equal(viewer.mimeType, 'text/html;profile=mcp-app');
      assert.match(viewer.text, /^<!doctype html>/);
      assert.match(viewer.text, /const extApps = \{[^}]*"App": /);
      assert.match(viewer.text, /new extApps\.App\(/);
      assert.doesNotMatch(viewer.text, /EXT_APPS_BUNDLE/);
      // Nothing is fetched from elsewhere: no external script, stylesheet or image.
      assert.doesNotMatch(viewer.text, /<(script|link|img)[^>]+(src|href)=["']?(https?:)?\/\//i);
      assert.deepEqual((viewer._meta as { ui: unknown }).ui, {
        csp: { connectDomains: [], resourceDomains: [] },
        prefersBorder: true,
      });
    });

    test('a 100k-row DataFrame and an image: the viewer data names the frame; pages come sorted from the kernel', async () => {
      const result = await runCell(box.client, FRAME_AND_IMAGE_CELL);
      assert.equal(result.isError, undefined, textOf(result));
      // What the model reads is today's: the frame's short text form and the image.
      assert.match(textOf(result), /\[100000 rows x 3 columns\]/);
      assert.ok(result.content.some((item) => item.type === 'image'));
      const [frame, ...rest] = viewerOutputs(result);
      assert.equal(rest.length, 0);
      assert.equal(frame?.kind, 'frame');
      assert.ok(frame?.kind === 'frame');
      assert.equal(frame.rows, 100_000);
      assert.deepEqual(frame.columns, ['a', 'b', 'label']);
      assert.match(frame.id, /^[A-Za-z0-9_-]{22}$/);

      // Page 4 (offset 150) of 50 rows, in the frame's own order.
      const plain = await page(box.client, { frame: frame.id, offset: 150, limit: 50 });
      assert.equal(plain.isError, undefined, textOf(plain));
      const rows = plain.structuredContent as unknown as Page;
      assert.equal(rows.rows, 100_000);
      assert.deepEqual(
        rows.index,
        Array.from({ length: 50 }, (_, i) => 150 + i),
      );
      assert.deepEqual(rows.data[0], [150, (150 * 7919) % 100_000, 'row 150']);

      // Sorted by b descending, page 3: b is a permutation, so its values are known.
      const sorted = await page(box.client, {
        frame: frame.id,
        offset: 100,
        limit: 50,
        sort_column: 1,
        descending: true,
      });
      assert.equal(sorted.isError, undefined, textOf(sorted));
      assert.equal(textOf(sorted), 'rows 101–150 of 100000 sorted by b (descending)');
      const byB = sorted.structuredContent as unknown as Page;
      assert.deepEqual(
        byB.data.map((row) => row[1]),
        Array.from({ length: 50 }, (_, i) => 99_899 - i),
      );
      for (const [a, b, label] of byB.data) {
        assert.equal((a * 7919) % 100_000, b);
        assert.equal(label, `row ${a}`);
      }
      // The last page is short; an offset past the end is the end.
      const tail = (await page(box.client, { frame: frame.id, offset: 99_990, limit: 50 }))
        .structuredContent as unknown as Page;
      assert.equal(tail.data.length, 10);
    });

    test('bad frame ids and columns get clear errors, and the kernel goes on', async () => {
      const unknown = await page(box.client, { frame: 'AAAAAAAAAAAAAAAAAAAAAA' });
      assert.equal(unknown.isError, true);
      assert.match(
        textOf(unknown),
        /ipybox has no DataFrame AAAAAAAAAAAAAAAAAAAAAA for this caller/,
      );
      const result = await runCell(box.client, "pd.DataFrame({'x': [3, 1, 2]})");
      const [frame] = viewerOutputs(result);
      assert.ok(frame?.kind === 'frame');
      // Values that do not compare (numbers, text, None in one column) sort by their text,
      // missing values last.
      const mixed = viewerOutputs(
        await runCell(box.client, "pd.DataFrame({'m': [10, 'b', None, 2, 'a']})"),
      )[0];
      assert.ok(mixed?.kind === 'frame');
      const byText = await page(box.client, { frame: mixed.id, sort_column: 0 });
      assert.equal(byText.isError, undefined, textOf(byText));
      assert.deepEqual((byText.structuredContent as unknown as Page).index, [0, 3, 4, 1, 2]);
      const column = await page(box.client, { frame: frame.id, sort_column: 5 });
      assert.equal(column.isError, true);
      assert.match(textOf(column), /sort_column 5 is out of range: the frame has 1 columns/);
      // User code that swallowed stdout: the page cannot be read, and the error says why.
      await runCell(
        box.client,
        'import io, sys\n_kept_stdout = sys.stdout\nsys.stdout = io.StringIO()',
      );
      const swallowed = await page(box.client, { frame: frame.id });
      assert.equal(swallowed.isError, true);
      assert.match(
        textOf(swallowed),
        /the kernel's answer could not be read \(its stdout may be redirected\)/,
      );
      await runCell(box.client, 'sys.stdout = _kept_stdout');
      // Reset drops the kernel's frames: the id is known, the frame is gone, and it says so.
      await box.client.callTool({ name: 'reset', arguments: {} }, { timeout: 300_000 });
      const gone = await page(box.client, { frame: frame.id });
      assert.equal(gone.isError, true);
      assert.match(textOf(gone), /the kernel no longer holds this DataFrame .*run the cell again/);
      assert.equal(textOf(await runCell(box.client, '6 * 7')), '42');
    });

    test('a cell that fails after displaying a DataFrame still shows it in the viewer', async () => {
      const failed = await runCell(
        box.client,
        "import pandas as pd\nfrom IPython.display import display\ndisplay(pd.DataFrame({'partial': [1, 2]}))\n1 / 0",
      );
      assert.equal(failed.isError, true);
      assert.match(textOf(failed), /ZeroDivisionError/);
      const [frame] = viewerOutputs(failed);
      assert.ok(frame?.kind === 'frame');
      assert.deepEqual(frame.columns, ['partial']);
      const rows = await page(box.client, { frame: frame.id });
      assert.deepEqual((rows.structuredContent as unknown as Page).data, [[1], [2]]);
    });

    test('a cell displaying a frame per step gives the viewer its last 16', async () => {
      const many = await runCell(
        box.client,
        "import pandas as pd\nfrom IPython.display import display\nfor i in range(20):\n    display(pd.DataFrame({'step': [i]}))",
      );
      const frames = viewerOutputs(many).filter((output) => output.kind === 'frame');
      assert.equal(frames.length, 16);
      const last = frames.at(-1);
      assert.ok(last?.kind === 'frame');
      const rows = await page(box.client, { frame: last.id });
      assert.deepEqual((rows.structuredContent as unknown as Page).data, [[19]]);
    });

    test('a forged frame description from user code is not trusted', async () => {
      const forged = await runCell(
        box.client,
        "from IPython.display import display\ndisplay({'application/vnd.ipybox.frame+json': {'key': \"f1'); import os; os._exit(1) #\", 'rows': 1, 'columns': ['a']}, 'text/plain': 'x'}, raw=True)",
      );
      assert.equal(forged.isError, undefined, textOf(forged));
      assert.deepEqual(viewerOutputs(forged), []);
    });
  });
}

describe('a client without the MCP Apps extension', () => {
  const box = stdioIpyboxPerSuite();

  test("gets today's tool list, result and kernel", async () => {
    const { tools } = await box.client.listTools();
    assert.ok(!tools.some((tool) => tool.name === 'view_frame_page'));
    const result = await runCell(
      box.client,
      "import pandas as pd\npd.DataFrame({'a': [1, 2], 'b': [3, 4]})",
    );
    assert.equal(result.isError, undefined, textOf(result));
    assert.equal(result._meta?.['ipybox/viewer'], undefined);
    assert.match(textOf(result), /^ {3}a {2}b\n0 {2}1 {2}3\n1 {2}2 {2}4\n\nHTML output/);
    // No viewer module was installed in its kernel: nothing ran besides its own cells.
    assert.equal(
      textOf(await runCell(box.client, "import sys\n'_ipybox_viewer' in sys.modules")),
      'False',
    );
    const refused = await page(box.client, { frame: 'AAAAAAAAAAAAAAAAAAAAAA' });
    assert.equal(refused.isError, true);
    assert.match(
      textOf(refused),
      /only a client that declares the io\.modelcontextprotocol\/ui extension can call it/,
    );
  });
});
