/**
 * Removes secrets from what the tool-call loggers write. Every logger runs params and results
 * through its `Redactor` while formatting — in the background write path, never on the call's
 * own — so no logger can forget.
 *
 * The evidence: a value under a secret's name (`password`, `db_password`, `x-api-key`,
 * `accessKey`, … at any depth; see `secretKeys.ts`), the `value` of a `{name, value}` record
 * whose name is a secret's, a one-time code or PIN, a value that looks like a secret wherever it
 * is (see `secretText.ts` and `pairs.ts`), and a value known to be one — a mirrored server's
 * configured credentials (see `secretValues.ts`). Plus the tool-specific case: the gate's `code`.
 *
 * @module
 */
import { isLabelField, isOneTimeCode, isValueField, SecretNames } from './secretKeys.ts';
import { REDACTED, redactSecretsInText, type SecretTextOptions } from './secretText.ts';
import { literalPattern, rememberedSecretValues, secretValuesGeneration } from './secretValues.ts';

export { REDACTED } from './secretText.ts';

/** The configuration keys redaction reads (a subset of the framework's `Config`). */
export interface RedactionSettings {
  /** Extra names whose values are never logged: regular expressions, case-insensitive. */
  redact_keys?: readonly string[] | undefined;
  /** Extra regular expressions; every match in any logged string is replaced. */
  redact_values?: readonly string[] | undefined;
  /** Also redact long random-looking strings (best effort). Default `true`. */
  redact_heuristics?: boolean | undefined;
}

/**
 * Tools with an argument that is secret although its name is ordinary: the gate's one-time
 * code. Matched on the name's end, so a prefixed copy (`gated_gate_unlock`) is covered too.
 */
const SECRET_ARGS_BY_TOOL_SUFFIX: ReadonlyArray<[suffix: string, names: readonly string[]]> = [
  ['gate_unlock', ['code']],
];
const NO_NAMES: ReadonlySet<string> = new Set();

function secretArgsOf(tool: string): ReadonlySet<string> {
  const names = SECRET_ARGS_BY_TOOL_SUFFIX.filter(([suffix]) => tool.endsWith(suffix));
  return names.length === 0 ? NO_NAMES : new Set(names.flatMap(([, n]) => n));
}

/**
 * A dispatching call — `proxy__run(tool, arguments)`, or any `{tool|name, arguments}` — carries
 * another tool's arguments, with that tool's secret arguments.
 */
function dispatchedTool(value: Record<string, unknown>): string | undefined {
  const args = value.arguments;
  if (args === null || typeof args !== 'object') return undefined;
  const tool = value.tool ?? value.name;
  return typeof tool === 'string' ? tool : undefined;
}

/** Text is redacted in full up to this far past the point where it is cut. */
const CUT_MARGIN = 4096;
const MAX_DEPTH = 20;

export class Redactor {
  /** The built-in rules, heuristics on. */
  static readonly default = new Redactor();
  static readonly #compiled = new WeakMap<RedactionSettings, Redactor>();

  /** The redactor for `settings`, compiled once per settings object (e.g. the `Config`). */
  static for(settings: RedactionSettings | undefined): Redactor {
    if (settings === undefined) return Redactor.default;
    let redactor = Redactor.#compiled.get(settings);
    if (redactor === undefined) {
      redactor = new Redactor(settings);
      Redactor.#compiled.set(settings, redactor);
    }
    return redactor;
  }

  readonly #names: SecretNames;
  readonly #text: SecretTextOptions;
  /** The known secret values under names this redactor counts as secret, as of `generation`. */
  #known: { generation: number; pattern: RegExp | undefined } = {
    generation: -1,
    pattern: undefined,
  };

  /** Throws a `SyntaxError` for an invalid pattern (the configuration schema checks them first). */
  constructor(settings: RedactionSettings = {}) {
    this.#names = new SecretNames(settings.redact_keys ?? []);
    this.#text = {
      names: this.#names,
      heuristics: settings.redact_heuristics ?? true,
      extraPatterns: (settings.redact_values ?? []).map((source) => new RegExp(source, 'g')),
    };
  }

  /** Whether values under `name` are never logged. */
  isSecretName(name: string): boolean {
    return this.#names.has(name);
  }

  /**
   * `text` without its secrets, cut to `max` characters. Only the part that can be shown (plus a
   * margin, so a secret crossing the cut is still recognised whole) is scanned.
   */
  text(text: string, max = Number.POSITIVE_INFINITY): string {
    const window = text.length > max + CUT_MARGIN ? text.slice(0, max + CUT_MARGIN) : text;
    const clean = redactSecretsInText(window, this.#text, this.#knownValues());
    if (clean.length <= max && window === text) return clean;
    const dropped = clean.length - max + (text.length - window.length);
    return `${clean.slice(0, max)}… (+${dropped} chars)`;
  }

  /**
   * `value` with secrets replaced and every string cut to `maxString`. Copy on write: an object
   * or array with nothing to change is returned as it is. Handles cycles and depth; never throws.
   */
  value(value: unknown, maxString = Number.POSITIVE_INFINITY): unknown {
    return this.#safely(() => this.#walk(value, 0, NO_NAMES, new Set(), maxString));
  }

  /** A call's arguments, including the arguments secret only for this tool. */
  params(tool: string, params: unknown, maxString = Number.POSITIVE_INFINITY): unknown {
    return this.#safely(() => this.#walk(params, 0, secretArgsOf(tool), new Set(), maxString));
  }

  #knownValues(): RegExp | undefined {
    const generation = secretValuesGeneration();
    if (this.#known.generation !== generation) {
      const values = rememberedSecretValues()
        .filter(([name]) => this.#names.has(name))
        .map(([, value]) => value);
      this.#known = { generation, pattern: literalPattern(values) };
    }
    return this.#known.pattern;
  }

  #safely(walk: () => unknown): unknown {
    try {
      return walk();
    } catch {
      return REDACTED;
    }
  }

  #walk(
    value: unknown,
    depth: number,
    toolSecrets: ReadonlySet<string>,
    ancestors: Set<object>,
    maxString: number,
  ): unknown {
    if (typeof value === 'string') return this.text(value, maxString);
    if (value === null || typeof value !== 'object') return value;
    if (ancestors.has(value)) return '[Circular]';
    if (depth >= MAX_DEPTH) return '[Too deep]';
    ancestors.add(value);
    try {
      if (Array.isArray(value)) {
        let copy: unknown[] | undefined;
        for (let i = 0; i < value.length; i++) {
          const item = this.#walk(value[i], depth + 1, NO_NAMES, ancestors, maxString);
          if (copy === undefined && item !== value[i]) copy = value.slice(0, i);
          copy?.push(item);
        }
        return copy ?? value;
      }
      const record = value as Record<string, unknown>;
      const dispatched = dispatchedTool(record);
      const keys = Object.keys(record);
      const namedSecret = this.#namesSecret(record, keys);
      let copy: Record<string, unknown> | undefined;
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        const inner = record[key];
        let out: unknown;
        if (
          toolSecrets.has(key) ||
          this.#names.has(key) ||
          (namedSecret && isValueField(key)) ||
          isOneTimeCode(key, inner)
        ) {
          out = isHarmless(inner) ? inner : REDACTED;
        } else {
          const secrets =
            dispatched !== undefined && key === 'arguments' ? secretArgsOf(dispatched) : NO_NAMES;
          out = this.#walk(inner, depth + 1, secrets, ancestors, maxString);
        }
        if (copy === undefined && out !== inner) {
          copy = {};
          for (let j = 0; j < i; j++) copy[keys[j]] = record[keys[j]];
        }
        if (copy !== undefined) copy[key] = out;
      }
      return copy ?? value;
    } finally {
      ancestors.delete(value);
    }
  }

  /** Whether `record` is a `{name, value}` record naming a secret (`{"Name": "DB_PASSWORD", …}`). */
  #namesSecret(record: Record<string, unknown>, keys: readonly string[]): boolean {
    return keys.some((key) => {
      const label = record[key];
      return isLabelField(key) && typeof label === 'string' && this.#names.has(label);
    });
  }
}

/** Values under a secret's name that say nothing secret: `enabled`-style flags, null, empty. */
function isHarmless(value: unknown): boolean {
  return value === undefined || value === null || typeof value === 'boolean' || value === '';
}

/** Redacts a string's embedded secrets with the built-in rules. */
export function redactText(text: string): string {
  return Redactor.default.text(text);
}

/** `value` with secrets replaced, by the built-in rules. */
export function redactValue(value: unknown): unknown {
  return Redactor.default.value(value);
}

/** A call's arguments with secrets replaced, by the built-in rules. */
export function redactParams(tool: string, params: unknown): unknown {
  return Redactor.default.params(tool, params);
}
