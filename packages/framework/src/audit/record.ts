/**
 * One audit record and its place in the chain. A record is a small JSON object: what was decided
 * (`kind`, `decision`, the `rule` that decided), about what (`tool`, `plugin`, `view`, the
 * SHA-256 of the canonical arguments — never the arguments), for whom (`principal`), plus its
 * `seq`, `time`, the previous record's hash (`prev`) and its own `hash`:
 *
 *     hash = SHA-256(prev + canonical JSON of the record without `hash`)
 *
 * Canonical JSON is RFC 8785 (`canonicalize`), so the hash does not depend on key order or on
 * how the line was written; the writer writes each line as exactly that JSON with `hash` added
 * last. The first record's `prev` is {@link GENESIS}. Changing, removing or
 * reordering a record breaks the chain where it happened (see `verify.ts`).
 *
 * @module
 */
import canonicalize from 'canonicalize';
import type { AuditEntry, AuditRecord } from '../contract/audit.ts';
import { nodeCrypto } from '../lazy.ts';

export type { AuditDecision, AuditEntry, AuditKind, AuditRecord } from '../contract/audit.ts';

/** The `prev` of a log's first record. */
export const GENESIS = '0'.repeat(64);

/** Every string field is cut to this many characters, so a record stays small. */
const MAX_FIELD = 256;

const ENTRY_KEYS = [
  'kind',
  'principal',
  'view',
  'tool',
  'plugin',
  'args_sha256',
  'decision',
  'rule',
  'operation',
  'target',
  'by',
  'grant',
  'pin',
  'problem',
] as const satisfies readonly (keyof AuditEntry)[];

function sha256(text: string): string {
  const crypto = nodeCrypto();
  // The one-shot `hash` (Node 20.12+) costs a third of a Hash object's; a record needs two.
  return typeof crypto.hash === 'function'
    ? crypto.hash('sha256', text, 'hex')
    : crypto.createHash('sha256').update(text).digest('hex');
}

/** The keys of a record the writer makes, in canonical order (see {@link canonicalFlat}). */
const CANONICAL_KEYS = [...ENTRY_KEYS, 'seq', 'time', 'prev'].sort();

/**
 * RFC 8785 canonical JSON of a flat object — `keys` (sorted) with string or integer values, whose
 * canonical forms are `JSON.stringify`'s — written directly: `canonicalize` costs several times
 * more, and this runs on every call (records, and most arguments). `undefined` for anything else
 * (a nested value, a fraction, a lone surrogate), which goes through `canonicalize`.
 */
function canonicalFlat(
  value: Record<string, unknown>,
  keys: readonly string[],
): string | undefined {
  let out = '';
  for (const key of keys) {
    const field = value[key];
    if (field === undefined) continue;
    if (typeof field === 'string' ? hasLoneSurrogate(field) : !Number.isSafeInteger(field)) {
      return undefined;
    }
    out += `${out === '' ? '{' : ','}${JSON.stringify(key)}:${JSON.stringify(field)}`;
  }
  return `${out === '' ? '{' : out}}`;
}

/** Canonical JSON of any JSON value; throws for what is not JSON (a cycle, NaN, a lone surrogate). */
function canonicalJson(value: unknown): string {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const fields = value as Record<string, unknown>;
    const flat = canonicalFlat(fields, Object.keys(fields).sort());
    if (flat !== undefined) return flat;
  }
  return canonicalize(value) ?? 'null';
}

/** SHA-256 of RFC 8785 canonical JSON; `undefined` arguments count as `{}`. */
export function argsDigest(args: unknown): string {
  try {
    return sha256(canonicalJson(args ?? {}));
  } catch (error) {
    // Not JSON (a cycle, NaN, a lone surrogate): the record says so rather than failing.
    return `uncanonical: ${error instanceof Error ? error.message : String(error)}`.slice(0, 64);
  }
}

/**
 * The hash a record (as read back, with whatever keys it has) should carry: over `prev` and the
 * canonical JSON of everything but `hash`. One that cannot be canonicalized gets no hash (`''`).
 */
export function recordHash(record: { readonly prev: string }): string {
  const { hash: _hash, ...body } = record as { hash?: unknown; prev: string };
  try {
    return sha256(record.prev + canonicalJson(body));
  } catch {
    return '';
  }
}

/** A sealed record, and its line in the log. */
export interface Sealed {
  record: AuditRecord;
  /**
   * The canonical JSON that was hashed, with `"hash"` added last: what a line shows is exactly
   * what its hash covers, and no second serialization is paid for it.
   */
  line: string;
}

/** The record following `prev` (seq `seq`), its fields bounded. */
export function sealRecord(entry: AuditEntry, seq: number, prev: string, time: number): Sealed {
  const record: Record<string, unknown> = { seq, time: new Date(time).toISOString() };
  for (const key of ENTRY_KEYS) {
    const value = entry[key];
    if (value !== undefined) record[key] = bounded(value);
  }
  record.prev = prev;
  // Bounded strings and integers only: always flat.
  const canonical = canonicalFlat(record, CANONICAL_KEYS) as string;
  const hash = sha256(prev + canonical);
  record.hash = hash;
  return {
    record: record as unknown as AuditRecord,
    line: `${canonical.slice(0, -1)},"hash":"${hash}"}`,
  };
}

/** Cut to {@link MAX_FIELD}; a lone surrogate (not JSON that RFC 8785 accepts) becomes U+FFFD. */
function bounded(value: string): string {
  const cut = value.length > MAX_FIELD ? `${value.slice(0, MAX_FIELD - 1)}…` : value;
  return hasLoneSurrogate(cut) ? cut.replace(LONE_SURROGATES, '\uFFFD') : cut;
}

const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Whether `text` holds half a surrogate pair (a cheap test first: most text has no surrogate). */
function hasLoneSurrogate(text: string): boolean {
  if (!/[\uD800-\uDFFF]/.test(text)) return false;
  LONE_SURROGATES.lastIndex = 0;
  return LONE_SURROGATES.test(text);
}

/** The key of a call result's `_meta` that holds its audit record's id. */
export const AUDIT_META_KEY = 'io.mcpbox/audit';

/** `<seq>:<first 16 hex of the hash>`: the id a call's result carries. */
export function recordId(record: Pick<AuditRecord, 'seq' | 'hash'>): string {
  return `${record.seq}:${record.hash.slice(0, 16)}`;
}

const HEX_HASH = /^[0-9a-f]{64}$/;

/** The record a line holds, if it is one (shape only; the hash is checked by `verify.ts`). */
export function parseRecord(line: string): AuditRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const record = value as Partial<AuditRecord>;
  if (!Number.isSafeInteger(record.seq) || (record.seq as number) < 1) return undefined;
  if (typeof record.prev !== 'string' || !HEX_HASH.test(record.prev)) return undefined;
  if (typeof record.hash !== 'string' || !HEX_HASH.test(record.hash)) return undefined;
  if (typeof record.kind !== 'string' || typeof record.time !== 'string') return undefined;
  return record as AuditRecord;
}
