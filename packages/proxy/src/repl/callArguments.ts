/**
 * The arguments of `mcp-client call`: `--json '{…}'` and `--arg NAME=VALUE` pairs, each value
 * typed by the tool's input schema (numbers, booleans, JSON for objects and arrays), then checked
 * against the whole schema before anything is sent. Every failure names the parameter and what
 * it expects, so a script's author can fix the command line without reading the schema.
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import {
  asSchema,
  coerce,
  describeType,
  type Parameter,
  parametersOf,
  parseJson,
} from './schema.ts';

export type CallArguments =
  | { ok: true; args: Record<string, unknown> }
  | { ok: false; message: string };

/**
 * @param pairs the `--arg` values, `NAME=VALUE` each
 * @param json the `--json` value, a JSON object; `--arg` pairs are laid over it
 */
export function callArguments(
  tool: string,
  inputSchema: unknown,
  pairs: string[],
  json: string | undefined,
): CallArguments {
  const params = parametersOf(inputSchema);
  const usage = `parameters of "${tool}": ${describeParameters(params)}`;
  const failed = (message: string): CallArguments => ({
    ok: false,
    message: `${message}\n${usage}`,
  });

  let base: Record<string, unknown> = {};
  if (json !== undefined) {
    const parsed = parseJson(json);
    if (!parsed.ok) return failed(`--json is not valid JSON: ${parsed.error}`);
    const value = parsed.value;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return failed(`--json must be a JSON object of arguments, got ${json.trim()}`);
    }
    base = value as Record<string, unknown>;
  }

  const given: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) return failed(`--arg takes NAME=VALUE, got "${pair}"`);
    const name = pair.slice(0, eq);
    const text = pair.slice(eq + 1);
    if (name in given) return failed(`--arg ${name} is given twice`);
    const param = params.find((p) => p.name === name);
    if (!param) {
      if (!acceptsUnlisted(inputSchema, params)) return failed(unknownParameter(name, tool));
      // Not described by the schema: JSON when it parses, else the text itself.
      const parsed = parseJson(text);
      given[name] = parsed.ok ? parsed.value : text;
      continue;
    }
    const value = coerce(text, param.schema);
    if (!value.ok) return failed(`--arg ${name}: ${value.error}`);
    given[name] = value.value;
  }

  const args = { ...base, ...given };
  if (!acceptsUnlisted(inputSchema, params)) {
    const unknown = Object.keys(args).find((key) => !params.some((p) => p.name === key));
    if (unknown !== undefined) return failed(unknownParameter(unknown, tool));
  }
  const missing = params.filter((p) => p.required && !(p.name in args));
  if (missing.length > 0) {
    const list = missing.map((p) => `"${p.name}" (${describeType(p.schema)})`).join(', ');
    const example = missing.map((p) => `--arg ${p.name}=…`).join(' ');
    return failed(
      `missing required parameter${missing.length > 1 ? 's' : ''} ${list}: add ${example}`,
    );
  }
  const invalid = schemaViolations(inputSchema, args);
  if (invalid)
    return failed(`the arguments do not match the input schema of "${tool}": ${invalid}`);
  return { ok: true, args };
}

/**
 * What can be wrong with `--arg`/`--json` whatever the tool: checked before connecting, so a
 * malformed command line fails at once, without starting the server.
 */
export function callSyntaxError(pairs: string[], json: string | undefined): string | undefined {
  const bad = pairs.find((pair) => pair.indexOf('=') <= 0);
  if (bad !== undefined) return `--arg takes NAME=VALUE, got "${bad}"`;
  if (json === undefined) return undefined;
  const parsed = parseJson(json);
  if (!parsed.ok) return `--json is not valid JSON: ${parsed.error}`;
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return `--json must be a JSON object of arguments, got ${json.trim()}`;
  }
  return undefined;
}

/** `a (number, required), b (string)`, or `none` */
function describeParameters(params: Parameter[]): string {
  if (params.length === 0) return 'none';
  return params
    .map((p) => `${p.name} (${describeType(p.schema)}${p.required ? ', required' : ''})`)
    .join(', ');
}

function unknownParameter(name: string, tool: string): string {
  return `"${tool}" has no parameter "${name}"`;
}

/**
 * Whether names the schema does not list may be sent: only when it lists none (an open object)
 * or says so with `additionalProperties`. A listed schema otherwise catches typos here rather
 * than leaving them to a server that may ignore them.
 */
function acceptsUnlisted(inputSchema: unknown, params: Parameter[]): boolean {
  const additional = (asSchema(inputSchema) as { additionalProperties?: unknown })
    .additionalProperties;
  if (additional === false) return false;
  if (additional === true || (typeof additional === 'object' && additional !== null)) return true;
  return params.length === 0;
}

/**
 * What the whole schema says is wrong (nested objects, arrays, ranges, enums…), with `data/x`
 * rewritten as `parameter "x"`; undefined when the arguments are valid. A schema the validator
 * cannot compile (an unknown dialect) is left for the server to judge.
 */
function schemaViolations(inputSchema: unknown, args: Record<string, unknown>): string | undefined {
  if (typeof inputSchema !== 'object' || inputSchema === null) return undefined;
  let result: ReturnType<ReturnType<AjvJsonSchemaValidator['getValidator']>>;
  try {
    const validate = new AjvJsonSchemaValidator().getValidator(inputSchema as never);
    result = validate(args);
  } catch {
    return undefined;
  }
  if (result.valid) return undefined;
  return result.errorMessage
    .split(/, (?=data\b)/)
    .map((message) =>
      message.replace(
        /^data\/(\S+)/,
        (_, path: string) => `parameter "${path.replaceAll('/', '.')}"`,
      ),
    )
    .map((message) => message.replace(/^data\b/, 'the arguments'))
    .join('; ');
}
