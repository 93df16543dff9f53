/**
 * The catalog's screen: every batch a pinned plugin commits (a load, a reload, an upstream's
 * list change mirrored) passes {@link PinScreen.screen} inside `Catalog.replacePlugin`, the one
 * step through which tools and prompts enter the catalog. What the pin book holds back is kept
 * here, out of the catalog — not listed, not found by any route — and moved into the catalog
 * when the book releases it (an approval here or on another replica, or the server offering
 * the pinned definition again), which announces the change to every session.
 *
 * Which plugins are pinned is the book's `modeOf`: the registry sets each loaded plugin's mode
 * (its `pin:` setting, else `pins.mode`), and internal plugins and registrations straight on
 * the server (`proxy__*`, ipybox's own tools) are `off` — they are the program, not a server it
 * was told to trust.
 *
 * @module
 */
import type { CatalogBatch, CatalogScreen, PromptEntry, ToolEntry } from '../catalog/types.ts';
import type { PinBook } from './book.ts';
import { definitionOf, type Fingerprint, fingerprint } from './definition.ts';
import { heldMessage } from './record.ts';
import type { PinKind } from './types.ts';

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
    if (this.#book.modeOf(plugin) === 'off') return batch;
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
    const offered = fingerprint(definitionOf(kind, entry.definition));
    if (!this.#book.judge(plugin, kind, entry.name, offered, known)) return true;
    if (kind === 'tool') this.#tools.set(entry.name, { entry: entry as ToolEntry, offered });
    else this.#prompts.set(entry.name, { entry: entry as PromptEntry, offered });
    return false;
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
        this.#book.modeOf(entry.plugin) !== 'off' &&
        this.#book.judge(entry.plugin, kind, name, offered, true)
      )
        continue;
      held.delete(name);
      out.push(entry);
    }
    return out;
  }
}
