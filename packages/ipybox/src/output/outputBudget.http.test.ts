/**
 * Output resources are budgeted per caller, on the real `ipybox --http` with two MCP sessions:
 * one caller filling the store with its own outputs pushes out its own oldest, never the other
 * caller's, and the error for an evicted one says the store keeps each caller's latest outputs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { runCell, startHttpIpybox, tempWorkspace } from '../server/testing.ts';

/** The `ipybox://outputs/...` URIs a cell's result names. */
function outputUris(result: unknown): string[] {
  return ((result as { content?: { type: string; uri?: string }[] }).content ?? [])
    .filter((item) => item.type === 'resource_link' && item.uri?.startsWith('ipybox://outputs/'))
    .map((item) => item.uri as string);
}

/** Five HTML outputs and one truncated text: six entries of the store per cell. */
const SIX_OUTPUTS =
  "from IPython.display import HTML, display\nfor i in range(5): display(HTML(f'<b>{i}</b>'))\nprint('B' * 500)";

async function readText(client: Client, uri: string): Promise<string> {
  const read = await client.readResource({ uri });
  return (read.contents[0] as { text: string }).text;
}

test("two callers: one filling the output store loses its own oldest outputs, never the other's", async (t) => {
  const ws = await tempWorkspace();
  t.after(() => ws.remove());
  const box = await startHttpIpybox(ws.dir);
  t.after(() => box.close());
  const alice = await box.connect();
  const bob = await box.connect();

  const mine = outputUris(await runCell(alice, "print('A' * 20000)", { max_output_chars: 100 }));
  assert.equal(mine.length, 1);

  const bobs: string[] = [];
  // 35 cells of six: 210 entries, more than the 200 one caller keeps.
  for (let i = 0; i < 35; i++) {
    bobs.push(...outputUris(await runCell(bob, SIX_OUTPUTS, { max_output_chars: 100 })));
  }
  assert.equal(bobs.length, 210);

  assert.equal((await readText(alice, mine[0] as string)).trim(), 'A'.repeat(20000));
  assert.match(await readText(bob, bobs.at(-1) as string), /^(<b>\d<\/b>|B+\n?)$/);
  await assert.rejects(readText(bob, bobs[0] as string), (error: Error) => {
    assert.match(error.message, /keeps only the latest 200 outputs of each caller's cells/);
    return true;
  });
});
