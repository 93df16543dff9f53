/**
 * Turns the iopub messages of one `execute_request` into chunks (for streaming) and into the
 * accumulated output of the cell: stdout and stderr apart and, in `text`, everything a reader
 * would see in order (streams, and the `text/plain` of results and of displays without an image).
 *
 * @module
 */
import { BoundedText, type Omitted } from './boundedText.ts';
import { hasImage, type SavedImage, saveImages } from './images.ts';
import type { JupyterMessage, MimeBundle } from './messages.ts';

export type ExecutionChunk =
  | { kind: 'stream'; name: 'stdout' | 'stderr'; text: string }
  | { kind: 'display'; data: MimeBundle; images: SavedImage[] }
  | { kind: 'execute_result'; data: MimeBundle; images: SavedImage[] };

export interface ExecutionOutput {
  /** Streams and plain-text results in the order they arrived. */
  text: string;
  /**
   * Set when the cell printed so much that the middle of `text` was dropped (see
   * `boundedText.ts`); `stdout` and `stderr` then say so in their text.
   */
  omitted?: Omitted;
  stdout: string;
  stderr: string;
  /** The cell's value (`execute_result` data), if it had one. */
  result: MimeBundle | undefined;
  /** Every `display_data` bundle, in order. */
  displays: MimeBundle[];
  images: SavedImage[];
}

/** Removes ANSI escape sequences (CSI colour codes and OSC hyperlinks). */
export function stripAnsi(text: string): string {
  return text.replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_]/g, '');
}

export class OutputCollector {
  readonly #imagesDir: string;
  readonly #onChunk: ((chunk: ExecutionChunk) => void) | undefined;
  readonly #maxKeptChars: number | undefined;
  #output: ExecutionOutput = emptyOutput();
  #kept: Record<'text' | 'stdout' | 'stderr', BoundedText>;
  /** A `text/plain` block was added last: the next text starts on a new line. */
  #afterBlock = false;
  /** `clear_output(wait=True)`: clear when the next output arrives. */
  #clearPending = false;

  constructor(
    imagesDir: string,
    onChunk?: (chunk: ExecutionChunk) => void,
    { maxKeptChars }: { maxKeptChars?: number } = {},
  ) {
    this.#imagesDir = imagesDir;
    this.#onChunk = onChunk;
    this.#maxKeptChars = maxKeptChars;
    this.#kept = this.#newBuffers();
  }

  get output(): ExecutionOutput {
    return this.#output;
  }

  handle(message: JupyterMessage): void {
    const content = message.content;
    switch (message.header.msg_type) {
      case 'stream': {
        this.#clearIfPending();
        const name = content.name === 'stderr' ? 'stderr' : 'stdout';
        const text = String(content.text ?? '');
        this.#appendText(text, false);
        this.#kept[name].append(text);
        this.#output[name] = this.#kept[name].text;
        this.#onChunk?.({ kind: 'stream', name, text });
        break;
      }
      case 'execute_result':
      case 'display_data':
      case 'update_display_data': {
        this.#clearIfPending();
        const data = (content.data ?? {}) as MimeBundle;
        const images = saveImages(data, this.#imagesDir);
        this.#output.images.push(...images);
        if (typeof data['text/plain'] === 'string' && !hasImage(data)) {
          this.#appendText(data['text/plain'], true);
        }
        if (message.header.msg_type === 'execute_result') {
          this.#output.result = data;
          this.#onChunk?.({ kind: 'execute_result', data, images });
        } else {
          this.#output.displays.push(data);
          this.#onChunk?.({ kind: 'display', data, images });
        }
        break;
      }
      case 'clear_output':
        if (content.wait) this.#clearPending = true;
        else this.#clear();
        break;
    }
  }

  #appendText(text: string, block: boolean): void {
    const output = this.#output;
    const kept = this.#kept.text;
    if ((block || this.#afterBlock) && output.text !== '' && !output.text.endsWith('\n')) {
      kept.append('\n');
    }
    kept.append(text);
    output.text = kept.text;
    if (kept.omitted) output.omitted = kept.omitted;
    this.#afterBlock = block;
  }

  #newBuffers() {
    const max = this.#maxKeptChars;
    return {
      text: new BoundedText({ max }),
      stdout: new BoundedText({ max, marker: true }),
      stderr: new BoundedText({ max, marker: true }),
    };
  }

  #clearIfPending(): void {
    if (this.#clearPending) this.#clear();
  }

  #clear(): void {
    this.#clearPending = false;
    this.#afterBlock = false;
    this.#output = emptyOutput();
    this.#kept = this.#newBuffers();
  }
}

function emptyOutput(): ExecutionOutput {
  return { text: '', stdout: '', stderr: '', result: undefined, displays: [], images: [] };
}
