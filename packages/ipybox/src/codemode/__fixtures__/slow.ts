/**
 * A plugin with one tool that waits until its request is aborted, then writes `marker` (renamed
 * into place, so a reader never sees half): what a test of cancellation waits for. It gives up
 * after ten minutes (the test fails long before).
 *
 * @module
 */
import { rename, writeFile } from 'node:fs/promises';
import type { PluginServer } from '@mcpbox/framework';
import { z } from 'zod';

export function register(server: PluginServer): void {
  server.registerTool(
    'wait_for_abort',
    {
      description: 'Waits until the call is cancelled, then writes the marker file.',
      inputSchema: { marker: z.string().describe('File written when the call is cancelled') },
    },
    async ({ marker }, ctx) => {
      const { signal } = ctx.mcpReq;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 600_000);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (signal.aborted) {
        await writeFile(`${marker}.tmp`, `aborted: ${String(signal.reason)}`);
        await rename(`${marker}.tmp`, marker);
      }
      return 'not aborted';
    },
  );
}
