/**
 * Pinned definitions: what a tool's or prompt's definition was when it was first seen (or last
 * approved), per server, and what is held back because it changed since. The types every part
 * shares — the pin book in the framework, management (REST, CLI, `proxy__*` tools), the console.
 *
 * @module
 */

/**
 * How a server's changed or new definitions are treated: `strict` quarantines them until an
 * operator approves, `warn` pins them at once and records the change, `off` pins nothing.
 */
export type PinMode = 'strict' | 'warn' | 'off';

export type PinKind = 'tool' | 'prompt';

/** `quarantined`: a changed or new definition waits for an operator; `rejected`: one refused. */
export type PinState = 'pinned' | 'quarantined' | 'rejected';

/** One definition as pinned: the SHA-256 (hex) of its RFC 8785 canonical JSON, and the JSON. */
export interface PinnedDefinition {
  readonly digest: string;
  /** name, title, description, input/output schema, annotations (a prompt: its arguments). */
  readonly definition: Readonly<Record<string, unknown>>;
  /** Milliseconds since the epoch. */
  readonly at: number;
  /** Who pinned it: `first-sight`, `mode:warn`, or the principal id of the operator. */
  readonly by: string;
}

export interface PinStatus {
  /** The plugin (upstream server or runtime-loaded plugin) that offers it. */
  readonly server: string;
  readonly kind: PinKind;
  /** The name as the catalog lists it. */
  readonly name: string;
  readonly mode: PinMode;
  readonly state: PinState;
  /** What is approved; absent for a new tool never approved. */
  readonly pinned?: PinnedDefinition;
  /** What the server offers now, when it differs from `pinned` (quarantined or rejected). */
  readonly pending?: PinnedDefinition & { readonly change: 'changed' | 'new' };
}

/** A quarantined or rejected definition beside the pinned one, for a human to read. */
export interface PinDiff {
  readonly server: string;
  readonly kind: PinKind;
  readonly name: string;
  readonly change: 'changed' | 'new';
  readonly before?: Readonly<Record<string, unknown>>;
  readonly after: Readonly<Record<string, unknown>>;
  /** A unified diff of the two definitions as indented JSON (keys sorted). */
  readonly text: string;
}

/** Which pins an approve or reject is about: a server's every pending one, or one by name. */
export interface PinTarget {
  readonly server: string;
  readonly name?: string;
  readonly kind?: PinKind;
}

/** What management reads and changes (`server.pins`). */
export interface PinBoard {
  /** Every pin, or a server's; quarantined and rejected ones carry `pending`. */
  list(server?: string): PinStatus[];
  /** The diffs of what waits (quarantined, and rejected ones), optionally of one server or name. */
  diff(target?: Partial<PinTarget>): PinDiff[];
  /**
   * Pins what waits and releases it to every route (list_changed is sent), on every replica.
   * Throws an `McpboxError` naming the target: `PIN_NOT_WAITING` when nothing of it waits,
   * `PIN_UNDECIDABLE` when what waits cannot be pinned (the reason says why).
   */
  approve(target: PinTarget, by: string): Promise<PinStatus[]>;
  /**
   * Keeps what waits out of reach; the same definition is not asked about again. Throws
   * `PIN_NOT_WAITING` (an `McpboxError`) when nothing of the target is quarantined.
   */
  reject(target: PinTarget, by: string): Promise<PinStatus[]>;
  /** Called after any pin changes state (for the console's live view). Returns a remover. */
  onChange(listener: () => void): () => void;
}
