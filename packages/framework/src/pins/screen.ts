/**
 * The catalog's screen: every batch a pinned plugin commits (a load, a reload, an upstream's
 * list change mirrored) passes {@link PinScreen.screen} inside `Catalog.replacePlugin`, the one
 * step through which tools and prompts enter the catalog. What the pin book holds back is kept
 * here, out of the catalog — not listed, not found by any route — and moved into the catalog
 * when the book releases it (an approval here or on another replica, or the server offering
 * the pinned definition again), which announces the change to every session.
 *
 * Which plugins are pinned is the book's `screens`: the registry sets each plugin it loads to
 * its `pin:` setting (else `pins.mode`), and internal plugins (`proxy__*`) to `off`; what enters
 * the catalog any other way — tools registered on the server itself, code mode's own batch — is
 * never screened: that is the program, not a server it was told to trust.
 *
 * @module
 */
import type { CatalogBatch, CatalogScreen, PromptEntry, ToolEntry } from '../catalog/types.ts';
import type { PinBook } from './book.ts';
import { definitionOf, type Fingerprint, fingerprint } from './definition.ts';
import { heldMessage } from './record.ts';
import type { PinKind } from './types.ts';

/** Definitions whose fingerprints are kept: a few large upstreams' worth. */
const CACHED_FINGERPRINTS = 20_000;
/** Definitions longer than this (as JSON) are fingerprinted each time, not kept. */
const CACHED_JSON_CHARS = 16 * 1024;

interface Held<E> {
  readonly entry: E;
  readonly offered: Fingerprint;
}

/** Where released entries go: the catalog's `release`. */
export type Release = (batch: Pick<CatalogBatch, 'tools' | 'prompts'>) => void;

export class PinScreen implements CatalogScreen {
  readonly #book: PinBook;
  readonly #tools = new Map<string, Held<ToolEntry>>();
  readonly #prompts = new Map<string, Held<PromptEntry>>();
  /**
   * Fingerprints by the definition's plain JSON: a reload of an unchanged server costs a
   * `JSON.stringify` and a lookup per definition instead of RFC 8785 and SHA-256 (several
   * times slower, bench/pins.ts). The same JSON always has the same canonical form.
   */
  #fingerprints = new Map<string, Fingerprint>();
  #release: Release | undefined;

  constructor(book: PinBook) {
    this.#book = book;
    book.onChange(() => this.#recheck());
  }

  /** Where entries the book releases go (the catalog, when it takes this screen). */
  releaseTo(release: Release): void {
    this.#release = release;
  }

  screen(plugin: string, batch: CatalogBatch): CatalogBatch {
    this.forget(plugin);
    if (!this.#book.screens(plugin)) return batch;
    const known = this.#book.known(plugin);
    const tools = batch.tools.filter((entry) => this.#admit(plugin, 'tool', entry, known));
    const prompts = batch.prompts.filter((entry) => this.#admit(plugin, 'prompt', entry, known));
    if (tools.length === batch.tools.length && prompts.length === batch.prompts.length)
      return batch;
    return { ...batch, tools, prompts };
  }

  forget(plugin: string): void {
    for (const [name, held] of this.#tools)
      if (held.entry.plugin === plugin) this.#tools.delete(name);
    for (const [name, held] of this.#prompts)
      if (held.entry.plugin === plugin) this.#prompts.delete(name);
  }

  heldTool(name: string): { entry: ToolEntry; reason: string } | undefined {
    return this.#reasoned(this.#tools.get(name), 'tool');
  }

  heldPrompt(name: string): { entry: PromptEntry; reason: string } | undefined {
    return this.#reasoned(this.#prompts.get(name), 'prompt');
  }

  heldOwner(kind: PinKind, name: string): string | undefined {
    return (kind === 'tool' ? this.#tools : this.#prompts).get(name)?.entry.plugin;
  }

  #reasoned<E extends ToolEntry | PromptEntry>(
    held: Held<E> | undefined,
    kind: PinKind,
  ): { entry: E; reason: string } | undefined {
    if (!held) return undefined;
    const record = this.#book.held(held.entry.plugin, kind, held.entry.name);
    const reason = record
      ? heldMessage(record)
      : `${kind} '${held.entry.name}' of server '${held.entry.plugin}' is quarantined`;
    return { entry: held.entry, reason };
  }

  #admit(plugin: string, kind: PinKind, entry: ToolEntry | PromptEntry, known: boolean): boolean {
    const offered = this.#fingerprint(definitionOf(kind, entry.definition));
    if (!this.#book.judge(plugin, kind, entry.name, offered, known)) return true;
    if (kind === 'tool') this.#tools.set(entry.name, { entry: entry as ToolEntry, offered });
    else this.#prompts.set(entry.name, { entry: entry as PromptEntry, offered });
    return false;
  }

  #fingerprint(definition: Readonly<Record<string, unknown>>): Fingerprint {
    let key: string;
    try {
      key = JSON.stringify(definition);
    } catch {
      return fingerprint(definition); // a cycle: the reason says so
    }
    // Large ones are not kept (nor is anything past the bound: the cache starts over).
    if (key.length > CACHED_JSON_CHARS) return fingerprint(definition);
    let found = this.#fingerprints.get(key);
    if (found === undefined) {
      if (this.#fingerprints.size >= CACHED_FINGERPRINTS) this.#fingerprints = new Map();
      found = fingerprint(definition);
      this.#fingerprints.set(key, found);
    }
    return found;
  }

  /** The book changed: what it no longer holds goes into the catalog. */
  #recheck(): void {
    const tools = this.#released(this.#tools, 'tool');
    const prompts = this.#released(this.#prompts, 'prompt');
    if (tools.length + prompts.length > 0) this.#release?.({ tools, prompts });
  }

  #released<E extends ToolEntry | PromptEntry>(held: Map<string, Held<E>>, kind: PinKind): E[] {
    const out: E[] = [];
    for (const [name, { entry, offered }] of held) {
      if (
        this.#book.screens(entry.plugin) &&
        this.#book.judge(entry.plugin, kind, name, offered, true)
      )
        continue;
      held.delete(name);
      out.push(entry);
    }
    return out;
  }
}
