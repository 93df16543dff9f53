/**
 * Streaming a running cell's output to the client as progress notifications, within the call's
 * `max_output_chars`.
 *
 * Progress carries the output text as it arrives until `max_output_chars` characters were
 * streamed, then one note that the rest is in the result, and no more text: a 2 MB print with a
 * 100-character limit sends about 100 characters, not 2 MB. Past that, progress notifications
 * without a message go on at most once a second, so a client that resets its request timeout on
 * progress still sees the cell is alive.
 *
 * No log notifications (`notifications/message`) carry the output. They used to repeat each
 * chunk, so every output reached the client three times (progress, log, result) and a client
 * that hands log messages to its model paid for it twice; logging is for the server's own
 * diagnostics, and the progress stream plus the result already give the live view and the
 * outcome.
 *
 * @module
 */
import type { ToolContext } from '@mcpbox/framework';
import type { ExecutionChunk } from '../kernel/output.ts';

/** Least time between two text-less progress notifications once the budget is spent. */
const KEEPALIVE_MS = 1000;

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
 * `message`), up to `maxChars` characters in all.
 */
export function outputStreamer(
  ctx: ToolContext,
  maxChars: number,
): ((chunk: ExecutionChunk) => void) | undefined {
  if (ctx.mcpReq._meta?.progressToken === undefined) return undefined;
  let progress = 0;
  let streamed = 0;
  let lastKeepalive = 0;
  const send = (message?: string) =>
    void ctx.reportProgress(progress, undefined, message).catch(() => undefined);
  return (chunk) => {
    const text = chunkText(chunk);
    if (text === '') return;
    progress += 1;
    if (streamed < maxChars) {
      const room = maxChars - streamed;
      if (text.length <= room) {
        streamed += text.length;
        send(text);
        return;
      }
      streamed = maxChars;
      lastKeepalive = Date.now();
      send(
        `${text.slice(0, room)}\n[streamed output stops here: it passed max_output_chars=${maxChars}; the result shows its head and tail]\n`,
      );
      return;
    }
    const now = Date.now();
    if (now - lastKeepalive < KEEPALIVE_MS) return;
    lastKeepalive = now;
    send();
  };
}
