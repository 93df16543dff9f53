/**
 * The viewer's frames belong to the caller that ran the cell: over HTTP, two 2025 sessions of
 * the real `ipybox --http` (each its own caller and kernel), both rendering MCP Apps.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/server';
import {
  type HttpIpybox,
  runCell,
  startHttpIpybox,
  tempWorkspace,
  textOf,
} from '../server/testing.ts';
import { UI_CAPABILITIES, viewerOutputs } from './__fixtures__/viewerCells.ts';

describe('viewer frames over HTTP belong to their caller', () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  let box: HttpIpybox;

  before(async () => {
    ws = await tempWorkspace();
    box = await startHttpIpybox(ws.dir);
  });
  after(async () => {
    await box?.close();
    await ws?.remove();
  });

  test("another session's frame id reads as unknown; the owner pages it", async () => {
    const a = await box.connect({ capabilities: UI_CAPABILITIES });
    const b = await box.connect({ capabilities: UI_CAPABILITIES });
    const result = await runCell(a, "import pandas as pd\npd.DataFrame({'secret': ['a1', 'a2']})");
    assert.equal(result.isError, undefined, textOf(result));
    const [frame] = viewerOutputs(result);
    assert.ok(frame?.kind === 'frame');

    const stolen = (await b.callTool(
      {
        name: 'view_frame_page',
        arguments: { frame: frame.id },
      },
      { timeout: 300_000 },
    )) as CallToolResult;
    assert.equal(stolen.isError, true);
    assert.equal(
      textOf(stolen),
      `ipybox has no DataFrame ${frame.id} for this caller: ids come from the viewer data of your own cell results, and only the latest 200 are kept (all are gone after a restart). Run the cell again.`,
    );
    // Nothing of the frame: no page, and the text is only the message above. (Not a regex on
    // the JSON: the random id in the message may itself contain "a1".)
    assert.equal(stolen.structuredContent, undefined);
    assert.equal(stolen.content.length, 1);

    const own = (await a.callTool(
      {
        name: 'view_frame_page',
        arguments: { frame: frame.id },
      },
      { timeout: 300_000 },
    )) as CallToolResult;
    assert.equal(own.isError, undefined, textOf(own));
    assert.deepEqual((own.structuredContent as { data: unknown[][] }).data, [['a1'], ['a2']]);
  });
});
