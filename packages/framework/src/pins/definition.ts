/**
 * What of a tool or prompt is pinned, and its digest: the SHA-256 (hex) of the RFC 8785
 * canonical JSON of the parts a model reads and a caller relies on — name, title, description,
 * input and output schema, annotations (a prompt: its arguments). Nothing else (`_meta`, icons,
 * execution hints) moves a pin.
 *
 * A definition is measured before it is canonicalized, and one over {@link MAX_DEFINITION_BYTES}
 * is never hashed: an upstream cannot make every listing cost a megabyte of hashing, and a
 * definition that cannot be written as JSON at all (a cycle) gets a reason instead of a digest.
 *
 * @module
 */
import type { Prompt, Tool } from '@modelcontextprotocol/server';
import canonicalize from 'canonicalize';
import { nodeCrypto } from '../lazy.ts';
import type { PinKind } from './types.ts';

/** The largest definition pinned: 256 KiB of canonical JSON (a long description is ~4 KiB). */
export const MAX_DEFINITION_BYTES = 256 * 1024;

/** Deeper than this is refused too: no schema a person wrote nests so far. */
const MAX_DEPTH = 64;

/** A definition with its digest, or why it has none. */
export type Fingerprint =
  | { readonly digest: string; readonly definition: Readonly<Record<string, unknown>> }
  | { readonly problem: string; readonly definition: Readonly<Record<string, unknown>> };

const TOOL_PARTS = [
  'name',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
] as const;
const PROMPT_PARTS = ['name', 'title', 'description', 'arguments'] as const;

/** The pinned parts of a listed tool or prompt (absent parts are left out). */
export function definitionOf(
  kind: PinKind,
  listed: Tool | Prompt,
): Readonly<Record<string, unknown>> {
  const parts = kind === 'tool' ? TOOL_PARTS : PROMPT_PARTS;
  const out: Record<string, unknown> = {};
  const source = listed as unknown as Record<string, unknown>;
  for (const part of parts) if (source[part] !== undefined) out[part] = source[part];
  return out;
}

/** The definition's digest, or a reason naming the size or the cycle that stopped it. */
export function fingerprint(definition: Readonly<Record<string, unknown>>): Fingerprint {
  const problem = measure(definition);
  if (problem !== undefined) return { problem, definition: { name: definition.name, problem } };
  let text: string | undefined;
  try {
    text = canonicalize(definition);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return unpinnable(definition, `its definition cannot be written as canonical JSON (${why})`);
  }
  if (text === undefined) return unpinnable(definition, 'its definition is not JSON');
  const digest = nodeCrypto().createHash('sha256').update(text).digest('hex');
  return { digest, definition };
}

function unpinnable(definition: Readonly<Record<string, unknown>>, problem: string): Fingerprint {
  return { problem, definition: { name: definition.name, problem } };
}

/**
 * Walks the value once, adding up what its JSON would hold and stopping as soon as that passes
 * the bound, at a cycle, or too deep: the reason, or undefined when it may be canonicalized.
 */
function measure(root: unknown): string | undefined {
  let size = 0;
  const path = new Set<unknown>();
  const walk = (value: unknown, depth: number): string | undefined => {
    if (size > MAX_DEFINITION_BYTES) return undefined;
    if (typeof value === 'string') size += value.length + 2;
    else if (value === null || typeof value !== 'object') size += 8;
    else {
      if (path.has(value)) return 'its definition refers to itself (a cycle): it cannot be pinned';
      if (depth > MAX_DEPTH)
        return `its definition nests deeper than ${MAX_DEPTH} levels: it cannot be pinned`;
      path.add(value);
      const entries = Array.isArray(value) ? value.map((v) => ['', v]) : Object.entries(value);
      for (const [key, child] of entries) {
        size += (key as string).length + 4;
        const problem = walk(child, depth + 1);
        if (problem !== undefined) return problem;
        if (size > MAX_DEFINITION_BYTES) break;
      }
      path.delete(value);
    }
    return undefined;
  };
  const problem = walk(root, 0);
  if (problem !== undefined) return problem;
  if (size > MAX_DEFINITION_BYTES) {
    return (
      `its definition is over ${MAX_DEFINITION_BYTES / 1024} KiB of JSON ` +
      `(the most a pin holds): it cannot be pinned`
    );
  }
  return undefined;
}

/** The top-level parts in which two definitions differ, in a fixed order. */
export function changedParts(
  before: Readonly<Record<string, unknown>> | undefined,
  after: Readonly<Record<string, unknown>>,
): string[] {
  if (!before) return [];
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys]
    .filter((key) => canonicalize(before[key]) !== canonicalize(after[key]))
    .sort((a, b) => order(a) - order(b));
}

function order(part: string): number {
  const i = (TOOL_PARTS as readonly string[]).indexOf(part);
  return i < 0 ? (PROMPT_PARTS as readonly string[]).indexOf(part) + 10 : i;
}
