/**
 * Turns what follows a tool or prompt name on the command line into its arguments: a JSON object,
 * a single bare value for a tool with one obvious parameter, or nothing (then the REPL asks for
 * each parameter in turn, see askArguments.ts).
 */
import { coerce, type JsonSchema, parametersOf, parseJson, soleParameter } from './schema.ts';

export type ArgumentsFromText =
  | { kind: 'args'; args: Record<string, unknown> }
  /** Nothing was typed and the tool has parameters: ask for each one. */
  | { kind: 'ask' }
  | { kind: 'error'; message: string };

/**
 * @param text everything after the name, e.g. `{"message":"hi"}` or `hello world`
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
  if (trimmed === '') return params.length === 0 ? { kind: 'args', args: {} } : { kind: 'ask' };

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

  const sole = soleParameter(inputSchema);
  if (!sole) {
    const names = params.map((p) => p.name).join(', ');
    const takes =
      params.length === 0 ? 'takes no parameters' : `takes ${params.length} parameters (${names})`;
    return {
      kind: 'error',
      message:
        params.length === 0
          ? `${usage} ${takes}: type just "${usage}"`
          : `${usage} ${takes}: pass a JSON object, e.g. ${usage} ${example(params)}, or type "${usage}" alone to be asked for each`,
    };
  }
  const value = coerce(text.trim(), sole.schema);
  if (!value.ok) return { kind: 'error', message: `${sole.name}: ${value.error}` };
  return { kind: 'args', args: { [sole.name]: value.value } };
}

/** `{"a": …, "b": …}` built from the required parameters (or all, if none is required). */
function example(params: { name: string; required: boolean }[]): string {
  const shown = params.some((p) => p.required) ? params.filter((p) => p.required) : params;
  return `{${shown.map((p) => `"${p.name}": …`).join(', ')}}`;
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
