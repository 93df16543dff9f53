/**
 * Cell outputs a client fetches on demand instead of receiving inline: the full text of a
 * truncated cell and the `text/html` form of rich results (a pandas DataFrame) as
 * `ipybox://outputs/<id>`, and full-size images as `ipybox://images/<id>` (read from the file
 * under `images/` in the workspace).
 *
 * Another plugin in the same server (code mode's `execute_code`) keeps its own store under its
 * own scheme ({@link OutputScheme}, e.g. `codemode://outputs/<id>`): templates may be registered
 * once per server.
 *
 * Ids are 128 random bits, so a URI cannot be guessed, and each entry remembers the caller that
 * produced it (the OAuth principal, else the 2025 session or the connection): another caller
 * reading it is told it does not exist. Each caller has a budget of its own (entries and
 * characters): its oldest entries go first, and another caller's outputs never push out yours.
 * The whole store is bounded too (many callers at once); over that bound the oldest entry of the
 * caller holding the most goes, so a caller within its share keeps its outputs. A read of an
 * evicted entry says so.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import {
  callerKeyOf,
  type PluginServer,
  type RequestExtra,
  ResourceTemplate,
} from '@mcpbox/framework';
import {
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  ResourceNotFoundError,
} from '@modelcontextprotocol/server';
import type { SavedImage } from '../kernel/images.ts';

/** Where a store's resources live and what they are called (one per plugin of a server). */
export interface OutputScheme {
  /** URI scheme: `<scheme>://outputs/<id>`, `<scheme>://images/<id>`. */
  scheme: string;
  /** Resource template names: `<prefix>_output`, `<prefix>_image`. */
  prefix: string;
  /** The tool whose outputs these are, named in the templates' descriptions. */
  tool: string;
}

/** `execute_ipython_cell`'s: `ipybox://`, `cell_output`/`cell_image`. */
export const IPYBOX_OUTPUTS: OutputScheme = {
  scheme: 'ipybox',
  prefix: 'cell',
  tool: 'execute_ipython_cell',
};

/** Who produced an entry: the caller (see {@link callerOf}) and the kernel session it ran in. */
export interface ResourceOwner {
  caller: string;
  kernel: string;
}

type Entry = ResourceOwner &
  ({ kind: 'text'; mimeType: string; text: string } | { kind: 'file'; image: SavedImage });

export interface OutputResourceLimits {
  /** URIs and names (default {@link IPYBOX_OUTPUTS}). */
  scheme?: OutputScheme;
  /** Most entries kept of one caller (default 200). */
  maxEntries?: number;
  /** Most characters of text kept of one caller (default 8 M). */
  maxChars?: number;
  /** Most entries kept of all callers together (default 2000). */
  maxTotalEntries?: number;
  /** Most characters of text kept of all callers together (default 32 M). */
  maxTotalChars?: number;
  /**
   * Most characters of one entry (default 2 M): the start and the end of a longer text are kept.
   * A `resources/read` answer is one JSON-RPC message, and the SDK's stdio transport closes the
   * connection on a message over 10 MB; 2 M characters stay under it even with many escapes.
   */
  maxEntryChars?: number;
}

/** The largest image file sent by `resources/read` (base64 makes it 4/3 larger; see above). */
export const MAX_IMAGE_READ_BYTES = 6 * 1024 * 1024;

/**
 * The key a resource is bound to: the framework's caller key (the OAuth principal, else the 2025
 * session, else the connection), or one shared key for a caller with none.
 */
export function callerOf(ctx: RequestExtra): string {
  return callerKeyOf(ctx) ?? 'anonymous';
}

/** A text kept by {@link OutputResources.addText}. */
export interface StoredText {
  uri: string;
  /** Bytes (UTF-8) a read returns. */
  size: number;
  /** False when the middle of the text is not in the resource. */
  whole: boolean;
}

/** What one caller holds: its entries by id, oldest first, and their characters. */
interface Holding {
  readonly entries: Map<string, Entry>;
  chars: number;
}

export class OutputResources {
  readonly scheme: OutputScheme;
  /** `<scheme>://outputs/` */
  readonly outputsUri: string;
  /** `<scheme>://images/` */
  readonly imagesUri: string;
  readonly #limits: Required<Omit<OutputResourceLimits, 'scheme'>>;
  readonly #entries = new Map<string, Entry>();
  readonly #holdings = new Map<string, Holding>();
  #chars = 0;

  constructor({
    scheme = IPYBOX_OUTPUTS,
    maxEntries = 200,
    maxChars = 8_000_000,
    maxTotalEntries = 2000,
    maxTotalChars = 32_000_000,
    maxEntryChars = 2_000_000,
  }: OutputResourceLimits = {}) {
    this.scheme = scheme;
    this.outputsUri = `${scheme.scheme}://outputs/`;
    this.imagesUri = `${scheme.scheme}://images/`;
    this.#limits = {
      maxEntries,
      maxChars,
      maxTotalEntries,
      maxTotalChars,
      maxEntryChars: Math.min(maxEntryChars, maxChars, maxTotalChars),
    };
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * Keeps `text`, its start and end when too long; `omitted` counts characters already dropped
   * from its middle (the kernel layer's bound), for the note. Returns its `<scheme>://outputs/` URI.
   */
  addText(owner: ResourceOwner, mimeType: string, text: string, omitted = 0): StoredText {
    const max = this.#limits.maxEntryChars;
    let kept = text;
    if (text.length > max) {
      const half = Math.floor(max / 2);
      const dropped = text.length - 2 * half + omitted;
      kept = `${text.slice(0, half)}\n[ipybox keeps at most ${max} characters of one output: ${dropped.toLocaleString('en-US')} characters from the middle are not here]\n${text.slice(-half)}`;
    }
    const uri = this.outputsUri + this.#add({ ...owner, kind: 'text', mimeType, text: kept });
    return { uri, size: Buffer.byteLength(kept), whole: kept === text && omitted === 0 };
  }

  /** Makes a saved image readable at full size; returns its `<scheme>://images/` URI. */
  addImage(owner: ResourceOwner, image: SavedImage): string {
    return this.imagesUri + this.#add({ ...owner, kind: 'file', image });
  }

  /** The entry behind `uri` for `caller`, as a `resources/read` result. */
  async read(uri: string, caller: string): Promise<ReadResourceResult> {
    const id = this.#idOf(uri);
    const entry = id === undefined ? undefined : this.#entries.get(id);
    if (!entry || entry.caller !== caller) {
      throw new ResourceNotFoundError(
        uri,
        `ipybox has no output ${uri}: the server keeps only the latest ${this.#limits.maxEntries} outputs of each caller's cells (older ones are dropped, fewer when many callers fill the server, and all are gone after a restart). Run the cell again to get it back.`,
      );
    }
    if (entry.kind === 'text') {
      return { contents: [{ uri, mimeType: entry.mimeType, text: entry.text }] };
    }
    const { image } = entry;
    let data: Buffer;
    try {
      const { size } = await stat(image.path);
      if (size > MAX_IMAGE_READ_BYTES) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `the image behind ${uri} is ${size} bytes, too large for one MCP message (at most ${MAX_IMAGE_READ_BYTES}); read the file ${image.path} in the workspace instead (e.g. with Python in a cell)`,
        );
      }
      data = await readFile(image.path);
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      throw new ResourceNotFoundError(
        uri,
        `the image file ${image.path} behind ${uri} can no longer be read (${(error as NodeJS.ErrnoException).code ?? error}): it was moved or deleted from the workspace`,
      );
    }
    if (image.mimeType === 'image/svg+xml') {
      return { contents: [{ uri, mimeType: image.mimeType, text: data.toString('utf8') }] };
    }
    return { contents: [{ uri, mimeType: image.mimeType, blob: data.toString('base64') }] };
  }

  /** Forgets everything `caller` produced (its session ended: nobody can read them any more). */
  dropCaller(caller: string): void {
    const holding = this.#holdings.get(caller);
    if (holding === undefined) return;
    for (const id of holding.entries.keys()) this.#entries.delete(id);
    this.#chars -= holding.chars;
    this.#holdings.delete(caller);
  }

  #idOf(uri: string): string | undefined {
    for (const prefix of [this.outputsUri, this.imagesUri]) {
      if (uri.startsWith(prefix)) return uri.slice(prefix.length) || undefined;
    }
    return undefined;
  }

  #add(entry: Entry): string {
    const id = randomBytes(16).toString('base64url');
    let holding = this.#holdings.get(entry.caller);
    if (holding === undefined) {
      holding = { entries: new Map(), chars: 0 };
      this.#holdings.set(entry.caller, holding);
    }
    holding.entries.set(id, entry);
    holding.chars += charsOf(entry);
    this.#entries.set(id, entry);
    this.#chars += charsOf(entry);
    const { maxEntries, maxChars, maxTotalEntries, maxTotalChars } = this.#limits;
    // The caller's own budget first: its oldest go, never the one just added.
    while (
      (holding.entries.size > maxEntries || holding.chars > maxChars) &&
      this.#evictOldest(holding, id)
    );
    // Then the store's: the caller holding the most gives up its oldest.
    while (
      (this.#entries.size > maxTotalEntries || this.#chars > maxTotalChars) &&
      this.#evictOldest(this.#largest(this.#chars > maxTotalChars, id), id)
    );
    return id;
  }

  /** The caller holding the most characters (`byChars`) or entries, besides entry `keep`. */
  #largest(byChars: boolean, keep: string): Holding {
    let largest: Holding | undefined;
    for (const holding of this.#holdings.values()) {
      if (holding.entries.size === 1 && holding.entries.has(keep)) continue;
      const size = byChars ? holding.chars : holding.entries.size;
      if (largest === undefined || size > (byChars ? largest.chars : largest.entries.size)) {
        largest = holding;
      }
    }
    // Some other entry exists while the store is over its bound with `keep` in it.
    return largest as Holding;
  }

  /** Drops the oldest entry of `holding` unless it is `keep`; false when nothing was dropped. */
  #evictOldest(holding: Holding, keep: string): boolean {
    const [oldId, old] = holding.entries.entries().next().value ?? [];
    if (oldId === undefined || old === undefined || oldId === keep) return false;
    holding.entries.delete(oldId);
    holding.chars -= charsOf(old);
    this.#entries.delete(oldId);
    this.#chars -= charsOf(old);
    if (holding.entries.size === 0) this.#holdings.delete(old.caller);
    return true;
  }
}

function charsOf(entry: Entry): number {
  return entry.kind === 'text' ? entry.text.length : 0;
}

/**
 * Registers the two templates whose reads `store` answers, and frees a session's entries when it
 * ends. The session listener holds the store weakly: once the plugin is unloaded (its handlers,
 * the store's other holders, are gone) the listener removes itself at the next session end.
 */
export function registerOutputResources(server: PluginServer, store: OutputResources): void {
  const weak = new WeakRef(store);
  const stopListening = server.onSessionClosed(({ sessionId, connectionId }) => {
    const alive = weak.deref();
    if (!alive) return stopListening();
    if (sessionId !== undefined) alive.dropCaller(`session:${sessionId}`);
    alive.dropCaller(`connection:${connectionId}`);
  });
  const read = (uri: URL, _variables: unknown, ctx: RequestExtra) =>
    store.read(uri.toString(), callerOf(ctx));
  const { prefix, tool } = store.scheme;
  server.registerResource(
    `${prefix}_output`,
    new ResourceTemplate(`${store.outputsUri}{id}`, { list: undefined }),
    {
      description: `Output of an ${tool} call kept for on-demand reading: the full text of a truncated output, or the text/html form of a rich result (e.g. a pandas DataFrame). Named in the tool result.`,
    },
    read,
  );
  server.registerResource(
    `${prefix}_image`,
    new ResourceTemplate(`${store.imagesUri}{id}`, { list: undefined }),
    {
      description: `An image from an ${tool} call at full size (the result inlines a downscaled copy). Named in the tool result.`,
    },
    read,
  );
}
