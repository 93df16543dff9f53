/** What the viewer tests share: a client that renders MCP Apps, and a cell to view. */
import assert from 'node:assert/strict';
import type { ClientOptions } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ViewerOutput } from '../cellViewer.ts';

export const UI_CAPABILITIES = {
  extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
} as unknown as NonNullable<ClientOptions['capabilities']>;

/** 100k rows; `b` is a permutation of 0..99999 (7919 is prime to 10^5), so sorted pages are known. */
export const FRAME_AND_IMAGE_CELL = [
  'import pandas as pd',
  'import matplotlib.pyplot as plt',
  "df = pd.DataFrame({'a': range(100_000), 'b': [(i * 7919) % 100_000 for i in range(100_000)], 'label': [f'row {i}' for i in range(100_000)]})",
  'plt.figure(figsize=(4, 3))',
  "plt.plot(df['a'][:200], df['b'][:200], '.')",
  'plt.show()',
  'df',
].join('\n');

export function viewerOutputs(result: CallToolResult): ViewerOutput[] {
  const meta = result._meta?.['ipybox/viewer'] as { outputs: ViewerOutput[] } | undefined;
  assert.ok(meta, `no viewer data in ${JSON.stringify(result).slice(0, 500)}`);
  return meta.outputs;
}
