/**
 * The `result_preview:` section: which tool results are too large to hand the model whole, and
 * how the store that keeps them is bounded. Absent: every result passes whole, as before.
 *
 * ```yaml
 * result_preview:
 *   max_chars: 20000          # a result over 20,000 characters…
 *   max_bytes: 100000         # …or 100,000 bytes (UTF-8) is stored; the model gets a preview
 *   ttl: 3600                 # seconds a stored result stays readable
 *   max_result_bytes: 33554432   # one result's cap: beyond it, kept truncated (and says so)
 *   per_caller_bytes: 134217728  # one caller's budget: its least recently read go first
 *   total_bytes: 536870912       # the whole store's budget
 *   plugins:                  # per plugin or mirrored server: its own limits, or false (never)
 *     search: { max_chars: 5000 }
 *   tools:                    # per tool (full name), over the plugin's
 *     search__export: false
 * ```
 *
 * @module
 */
import { z } from 'zod';
import { ConfigError } from '../errors.ts';

/** When a result is too large: over either limit (an absent one never is). */
export interface PreviewLimits {
  maxChars?: number;
  maxBytes?: number;
}

export interface ResultPreviewSettings {
  limits: PreviewLimits;
  /** Per plugin: its limits, or `false` (its results always pass whole). */
  plugins: Readonly<Record<string, PreviewLimits | false>>;
  /** Per tool (the name the catalog lists): over the plugin's. */
  tools: Readonly<Record<string, PreviewLimits | false>>;
  ttlMs: number;
  maxResultBytes: number;
  perCallerBytes: number;
  totalBytes: number;
}

export const DEFAULT_MAX_CHARS = 20_000;
const MB = 1024 * 1024;

function buildSchema() {
  const size = (what: string) =>
    z.coerce
      .number({ error: `expected a whole number of ${what} (1 or more)` })
      .int({ error: `expected a whole number of ${what} (1 or more)` })
      .min(1, { error: `expected a whole number of ${what} (1 or more)` });
  const limitsShape = {
    max_chars: size('characters').optional(),
    max_bytes: size('bytes').optional(),
  };
  const limits = z
    .union([z.literal(false), z.object(limitsShape).strict()], {
      error: 'expected false or a mapping of max_chars, max_bytes',
    })
    .transform((v) => (v === false ? false : { maxChars: v.max_chars, maxBytes: v.max_bytes }));
  const perName = z.record(z.string(), limits, { error: 'expected a mapping of names to limits' });
  return z
    .object({
      ...limitsShape,
      ttl: size('seconds').default(3600),
      max_result_bytes: size('bytes').default(32 * MB),
      per_caller_bytes: size('bytes').default(128 * MB),
      total_bytes: size('bytes').default(512 * MB),
      plugins: perName.default({}),
      tools: perName.default({}),
    })
    .strict();
}

let schema: ReturnType<typeof buildSchema> | undefined;

/**
 * Reads `result_preview` as written; undefined when absent. Present without limits: results over
 * {@link DEFAULT_MAX_CHARS} characters are stored.
 *
 * @throws ConfigError naming each bad key (`result_preview.ttl: expected a whole number …`).
 */
export function parseResultPreview(written: unknown): ResultPreviewSettings | undefined {
  if (written === undefined || written === false) return undefined;
  schema ??= buildSchema();
  const parsed = schema.safeParse(written ?? {});
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map(
        (issue) => `${['result_preview', ...issue.path.map(String)].join('.')}: ${issue.message}`,
      ),
    );
  }
  const s = parsed.data;
  const unset = s.max_chars === undefined && s.max_bytes === undefined;
  return {
    limits: { maxChars: unset ? DEFAULT_MAX_CHARS : s.max_chars, maxBytes: s.max_bytes },
    plugins: s.plugins,
    tools: s.tools,
    ttlMs: s.ttl * 1000,
    maxResultBytes: s.max_result_bytes,
    perCallerBytes: s.per_caller_bytes,
    totalBytes: s.total_bytes,
  };
}

/** The limits a result of `tool` (of `plugin`) is held to; `false`: it passes whole. */
export function limitsFor(
  settings: ResultPreviewSettings,
  plugin: string,
  tool: string,
): PreviewLimits | false {
  return settings.tools[tool] ?? settings.plugins[plugin] ?? settings.limits;
}
