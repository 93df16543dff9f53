/**
 * Values known to be secrets wherever they turn up: the credentials a mirrored MCP server is
 * configured with (its `env` and `headers` values, as expanded when connecting). A server may
 * echo its key back in a result ("signed requests with <key>"), bare, where neither a name nor a
 * format gives it away.
 *
 * Process-wide, because the plugin that knows the values and the loggers that write the calls
 * meet nowhere else: the plugin remembers its values and forgets them when it is disposed; each
 * `Redactor` keeps those under a secret's name (by its own rules, `redact_keys` included) and
 * replaces them in every text it logs — also in other tools' results, such as `proxy__run`'s or
 * `execute_code`'s, which pass the server's answer on.
 *
 * @module
 */

/** One remembered value: the name it was configured under, and the value. */
export type NamedValue = readonly [name: string, value: string];

const remembered = new Map<symbol, readonly NamedValue[]>();
let generation = 0;

/**
 * Remembers `values` (e.g. an upstream's expanded `env`) until the returned function is called.
 * Empty values are skipped.
 */
export function rememberSecretValues(
  values: Readonly<Record<string, string | undefined>>,
): () => void {
  const entries = Object.entries(values).filter((e): e is [string, string] => Boolean(e[1]));
  if (entries.length === 0) return () => {};
  const owner = Symbol('secret values');
  remembered.set(owner, entries);
  generation++;
  return () => {
    if (remembered.delete(owner)) generation++;
  };
}

/** Changes whenever a value is remembered or forgotten (for caches). */
export function secretValuesGeneration(): number {
  return generation;
}

/** Every value remembered now, with its name. */
export function rememberedSecretValues(): NamedValue[] {
  return [...remembered.values()].flat();
}

/** Shorter values are left alone: replacing "1" or "dev" in every log line would hide everything. */
const MIN_LENGTH = 6;

/**
 * A pattern matching each of `values` as written and as it appears inside JSON text, and for a
 * `Scheme credentials` value (`Bearer abc…`) the credentials alone; longest first, so a value
 * that contains another is replaced whole. Undefined when there is nothing to match.
 */
export function literalPattern(values: readonly string[]): RegExp | undefined {
  const forms = new Set<string>();
  for (const value of values) {
    const credentials = /^[A-Za-z][\w-]*\s+(\S+)$/.exec(value)?.[1];
    for (const form of [value, credentials]) {
      if (form === undefined || form.length < MIN_LENGTH) continue;
      forms.add(form);
      forms.add(JSON.stringify(form).slice(1, -1));
    }
  }
  if (forms.size === 0) return undefined;
  const sorted = [...forms].sort((a, b) => b.length - a.length);
  return new RegExp(
    sorted.map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'),
    'g',
  );
}
