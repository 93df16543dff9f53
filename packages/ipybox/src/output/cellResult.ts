/**
 * Turns a cell's outcome into the `execute_ipython_cell` tool result, sized for a model's
 * context window.
 *
 * - Text: the cell's output (streams and plain-text results, in order), trimmed like the Python
 *   ipybox (but keeping the first line's indentation), carriage-return progress lines collapsed to their last state (as a terminal shows
 *   them). Past `max_output_chars` the middle is cut: the head and the tail stay, and a marker
 *   says how many characters and lines were cut and how to get them (the full output as an
 *   `ipybox://outputs/<id>` resource, or a larger `max_output_chars`).
 * - Failures: an `isError` result with the output so far and then the traceback or the reason
 *   (timeout, kernel died). The traceback is never cut by `max_output_chars`: it is what the
 *   caller needs to fix the cell (only an absurdly long one keeps its start and its end).
 * - Images: one MCP `image` item each, downscaled to a sensible size (`inlineImages.ts`); the
 *   full image stays under images/ and as an `ipybox://images/<id>` resource, and the text lists
 *   both, after the (truncated) output so a long output never hides them.
 * - Rich `text/html` results (a pandas DataFrame): kept as an `ipybox://outputs/<id>` resource
 *   and linked (`resource_link`) next to their plain-text form, which is in the text.
 *
 * @module
 */
import { basename, extname } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { CodeExecutionError, KernelError } from '../kernel/errors.ts';
import type { ExecutionResult } from '../kernel/execution.ts';
import type { SavedImage } from '../kernel/images.ts';
import type { MimeBundle } from '../kernel/messages.ts';
import type { ExecutionOutput } from '../kernel/output.ts';
import { type InlineImage, inlineImage } from './inlineImages.ts';
import type { OutputResources, ResourceOwner, StoredText } from './outputResources.ts';
import { collapseCarriageReturns, count, cutMiddle } from './outputText.ts';

/** Most images of one cell shown inline (the last ones), and their most bytes together. */
export const MAX_INLINE_IMAGES = 8;
export const INLINE_TOTAL_BYTES = 3 * 1024 * 1024;

/** Most `text/html` outputs of one cell kept as resources (the last ones). */
export const MAX_HTML_OUTPUTS = 5;

/** A traceback longer than this keeps its start and (mostly) its end. */
export const TRACEBACK_MAX_CHARS = 20_000;

export interface CellResultOptions {
  /** Characters of output shown (the traceback comes on top). */
  maxOutputChars: number;
  /** The server's upper bound for `max_output_chars`, named in the truncation marker. */
  maxOutputCharsLimit?: number;
  /** What the caller asked for, when the server lowered it to `maxOutputCharsLimit`. */
  requestedChars?: number;
  /** Where full outputs, HTML and full-size images are kept; without it, nothing is. */
  resources?: { store: OutputResources; owner: ResourceOwner };
}

type Content = CallToolResult['content'];
type ResourceLink = Extract<Content[number], { type: 'resource_link' }>;

export async function cellResult(
  result: ExecutionResult,
  options: CellResultOptions,
): Promise<CallToolResult> {
  return render(result, undefined, options);
}

/** The `isError` result for a failed cell; output produced before the failure comes first. */
export async function cellError(
  error: unknown,
  options: CellResultOptions,
): Promise<CallToolResult> {
  let output: ExecutionOutput | undefined;
  let reason: string;
  if (error instanceof CodeExecutionError) {
    output = error.output;
    reason = error.traceback || `${error.ename}: ${error.evalue}`;
  } else if (error instanceof KernelError) {
    output = error.output;
    reason = kernelErrorText(error);
  } else {
    reason = error instanceof Error ? error.message : String(error);
  }
  return { isError: true, ...(await render(output, reason, options)) };
}

async function render(
  output: ExecutionOutput | undefined,
  reason: string | undefined,
  options: CellResultOptions,
): Promise<CallToolResult> {
  const links: ResourceLink[] = [];
  const gap = gapNote(output);
  const raw = output?.text ?? '';
  const kept = gap && output?.omitted ? withNote(raw, output.omitted.at, gap.note) : raw;
  let text = outputText(trimOutput(collapseCarriageReturns(kept)), reason, options, links, gap);
  if (options.requestedChars !== undefined) {
    text += `\n\n[max_output_chars=${options.requestedChars} is above this server's limit; ${options.maxOutputChars} was used]`;
  }
  // Most cells show no image: no await (a turn) for an empty list.
  const images = output?.images.length ? await imageContent(output.images, options) : NO_IMAGES;
  text += images.list;
  text += htmlLinks(output, options, links);
  return { content: [{ type: 'text', text }, ...images.items, ...links] };
}

/** What the kernel layer dropped from a huge output, and the note that marks the place. */
interface Gap {
  note: string;
  chars: number;
  lines: number;
}

function gapNote(output: ExecutionOutput | undefined): Gap | undefined {
  const omitted = output?.omitted;
  if (!omitted) return undefined;
  const { chars, lines } = omitted;
  const note = `\n[ipybox did not keep ${count(chars)} characters (${count(lines)} lines) here: the cell printed more than the server keeps]\n`;
  return { note, chars, lines };
}

function withNote(text: string, at: number, note: string): string {
  return text.slice(0, at) + note + text.slice(at);
}

/**
 * Without blank lines at the start and whitespace at the end, like the Python ipybox's
 * `strip()`, except that the first line keeps its indentation: a DataFrame's header row is
 * aligned with spaces.
 */
function trimOutput(text: string): string {
  return text.replace(/^(?:[ \t]*\n)+/, '').trimEnd();
}

/** The output (cut in the middle past the limit), then the failure's reason, whole. */
function outputText(
  output: string,
  reason: string | undefined,
  options: CellResultOptions,
  links: ResourceLink[],
  gap?: Gap,
): string {
  const full = reason === undefined ? output : output === '' ? reason : `${output}\n\n${reason}`;
  const cut = cutMiddle(output, options.maxOutputChars);
  let shown = output;
  if (cut) {
    let stored: StoredText | undefined;
    if (options.resources) {
      const { store, owner } = options.resources;
      stored = store.addText(owner, 'text/plain', full, gap ? gap.chars - gap.note.length : 0);
      const description = stored.whole
        ? 'The full output of this cell'
        : 'The output of this cell: its start and end (too long to keep whole)';
      links.push(link(stored.uri, 'output.txt', 'text/plain', stored.size, description));
    }
    // What the kernel layer dropped counts as cut too (its note, in the middle, is in the cut).
    const counted = gap
      ? { chars: cut.chars - gap.note.length + gap.chars, lines: cut.lines - 2 + gap.lines }
      : cut;
    shown = `${cut.head}${cut.head.endsWith('\n') ? '' : '\n'}${truncationMarker(counted, options, stored)}\n${cut.tail}`;
  }
  if (reason === undefined) return shown;
  return shown === '' ? shortTraceback(reason) : `${shown}\n\n${shortTraceback(reason)}`;
}

function truncationMarker(
  cut: { chars: number; lines: number },
  { maxOutputChars, maxOutputCharsLimit }: CellResultOptions,
  stored: StoredText | undefined,
): string {
  const ways: string[] = [];
  if (stored) {
    ways.push(
      `read the resource ${stored.uri} (${stored.whole ? 'all of it' : 'its start and end'})`,
    );
  }
  if (maxOutputCharsLimit === undefined || maxOutputChars < maxOutputCharsLimit) {
    const bound =
      maxOutputCharsLimit === undefined ? '' : ` (at most ${count(maxOutputCharsLimit)})`;
    ways.push(`run it with a larger max_output_chars${bound}`);
  }
  const how = ways.length > 0 ? `; for more, ${ways.join(', or ')}` : '';
  return `[Output truncated: ${count(cut.chars)} characters (${count(cut.lines)} line${cut.lines === 1 ? '' : 's'}) cut from the middle to fit max_output_chars=${count(maxOutputChars)}${how}]`;
}

/** The traceback, or its start and end when absurdly long (a huge message, deep recursion). */
function shortTraceback(reason: string): string {
  const cut = cutMiddle(reason, TRACEBACK_MAX_CHARS, 0.2);
  if (!cut) return reason;
  return `${cut.head}[… ${count(cut.chars)} characters of the traceback cut …]\n${cut.tail}`;
}

function link(
  uri: string,
  name: string,
  mimeType: string,
  size: number,
  description: string,
): ResourceLink {
  return { type: 'resource_link', uri, name, mimeType, description, size };
}

const NO_IMAGES: { items: Content; list: string } = { items: [], list: '' };

/** Image items (downscaled) and the "Generated images:" list with paths and resource URIs. */
async function imageContent(
  images: readonly SavedImage[],
  { resources }: CellResultOptions,
): Promise<{ items: Content; list: string }> {
  if (images.length === 0) return { items: [], list: '' };
  // A loop that plots a figure per step must not fill the context with them: only the last
  // MAX_INLINE_IMAGES go inline (the last are usually the results), within INLINE_TOTAL_BYTES.
  const firstInline = Math.max(0, images.length - MAX_INLINE_IMAGES);
  const inline = await Promise.all(
    images.map((image, i) => (i >= firstInline ? inlineImage(image) : undefined)),
  );
  let budget = INLINE_TOTAL_BYTES;
  for (let i = images.length - 1; i >= firstInline; i -= 1) {
    const size = inline[i]?.data.length ?? 0;
    if (size > budget) inline[i] = undefined;
    else budget -= size;
  }
  const items: Content = [];
  const lines = images.map((image, i) => {
    const copy = inline[i];
    if (copy)
      items.push({ type: 'image', data: copy.data.toString('base64'), mimeType: copy.mimeType });
    const uri = resources?.store.addImage(resources.owner, image);
    const shown =
      i < firstInline ? `not inline: a cell shows its last ${MAX_INLINE_IMAGES}` : inlineNote(copy);
    const notes = [shown, uri && `full size: ${uri}`].filter(Boolean);
    const name = basename(image.path, extname(image.path));
    return `- [${name}](${image.path})${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
  });
  return { items, list: `\n\nGenerated images:\n\n${lines.join('\n')}` };
}

function inlineNote(copy: InlineImage | undefined): string | undefined {
  if (!copy) return 'not inline: too large';
  if (!copy.scaled) return undefined;
  const { from, to } = copy.scaled;
  return `${from.width}×${from.height} px, shown at ${to.width}×${to.height}`;
}

/**
 * Keeps the cell's last `text/html` bundles as resources; one line naming them for the text.
 * Only the last {@link MAX_HTML_OUTPUTS}: a loop that displays a table per step must not push a
 * link per step into the result, nor every other caller's entries out of the store.
 */
function htmlLinks(
  output: ExecutionOutput | undefined,
  { resources }: CellResultOptions,
  links: ResourceLink[],
): string {
  if (!output || !resources) return '';
  const html = [...output.displays, ...(output.result ? [output.result] : [])]
    .map((bundle: MimeBundle) => bundle['text/html'])
    .filter((value): value is string => typeof value === 'string' && value.trim() !== '');
  if (html.length === 0) return '';
  const kept = html.slice(-MAX_HTML_OUTPUTS);
  const uris = kept.map((text) => {
    const { uri, size } = resources.store.addText(resources.owner, 'text/html', text);
    const description = 'The text/html form of a rich output (e.g. a DataFrame table)';
    links.push(link(uri, 'output.html', 'text/html', size, description));
    return uri;
  });
  const dropped = html.length - kept.length;
  const note = dropped > 0 ? ` (the ${dropped} before them are not kept)` : '';
  return `\n\nHTML output (its plain-text form is above): ${uris.join(', ')}${note}`;
}

function kernelErrorText(error: KernelError): string {
  switch (error.code) {
    case 'KERNEL_DIED':
      // The message already says the state is lost and what the next call does; add what stays.
      return `${error.message} Workspace files, packages and mcptools/ are kept.`;
    default:
      return error.message;
  }
}
