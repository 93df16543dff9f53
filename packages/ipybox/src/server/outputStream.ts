/**
 * Streaming a running cell's output to the client as progress and log notifications.
 *
 * @module
 */
import type { ToolContext } from '@mcpbox/framework';
import type { ExecutionChunk } from '../kernel/output.ts';

/** The text a client sees for one streamed chunk (images are announced, not inlined). */
function chunkText(chunk: ExecutionChunk): string {
  if (chunk.kind === 'stream') return chunk.text;
  const plain = chunk.data['text/plain'];
  if (chunk.images.length > 0) return chunk.images.map((i) => `[image ${i.path}]\n`).join('');
  return typeof plain === 'string' ? `${plain}\n` : '';
}

/**
 * Streams a cell's output to the client while it runs, when the client asked for progress
 * (`_meta.progressToken`): each piece of new output is one progress notification (its
 * `message`) and one `info` log message (logger `ipybox`).
 */
export function outputStreamer(ctx: ToolContext): ((chunk: ExecutionChunk) => void) | undefined {
  if (ctx.mcpReq._meta?.progressToken === undefined) return undefined;
  let progress = 0;
  return (chunk) => {
    const text = chunkText(chunk);
    if (text === '') return;
    progress += 1;
    void ctx.reportProgress(progress, undefined, text).catch(() => undefined);
    void ctx.log('info', text, 'ipybox').catch(() => undefined);
  };
}
