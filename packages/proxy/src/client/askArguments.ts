/**
 * `call NAME` with nothing after it: ask for each parameter of the tool's input schema, one
 * question per parameter, typed by the schema. Optional parameters are skipped with empty input;
 * a value that does not fit the type is explained and asked again.
 */
import { coerce, describeType, type Parameter, parametersOf } from './schema.ts';

/** Shows `question` and resolves with the line typed, or null when input has ended. */
export type Ask = (question: string) => Promise<string | null>;

/**
 * @returns the arguments, or null when input ended before every required parameter was given
 */
export async function askArguments(
  inputSchema: unknown,
  ask: Ask,
  explain: (message: string) => void,
): Promise<Record<string, unknown> | null> {
  const args: Record<string, unknown> = {};
  for (const param of parametersOf(inputSchema)) {
    for (;;) {
      const answer = await ask(question(param));
      if (answer === null) return null;
      if (answer.trim() === '') {
        if (!param.required) break;
        explain(`${param.name} is required`);
        continue;
      }
      const value = coerce(answer, param.schema);
      if (value.ok) {
        args[param.name] = value.value;
        break;
      }
      explain(`${param.name}: ${value.error}`);
    }
  }
  return args;
}

/** `  a (number, required) — First number: ` */
export function question(param: Parameter): string {
  const facts = [describeType(param.schema), param.required ? 'required' : 'optional, Enter skips'];
  if (param.schema.default !== undefined)
    facts.push(`default ${JSON.stringify(param.schema.default)}`);
  const description = param.schema.description ? ` — ${param.schema.description}` : '';
  return `  ${param.name} (${facts.join(', ')})${description}: `;
}
