/**
 * The principals this server served lately: who they were (id, kind, groups, which claims their
 * credentials carried), through which views, how many tool calls they made and how many policy
 * refused. Operators read it to see who uses what (`mcp-proxy principals`, the console's Access
 * page) and `mcp-proxy explain` takes a recent principal's id to explain with its own claims.
 *
 * Bounded: the {@link DEFAULT_CAPACITY} most recently seen are kept, the least recently seen go
 * first. Fed once per request (the session's counting wrapper) and once per tool call (the
 * dispatcher): a Map lookup and a re-insert (none for the principal seen last), nothing more.
 * Process-local: each replica knows whom it served. Claim values stay inside (for explain); a
 * listing shows their keys only.
 *
 * @module
 */
import type { Principal } from '../contract/principal.ts';

export const DEFAULT_CAPACITY = 500;

/** One principal as a listing shows it. */
export interface SeenPrincipal {
  id: string;
  kind: Principal['kind'];
  groups: string[];
  /** The names of the claims its credentials carried (values are not listed). */
  claimKeys: string[];
  /** The views its requests came through; `""` is the whole catalog (`/mcp`). */
  views: string[];
  /** Epoch milliseconds. */
  firstSeen: number;
  lastSeen: number;
  requests: number;
  /** Tool calls dispatched for it, refused ones included. */
  calls: number;
  /** Tool calls views or policy refused. */
  refusals: number;
}

interface Entry {
  principal: Principal;
  views: Set<string>;
  firstSeen: number;
  lastSeen: number;
  requests: number;
  calls: number;
  refusals: number;
}

export class PrincipalsSeen {
  readonly #entries = new Map<string, Entry>();
  readonly #capacity: number;
  readonly #clock: () => number;
  /** The most recently seen entry: touching it again needs no re-insert. */
  #newest: Entry | undefined;

  constructor(options: { capacity?: number; clock?: () => number } = {}) {
    this.#capacity = options.capacity ?? DEFAULT_CAPACITY;
    this.#clock = options.clock ?? Date.now;
  }

  /** The entry of `principal`, moved to the most recent end (made when new). */
  #touch(principal: Principal): Entry {
    const now = this.#clock();
    const newest = this.#newest;
    let entry = newest?.principal.id === principal.id ? newest : this.#entries.get(principal.id);
    if (entry === undefined) {
      entry = {
        principal,
        views: new Set(),
        firstSeen: now,
        lastSeen: now,
        requests: 0,
        calls: 0,
        refusals: 0,
      };
      if (this.#entries.size >= this.#capacity) {
        this.#entries.delete(this.#entries.keys().next().value as string);
      }
      this.#entries.set(principal.id, entry);
    } else {
      // The latest credentials win: a refreshed token may carry other groups or claims.
      entry.principal = principal;
      entry.lastSeen = now;
      if (entry !== newest) {
        this.#entries.delete(principal.id);
        this.#entries.set(principal.id, entry);
      }
    }
    this.#newest = entry;
    return entry;
  }

  /** One request of `principal` through `view` (undefined: the whole catalog). */
  request(principal: Principal, view: string | undefined): void {
    const entry = this.#touch(principal);
    entry.requests += 1;
    entry.views.add(view ?? '');
  }

  /** One tool call of `principal`, and whether views or policy refused it. */
  call(principal: Principal, refused: boolean): void {
    const entry = this.#touch(principal);
    entry.calls += 1;
    if (refused) entry.refusals += 1;
  }

  /** The principal last seen under `id` (its groups and claims as its credentials gave them). */
  principal(id: string): Principal | undefined {
    return this.#entries.get(id)?.principal;
  }

  /** Most recently seen first. */
  list(): SeenPrincipal[] {
    return [...this.#entries.values()].reverse().map((entry) => ({
      id: entry.principal.id,
      kind: entry.principal.kind,
      groups: [...entry.principal.groups],
      claimKeys: Object.keys(entry.principal.claims).sort(),
      views: [...entry.views].sort(),
      firstSeen: entry.firstSeen,
      lastSeen: entry.lastSeen,
      requests: entry.requests,
      calls: entry.calls,
      refusals: entry.refusals,
    }));
  }

  get size(): number {
    return this.#entries.size;
  }
}
