/**
 * One pin as stored: a definition's pinned form, what the server offers now when that differs,
 * and the digests already refused or already reported — and the words a caller and an operator
 * read about it. Kept apart from the book's rules so the stored shape reads on its own.
 *
 * @module
 */

import canonicalize from 'canonicalize';
import { diffPackage } from '../lazy.ts';
import { changedParts } from './definition.ts';
import type { PinDiff, PinKind, PinnedDefinition, PinState, PinStatus } from './types.ts';

/** What the server offers now, when it differs from the pin. */
export type Pending = PinnedDefinition & {
  readonly change: 'changed' | 'new';
  /** Set when the definition cannot be pinned (too large, a cycle): it has no digest. */
  readonly problem?: string;
};

export interface PinRecord {
  readonly server: string;
  readonly kind: PinKind;
  readonly name: string;
  readonly state: PinState;
  readonly pinned?: PinnedDefinition;
  readonly pending?: Pending;
  /** Digests an operator refused: they stay out and are not asked about again. */
  readonly rejected?: readonly string[];
  /** Digests already quarantined once: seen again (a flip-flop), they are not reported again. */
  readonly asked?: readonly string[];
}

/** How many digests a record remembers as refused or reported. */
const REMEMBERED = 32;

/** The map record every pin is an entry of. */
export const PINS_RECORD = 'pins';

/** The entry's field: unambiguous whatever the names hold. */
export function fieldOf(server: string, kind: PinKind, name: string): string {
  return JSON.stringify([server, kind, name]);
}

/** A stored entry, or undefined when it is not one of ours. */
export function parseRecord(text: string): PinRecord | undefined {
  try {
    const record = JSON.parse(text) as PinRecord;
    const ok =
      typeof record.server === 'string' &&
      (record.kind === 'tool' || record.kind === 'prompt') &&
      typeof record.name === 'string' &&
      ['pinned', 'quarantined', 'rejected'].includes(record.state);
    return ok ? record : undefined;
  } catch {
    return undefined;
  }
}

export function remember(list: readonly string[] | undefined, digest: string): string[] {
  const out = (list ?? []).filter((d) => d !== digest);
  out.push(digest);
  return out.slice(-REMEMBERED);
}

/** What a call of a held tool (or a get of a held prompt) is told. */
export function heldMessage(record: PinRecord): string {
  const what = `${record.kind} '${record.name}' of server '${record.server}'`;
  const pending = record.pending;
  if (pending?.problem) return `${what} is quarantined: ${pending.problem}`;
  const change =
    pending?.change === 'new'
      ? 'it is new since the server was pinned'
      : `its definition changed (${changedParts(record.pinned?.definition, pending?.definition ?? {}).join(', ')}) since it was pinned`;
  if (record.state === 'rejected') {
    return `${what} was rejected by an operator: ${change}; it stays out until the server offers the pinned definition again`;
  }
  return (
    `${what} is quarantined: ${change}; an operator approves it with ` +
    `\`mcp-proxy pins approve ${record.server} ${record.name}\` or in the console`
  );
}

/** What a warning in the log says of a change pinned at once (`warn`) or held (`strict`). */
export function changeSummary(record: PinRecord, pending: Pending): string {
  if (pending.change === 'new') return 'new';
  return `changed: ${changedParts(record.pinned?.definition, pending.definition).join(', ')}`;
}

export function statusOf(record: PinRecord, mode: PinStatus['mode']): PinStatus {
  const { server, kind, name, state, pinned, pending } = record;
  return {
    server,
    kind,
    name,
    mode,
    state,
    ...(pinned ? { pinned } : {}),
    ...(pending ? { pending } : {}),
  };
}

export function diffOf(record: PinRecord): PinDiff | undefined {
  const pending = record.pending;
  if (!pending) return undefined;
  const before = record.pinned?.definition;
  const after = pending.definition;
  const text = diffPackage().createTwoFilesPatch(
    `${record.name} (pinned)`,
    `${record.name} (offered now)`,
    before ? readable(before) : '',
    readable(after),
    undefined,
    undefined,
    { context: 3 },
  );
  return {
    server: record.server,
    kind: record.kind,
    name: record.name,
    change: pending.change,
    ...(before ? { before } : {}),
    after,
    text,
  };
}

/** Indented JSON with sorted keys, so a diff shows what changed and nothing else. */
function readable(definition: Readonly<Record<string, unknown>>): string {
  return `${JSON.stringify(JSON.parse(canonicalize(definition) ?? '{}'), null, 2)}\n`;
}
