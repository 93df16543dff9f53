/**
 * Turns a cell's outcome into the `execute_ipython_cell` tool result.
 *
 * - Text: the cell's output (streams and plain-text results, in order), trimmed like the Python
 *   ipybox, truncated to `max_output_chars` with the marker
 *   `[Output truncated: exceeded N character limit]`.
 * - Images: one MCP `image` item each (the bytes, base64) and their workspace paths listed under
 *   "Generated images:" — clients that do not render images still learn where the files are.
 *   The image list is appended after truncation so a long output never hides the paths (the
 *   Python ipybox truncates after appending, and can cut them off).
 * - Failures: an `isError` result whose text is the output so far followed by the traceback or
 *   the reason (timeout, kernel died).
 *
 * @module
 */
import { basename, extname } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { CodeExecutionError, KernelError } from '../kernel/errors.ts';
import type { ExecutionResult } from '../kernel/execution.ts';
import type { SavedImage } from '../kernel/images.ts';

/** `text` cut to `max` characters plus the marker, or unchanged when it fits. */
export function truncateOutput(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n\n[Output truncated: exceeded ${max} character limit]`;
}

function imageList(images: readonly SavedImage[]): string {
  if (images.length === 0) return '';
  const lines = images.map(
    (image) => `- [${basename(image.path, extname(image.path))}](${image.path})`,
  );
  return `\n\nGenerated images:\n\n${lines.join('\n')}`;
}

function imageItems(images: readonly SavedImage[]): CallToolResult['content'] {
  return images.map((image) => ({
    type: 'image' as const,
    data: image.data.toString('base64'),
    mimeType: image.mimeType,
  }));
}

export function cellResult(result: ExecutionResult, maxOutputChars: number): CallToolResult {
  const text = truncateOutput(result.text.trim(), maxOutputChars) + imageList(result.images);
  return { content: [{ type: 'text', text }, ...imageItems(result.images)] };
}

/** The `isError` result for a failed cell; output produced before the failure comes first. */
export function cellError(error: unknown, maxOutputChars: number): CallToolResult {
  let before = '';
  let images: readonly SavedImage[] = [];
  let reason: string;
  if (error instanceof CodeExecutionError) {
    before = error.output.text;
    images = error.output.images;
    reason = error.traceback || `${error.ename}: ${error.evalue}`;
  } else if (error instanceof KernelError) {
    before = error.output?.text ?? '';
    images = error.output?.images ?? [];
    reason = kernelErrorText(error);
  } else {
    reason = error instanceof Error ? error.message : String(error);
  }
  const output = before.trim();
  const text =
    truncateOutput(output === '' ? reason : `${output}\n\n${reason}`, maxOutputChars) +
    imageList(images);
  return { isError: true, content: [{ type: 'text', text }, ...imageItems(images)] };
}

function kernelErrorText(error: KernelError): string {
  switch (error.code) {
    case 'KERNEL_DIED':
      return `${error.message}\nThe kernel's state is lost; the next call starts a fresh kernel (workspace files, packages and mcptools/ are kept).`;
    default:
      return error.message;
  }
}
