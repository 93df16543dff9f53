/**
 * The slice of JSON Schema the interactive client reads from a tool's `inputSchema`: enough to
 * list parameters, say which are required, and turn typed-in text into the value the tool expects.
 * Anything richer (`anyOf`, `$ref`, formats) is left for the server to validate.
 */

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  description?: string;
  enum?: unknown[];
  /** Labels for `enum` values (an older convention some servers still send). */
  enumNames?: string[];
  /** Titled choices: `oneOf: [{ const: 'hero-1', title: 'Superman' }, …]`. */
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  const?: unknown;
  title?: string;
  default?: unknown;
  items?: JsonSchema;
}

/** One allowed value of a parameter, with the label a person would recognise it by. */
export interface Choice {
  value: unknown;
  label?: string;
}

/** The allowed values, from `enum` (+ `enumNames`) or from titled `oneOf`/`anyOf` consts. */
export function choicesOf(schema: JsonSchema): Choice[] | undefined {
  if (Array.isArray(schema.enum)) {
    return schema.enum.map((value, i) => ({ value, label: schema.enumNames?.[i] }));
  }
  const options = schema.oneOf ?? schema.anyOf;
  if (
    Array.isArray(options) &&
    options.length > 0 &&
    options.every((o) => 'const' in asSchema(o))
  ) {
    return options.map((o) => ({ value: o.const, label: o.title }));
  }
  return undefined;
}

/** One parameter of a tool, in the order the schema lists it. */
export interface Parameter {
  name: string;
  schema: JsonSchema;
  required: boolean;
}

/** Reads a schema the SDK types as `unknown`-ish without trusting its shape. */
export function asSchema(value: unknown): JsonSchema {
  return typeof value === 'object' && value !== null ? (value as JsonSchema) : {};
}

export function parametersOf(inputSchema: unknown): Parameter[] {
  const schema = asSchema(inputSchema);
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(schema.properties ?? {}).map(([name, prop]) => ({
    name,
    schema: asSchema(prop),
    required: required.has(name),
  }));
}

/**
 * The parameter a single bare value fills in `call NAME value` / `NAME value`: the tool's only
 * required parameter, or its only parameter when none is required. Undefined when ambiguous.
 */
export function soleParameter(inputSchema: unknown): Parameter | undefined {
  const params = parametersOf(inputSchema);
  const required = params.filter((p) => p.required);
  if (required.length === 1) return required[0];
  if (required.length === 0 && params.length === 1) return params[0];
  return undefined;
}

/** The schema's primary type: the first non-null entry of a type union. */
export function primaryType(schema: JsonSchema): string | undefined {
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== 'null');
  return schema.type;
}

/** A short human label for a parameter's type: `string`, `number`, `one of a|b`. */
export function describeType(schema: JsonSchema): string {
  const choices = choicesOf(schema);
  if (choices) {
    const shown = choices.map((c) =>
      c.label ? `${String(c.value)} (${c.label})` : String(c.value),
    );
    return `one of ${shown.join('|')}`;
  }
  const type = primaryType(schema);
  if (type === 'array' && schema.items) return `array of ${describeType(schema.items)}`;
  return type ?? 'any';
}

export type Coerced = { ok: true; value: unknown } | { ok: false; error: string };

const TRUE_WORDS = new Set(['true', 'yes', 'y', '1', 'on']);
const FALSE_WORDS = new Set(['false', 'no', 'n', '0', 'off']);

/**
 * Turns text typed at the prompt into a value of the parameter's type. Strings are taken
 * verbatim (no quotes needed); numbers, booleans, objects and arrays are parsed; an untyped
 * parameter takes JSON when the text is JSON and the text itself otherwise.
 */
export function coerce(text: string, schema: JsonSchema): Coerced {
  const choices = choicesOf(schema);
  if (!choices) return coerceToType(text, schema);
  // A choice may be typed as its value or, case-insensitively, as its label.
  const value = coerceToType(text, schema);
  if (value.ok && choices.some((c) => c.value === value.value)) return value;
  const wanted = text.trim().toLowerCase();
  const byLabel = choices.find((c) => c.label?.toLowerCase() === wanted);
  if (byLabel) return { ok: true, value: byLabel.value };
  return { ok: false, error: `expected ${describeType(schema)}, got "${text}"` };
}

function coerceToType(text: string, schema: JsonSchema): Coerced {
  const type = primaryType(schema);
  const trimmed = text.trim();
  switch (type) {
    case 'string':
      return { ok: true, value: text };
    case 'number':
    case 'integer': {
      const n = trimmed === '' ? Number.NaN : Number(trimmed);
      if (!Number.isFinite(n)) return { ok: false, error: `expected a number, got "${text}"` };
      if (type === 'integer' && !Number.isInteger(n)) {
        return { ok: false, error: `expected an integer, got "${text}"` };
      }
      return { ok: true, value: n };
    }
    case 'boolean': {
      const word = trimmed.toLowerCase();
      if (TRUE_WORDS.has(word)) return { ok: true, value: true };
      if (FALSE_WORDS.has(word)) return { ok: true, value: false };
      return { ok: false, error: `expected true or false, got "${text}"` };
    }
    case 'object':
    case 'array': {
      const parsed = parseJson(trimmed);
      if (!parsed.ok) return { ok: false, error: `expected JSON (${type}): ${parsed.error}` };
      const isArray = Array.isArray(parsed.value);
      const isObject = typeof parsed.value === 'object' && parsed.value !== null && !isArray;
      if (type === 'array' ? !isArray : !isObject) {
        return { ok: false, error: `expected a JSON ${type}, got ${trimmed}` };
      }
      return parsed;
    }
    default: {
      const parsed = parseJson(trimmed);
      return parsed.ok ? parsed : { ok: true, value: text };
    }
  }
}

export function parseJson(text: string): Coerced {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}
