/**
 * Turns what follows a tool or prompt name on the command line into its arguments: a JSON object,
 * `name=value` pairs, a single bare value for a tool with one obvious parameter, or nothing (then
 * the REPL asks for the required parameters, see askArguments.ts). Values may be quoted as in a
 * shell (`echo "a b"`, `args-prompt city='New York'`); see words.ts.
 */
import {
  coerce,
  type JsonSchema,
  type Parameter,
  parametersOf,
  parseJson,
  primaryType,
  soleParameter,
} from './schema.ts';
import { joinWords, splitWords, type Word } from './words.ts';

export type ArgumentsFromText =
  | { kind: 'args'; args: Record<string, unknown> }
  /** Nothing was typed and the tool has required parameters: ask for them. */
  | { kind: 'ask' }
  | { kind: 'error'; message: string };

/**
 * @param text everything after the name, e.g. `{"message":"hi"}`, `a=1 b=2` or `hello world`
 * @param inputSchema the tool's input schema (or a prompt's arguments as a schema)
 * @param usage how the user calls this thing, for error messages: `call echo`, `prompt greet`
 */
export function argumentsFromText(
  text: string,
  inputSchema: unknown,
  usage: string,
): ArgumentsFromText {
  const trimmed = text.trim();
  const params = parametersOf(inputSchema);
  if (trimmed === '') {
    // Nothing to ask when nothing is required: asking would also swallow the next line of a
    // script as the answer.
    return params.some((p) => p.required) ? { kind: 'ask' } : { kind: 'args', args: {} };
  }

  if (trimmed.startsWith('{')) {
    const parsed = parseJson(trimmed);
    if (!parsed.ok) {
      return {
        kind: 'error',
        message: `Bad JSON: ${parsed.error}. Arguments are a JSON object, e.g. ${usage} ${example(params)}`,
      };
    }
    const value = parsed.value;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return {
        kind: 'error',
        message: `Arguments must be a JSON object, e.g. ${usage} ${example(params)}`,
      };
    }
    return { kind: 'args', args: value as Record<string, unknown> };
  }

  const split = splitWords(trimmed);
  if (!split.ok) return { kind: 'error', message: `${usage}: ${split.error}` };
  const { words } = split;
  const first = words[0]!;
  if (first.key !== undefined && params.some((p) => p.name === first.key)) {
    return namedArguments(words, params, usage);
  }

  const sole = soleParameter(inputSchema);
  if (!sole) {
    const names = params.map((p) => p.name).join(', ');
    if (params.length === 0) {
      return { kind: 'error', message: `${usage} takes no parameters: type just "${usage}"` };
    }
    const askHint = params.some((p) => p.required)
      ? `, or type "${usage}" alone to be asked for each`
      : '';
    return {
      kind: 'error',
      message: `${usage} takes ${params.length} parameters (${names}): pass a JSON object, e.g. ${usage} ${example(params)}, or NAME=VALUE pairs, e.g. ${usage} ${pairsExample(params)}${askHint}`,
    };
  }
  // JSON for an object or array keeps its own quotes; every other type is typed like a shell
  // word, quotes grouping and removed.
  const type = primaryType(sole.schema);
  const typed = type === 'object' || type === 'array' ? trimmed : joinWords(words);
  const value = coerce(typed, sole.schema);
  if (!value.ok) return { kind: 'error', message: `${sole.name}: ${value.error}` };
  return { kind: 'args', args: { [sole.name]: value.value } };
}

/** `a=1 b="x y"`: every word must be a pair naming a parameter, each at most once. */
function namedArguments(words: Word[], params: Parameter[], usage: string): ArgumentsFromText {
  const args: Record<string, unknown> = {};
  for (const word of words) {
    if (word.key === undefined) {
      return {
        kind: 'error',
        message: `${usage}: expected NAME=VALUE, got "${word.text}" (quote a value with spaces: NAME="a b")`,
      };
    }
    const param = params.find((p) => p.name === word.key);
    if (!param) {
      const names = params.map((p) => p.name).join(', ');
      return {
        kind: 'error',
        message: `${usage}: no parameter "${word.key}" (parameters: ${names})`,
      };
    }
    if (word.key in args) {
      return { kind: 'error', message: `${usage}: ${word.key} is given twice` };
    }
    const value = coerce(word.text, param.schema);
    if (!value.ok) return { kind: 'error', message: `${param.name}: ${value.error}` };
    args[param.name] = value.value;
  }
  return { kind: 'args', args };
}

/** The parameters an example shows: the required ones, or all if none is required. */
function shownInExample(params: { name: string; required: boolean }[]) {
  return params.some((p) => p.required) ? params.filter((p) => p.required) : params;
}

/** `a=… b=…` */
function pairsExample(params: { name: string; required: boolean }[]): string {
  return shownInExample(params)
    .map((p) => `${p.name}=…`)
    .join(' ');
}

/** `{"a": …, "b": …}` built from the required parameters (or all, if none is required). */
function example(params: { name: string; required: boolean }[]): string {
  return `{${shownInExample(params)
    .map((p) => `"${p.name}": …`)
    .join(', ')}}`;
}

/** A prompt's declared arguments (all strings, per the spec) as a JSON Schema object. */
export function promptArgumentsSchema(
  args: { name: string; description?: string; required?: boolean }[] | undefined,
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const arg of args ?? []) {
    properties[arg.name] = { type: 'string', description: arg.description };
  }
  return {
    type: 'object',
    properties,
    required: (args ?? []).filter((a) => a.required).map((a) => a.name),
  };
}

/** Prompt arguments travel as strings; a number typed in JSON is sent as its text. */
export function stringifyValues(args: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(args).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
}
