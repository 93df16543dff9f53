/**
 * The grant book: single-use, expiring grants over one exact call ({@link ApprovalSubject}),
 * kept in a {@link RecordStore} — this process's memory alone, the cluster's signed Redis records
 * across replicas, so a grant issued on one replica is taken on another, once.
 *
 * A grant's token is `<id>.<mac>`: the MAC is HMAC-SHA256, under the key ring's
 * `approval-grants` key (never in the store), over the RFC 8785 canonical JSON of the grant as
 * issued. Taking a token reads the grant's record and, in one atomic {@link RecordStore.update},
 * checks the MAC against the record (constant time), that it was not taken, has not expired and
 * is for exactly this call — then marks it taken. So a token cannot be replayed, edited, or moved
 * to other arguments, another principal, tool or server, or across a policy change; a record
 * written into the store by anyone without the key is refused.
 *
 * @module
 */
import canonicalize from 'canonicalize';
import { nodeCrypto } from '../lazy.ts';
import { macMatches } from '../macs.ts';
import type { KeyRing } from '../state/keys.ts';
import { type RecordStore, UnverifiedRecordError } from '../state/records.ts';
import type { ApprovalSubject, Grant } from './types.ts';

/** The key of a request's `_meta` that presents a grant token, and of a result's that names one. */
export const GRANT_META_KEY = 'io.mcpbox/grant';

/** How long a grant's record outlives it, so a late replay is told "used" or "expired". */
const RETAIN_MS = 60 * 60 * 1000;

/** Why a token was refused. */
export type GrantRefusal = 'unknown' | 'used' | 'expired' | 'mismatch' | 'forged';

export type GrantTaking =
  | { readonly ok: true; readonly grant: Grant }
  | { readonly ok: false; readonly reason: GrantRefusal; readonly message: string };

/** A grant's record: the grant as issued, and when it was taken. */
interface StoredGrant {
  grant: Grant;
  taken?: number;
}

const TOKEN = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

const SUBJECT_FIELDS: readonly [keyof ApprovalSubject, string][] = [
  ['principal', 'another principal'],
  ['server', 'another server'],
  ['tool', 'another tool'],
  ['argsDigest', 'other arguments'],
  ['policyVersion', 'another policy (it changed since: ask again)'],
];

function refused(reason: GrantRefusal, why: string): GrantTaking {
  return { ok: false, reason, message: `the approval grant was refused: ${why}` };
}

export interface GrantBookOptions {
  /** Milliseconds since the epoch. Default `Date.now`. */
  clock?: () => number;
  /** Where the grants' records live (`<prefix>:<id>`). Default `approvals:grant`. */
  prefix?: string;
}

export class GrantBook {
  readonly #records: RecordStore;
  readonly #keys: () => KeyRing;
  readonly #clock: () => number;
  readonly #prefix: string;

  /** `keys`: read on each use, so a cluster's keys installed at start are the ones used. */
  constructor(records: RecordStore, keys: () => KeyRing, options: GrantBookOptions = {}) {
    this.#records = records;
    this.#keys = keys;
    this.#clock = options.clock ?? Date.now;
    this.#prefix = options.prefix ?? 'approvals:grant';
  }

  /** A new grant for exactly `subject`, approved `by`, good once within `ttlMs`; and its token. */
  async issue(
    subject: ApprovalSubject,
    by: string,
    ttlMs: number,
  ): Promise<{ grant: Grant; token: string }> {
    const issuedAt = this.#clock();
    const grant: Grant = {
      id: nodeCrypto().randomBytes(16).toString('base64url'),
      subject: { ...subject },
      by,
      issuedAt,
      expiresAt: issuedAt + ttlMs,
    };
    const stored: StoredGrant = { grant };
    await this.#records.set(this.#key(grant.id), JSON.stringify(stored), ttlMs + RETAIN_MS);
    return { grant, token: `${grant.id}.${this.#mac(grant).toString('base64url')}` };
  }

  /** Takes the grant `token` names for the call `subject`, once; anything else is refused. */
  async take(token: string, subject: ApprovalSubject): Promise<GrantTaking> {
    const parts = TOKEN.exec(token);
    if (!parts) return refused('unknown', 'it is not a grant token (expected <id>.<mac>)');
    const [, id, mac] = parts as unknown as [string, string, string];
    const now = this.#clock();
    try {
      return await this.#records.update(
        this.#key(id),
        (text) => this.#decide(text, mac, subject, now),
        RETAIN_MS,
      );
    } catch (error) {
      if (error instanceof UnverifiedRecordError) {
        return refused('forged', 'its record was not written by this server or cluster');
      }
      throw error;
    }
  }

  #decide(
    text: string | undefined,
    mac: string,
    subject: ApprovalSubject,
    now: number,
  ): { value?: string; result: GrantTaking } {
    if (text === undefined) {
      return { result: refused('unknown', 'no such grant (never issued, or long expired)') };
    }
    let stored: StoredGrant;
    try {
      stored = JSON.parse(text) as StoredGrant;
    } catch {
      return { result: refused('forged', 'its record is not a grant') };
    }
    const expected = this.#macOf(stored.grant);
    if (expected === undefined || !macMatches(mac, expected)) {
      return { result: refused('forged', 'its MAC does not verify (tampered or forged)') };
    }
    const { grant } = stored;
    if (stored.taken !== undefined) {
      return {
        result: refused(
          'used',
          'it was used already: a grant runs one call; ask for approval again',
        ),
      };
    }
    if (now >= grant.expiresAt) {
      return { result: refused('expired', 'it expired; ask for approval again') };
    }
    for (const [field, what] of SUBJECT_FIELDS) {
      if (grant.subject[field] !== subject[field]) {
        return { result: refused('mismatch', `it was granted for ${what}, not this call`) };
      }
    }
    return { value: JSON.stringify({ ...stored, taken: now }), result: { ok: true, grant } };
  }

  /** The MAC of a grant as stored; undefined when it is not a grant's shape. */
  #macOf(grant: unknown): Buffer | undefined {
    const g = grant as Grant | null;
    if (g === null || typeof g !== 'object' || typeof g.subject !== 'object' || !g.subject) {
      return undefined;
    }
    try {
      return this.#mac(g);
    } catch {
      return undefined;
    }
  }

  #mac(grant: Grant): Buffer {
    const { id, subject, by, issuedAt, expiresAt } = grant;
    const canonical = canonicalize({ id, subject, by, issuedAt, expiresAt }) ?? '';
    return nodeCrypto()
      .createHmac('sha256', this.#keys().key('approval-grants'))
      .update(canonical)
      .digest();
  }

  #key(id: string): string {
    return `${this.#prefix}:${id}`;
  }
}
