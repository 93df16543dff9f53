/**
 * The pin book: every pinned tool and prompt definition, per server, and what is held back
 * because it changed. The rules live here once, over a {@link RecordStore} (memory — saved to a
 * file — for a server alone, the cluster's signed Redis for replicas), in one synchronous
 * decision, {@link PinBook.judge}, that the catalog's screen asks for every definition a
 * server offers: a map lookup when nothing changed.
 *
 * - first sight pins (`first-sight`); a server's first listing is pinned whole;
 * - the same digest again: nothing happens;
 * - another digest, or a new name on a server with pins: in `strict` it is quarantined (recorded
 *   and reported once per digest, so a server flipping a description back and forth raises one
 *   quarantine, and offering the pinned digest again releases it); in `warn` it is pinned at once
 *   and a warning says what changed; in `off` nothing is pinned;
 * - an operator approves (pinned, released everywhere) or rejects (that digest stays out and is
 *   not asked about again).
 *
 * Writes go to the store behind the decision (a decision never waits for Redis); every replica
 * re-reads the book when another announces a change on the `pins` channel.
 *
 * @module
 */
import type { AuditTrail } from '../audit/trail.ts';
import type { Logger } from '../contract/logger.ts';
import { McpboxError } from '../errors.ts';
import type { Fingerprint } from './definition.ts';
import { PinLedger, type PinLedgerOptions } from './ledger.ts';
import {
  changeSummary,
  diffOf,
  fieldOf,
  heldMessage,
  type Pending,
  type PinRecord,
  remember,
  statusOf,
} from './record.ts';
import type {
  PinBoard,
  PinDiff,
  PinKind,
  PinMode,
  PinnedDefinition,
  PinStatus,
  PinTarget,
} from './types.ts';

export interface PinBookOptions extends PinLedgerOptions {
  /** The mode of a server that names none (`pins.mode`). Default `off`. */
  mode?: PinMode;
  audit?: AuditTrail;
  logger?: Logger;
  clock?: () => number;
}

export class PinBook implements PinBoard {
  readonly #ledger: PinLedger;
  readonly #mode: PinMode;
  readonly #audit: AuditTrail | undefined;
  readonly #logger: Logger | undefined;
  readonly #clock: () => number;
  readonly #modes = new Map<string, PinMode>();
  /** Plugins the registry loaded (set by {@link setMode}). */
  readonly #tracked = new Set<string>();

  constructor(options: PinBookOptions) {
    this.#ledger = new PinLedger(options);
    this.#mode = options.mode ?? 'off';
    this.#audit = options.audit;
    this.#logger = options.logger;
    this.#clock = options.clock ?? Date.now;
  }

  /** Reads the book and follows the other replicas' changes; settles once (later calls too). */
  ready(): Promise<void> {
    return this.#ledger.ready();
  }

  /** Stops following other replicas; waits for writes in flight. */
  close(): Promise<void> {
    return this.#ledger.close();
  }

  /** Settles when every decision made so far is in the store (and the file). */
  flush(): Promise<void> {
    return this.#ledger.flush();
  }

  modeOf(server: string): PinMode {
    return this.#modes.get(server) ?? this.#mode;
  }

  /**
   * A loaded plugin's own `pin:` setting (undefined: the book's default). Only plugins the
   * registry names here are screened: built-in registrations never are.
   */
  setMode(server: string, mode: PinMode | undefined): void {
    this.#tracked.add(server);
    if (mode === undefined) this.#modes.delete(server);
    else this.#modes.set(server, mode);
  }

  /** Whether the server's definitions are screened: a loaded plugin whose mode is not `off`. */
  screens(server: string): boolean {
    return this.#tracked.has(server) && this.modeOf(server) !== 'off';
  }

  /** Whether the server has any pin: a server's first listing is pinned whole. */
  known(server: string): boolean {
    return this.#ledger.known(server);
  }

  /**
   * Decides one definition a server offers now: undefined when it may be listed and called,
   * else the record that holds it (its {@link heldMessage} says why). `known`: whether the
   * server had pins before the listing this definition is part of.
   */
  judge(
    server: string,
    kind: PinKind,
    name: string,
    offered: Fingerprint,
    known: boolean,
  ): PinRecord | undefined {
    const mode = this.modeOf(server);
    if (mode === 'off') return undefined;
    const field = fieldOf(server, kind, name);
    const record = this.#ledger.get(field);
    if (!('digest' in offered)) return this.#unpinnable(field, record, server, kind, name, offered);
    const digest = offered.digest;
    if (record?.pinned?.digest === digest) {
      // The pinned definition again (after a change that waited, or was refused): released.
      if (record.state !== 'pinned')
        this.#put(field, { ...record, state: 'pinned', pending: undefined });
      return undefined;
    }
    const now = this.#clock();
    const change = record?.pinned ? 'changed' : 'new';
    const base: PinRecord = record ?? { server, kind, name, state: 'pinned' };
    if (!record?.pinned && !known) {
      this.#pin(field, base, {
        digest,
        definition: offered.definition,
        at: now,
        by: 'first-sight',
      });
      return undefined;
    }
    const pending: Pending = {
      digest,
      definition: offered.definition,
      at: now,
      by: server,
      change,
    };
    if (mode === 'warn') {
      this.#logger?.warn(
        `pins: ${kind} '${name}' of server '${server}' is ${changeSummary(base, pending)}; pinned at once (pin: warn)`,
      );
      this.#pin(
        field,
        base,
        { ...pending, by: 'mode:warn' },
        change === 'new' ? 'created' : 'approved',
      );
      return undefined;
    }
    if (record?.rejected?.includes(digest)) {
      if (record.pending?.digest !== digest)
        this.#put(field, { ...record, state: 'rejected', pending });
      return this.#ledger.get(field);
    }
    if (record?.state === 'quarantined' && record.pending?.digest === digest) return record;
    const asked = record?.asked?.includes(digest) ?? false;
    const held: PinRecord = {
      ...base,
      state: 'quarantined',
      pending,
      asked: remember(base.asked, digest),
    };
    this.#put(field, held);
    if (!asked) {
      this.#logger?.warn(`pins: ${heldMessage(held)}`);
      this.#record('quarantined', held, digest, server);
    }
    return held;
  }

  /** A definition too large to hash, or not JSON: held in every mode but `off`. */
  #unpinnable(
    field: string,
    record: PinRecord | undefined,
    server: string,
    kind: PinKind,
    name: string,
    offered: Fingerprint & { problem: string },
  ): PinRecord {
    if (record?.pending?.problem === offered.problem) return record;
    const change = record?.pinned ? 'changed' : 'new';
    const pending: Pending = {
      digest: '',
      definition: offered.definition,
      at: this.#clock(),
      by: server,
      change,
      problem: offered.problem,
    };
    const held: PinRecord = {
      ...(record ?? { server, kind, name }),
      state: 'quarantined',
      pending,
    };
    this.#put(field, held);
    this.#logger?.warn(`pins: ${heldMessage(held)}`);
    this.#record('quarantined', held, undefined, server);
    return held;
  }

  /** The record holding a definition back, if one does. */
  held(server: string, kind: PinKind, name: string): PinRecord | undefined {
    const record = this.#ledger.get(fieldOf(server, kind, name));
    return record && record.state !== 'pinned' ? record : undefined;
  }

  // ---- PinBoard ----

  list(server?: string): PinStatus[] {
    return this.#matching({ server }).map((record) => statusOf(record, this.modeOf(record.server)));
  }

  diff(target: Partial<PinTarget> = {}): PinDiff[] {
    return this.#matching(target)
      .map(diffOf)
      .filter((diff): diff is PinDiff => diff !== undefined);
  }

  async approve(target: PinTarget, by: string): Promise<PinStatus[]> {
    const waiting = this.#waiting(target, 'approval');
    const pinnable = waiting.filter((record) => !record.pending?.problem);
    if (pinnable.length === 0) throw new McpboxError('PIN_UNDECIDABLE', heldMessage(waiting[0]!));
    const at = this.#clock();
    for (const record of pinnable) {
      const { change: _change, problem: _problem, ...definition } = record.pending!;
      const rejected = record.rejected?.filter((digest) => digest !== definition.digest);
      const base = { ...record, rejected };
      this.#pin(
        fieldOf(record.server, record.kind, record.name),
        base,
        { ...definition, at, by },
        'approved',
      );
    }
    await this.flush();
    return pinnable.map((record) => this.#statusNow(record));
  }

  async reject(target: PinTarget, by: string): Promise<PinStatus[]> {
    const waiting = this.#waiting(target, 'rejection').filter((r) => r.state === 'quarantined');
    for (const record of waiting) {
      const digest = record.pending!.digest;
      const rejected = digest ? remember(record.rejected, digest) : record.rejected;
      this.#put(fieldOf(record.server, record.kind, record.name), {
        ...record,
        state: 'rejected',
        rejected,
      });
      this.#record('refused', record, digest || undefined, by);
    }
    await this.flush();
    return waiting.map((record) => this.#statusNow(record));
  }

  onChange(listener: () => void): () => void {
    return this.#ledger.onChange(listener);
  }

  // ---- inside ----

  #statusNow(record: PinRecord): PinStatus {
    const now = this.#ledger.get(fieldOf(record.server, record.kind, record.name)) ?? record;
    return statusOf(now, this.modeOf(record.server));
  }

  #matching(target: Partial<PinTarget>): PinRecord[] {
    return [...this.#ledger.values()]
      .filter(
        (r) =>
          (target.server === undefined || r.server === target.server) &&
          (target.name === undefined || r.name === target.name) &&
          (target.kind === undefined || r.kind === target.kind),
      )
      .sort((a, b) => a.server.localeCompare(b.server) || a.name.localeCompare(b.name));
  }

  /** What of the target waits (quarantined or rejected); throws naming the target when nothing. */
  #waiting(target: PinTarget, what: string): PinRecord[] {
    const waiting = this.#matching(target).filter((r) => r.pending !== undefined);
    const rejectable =
      what === 'rejection' ? waiting.filter((r) => r.state === 'quarantined') : waiting;
    if (rejectable.length === 0) {
      const named =
        target.name === undefined ? '' : ` ${target.kind ?? 'tool'} '${target.name}' of`;
      throw new McpboxError(
        'PIN_NOT_WAITING',
        `nothing of${named} server '${target.server}' waits for ${what}: ` +
          `see \`mcp-proxy pins list ${target.server}\``,
      );
    }
    return waiting;
  }

  #pin(
    field: string,
    base: PinRecord,
    pinned: PinnedDefinition,
    decision: 'created' | 'approved' = 'created',
  ): void {
    this.#put(field, { ...base, state: 'pinned', pinned, pending: undefined });
    this.#record(decision, base, pinned.digest, pinned.by);
  }

  #record(
    decision: 'created' | 'quarantined' | 'approved' | 'refused',
    record: PinRecord,
    digest: string | undefined,
    by: string,
  ): void {
    if (!this.#audit?.active) return;
    const tool = record.kind === 'tool' ? record.name : `prompt:${record.name}`;
    this.#audit.record({ kind: 'pin', decision, plugin: record.server, tool, pin: digest, by });
  }

  #put(field: string, record: PinRecord): void {
    this.#ledger.put(field, record);
  }
}
