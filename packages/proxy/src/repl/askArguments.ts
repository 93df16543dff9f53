/**
 * `call NAME` with nothing after it: ask for each parameter of the tool's input schema, one
 * question per parameter, typed by the schema. Enter takes a parameter's default, or skips an
 * optional one without a default; a value that does not fit the type is explained and asked again.
 */
import { coerce, describeType, type Parameter, parametersOf } from './schema.ts';

/** Shows `question` and resolves with the line typed, or null when input has ended. */
export type Ask = (question: string) => Promise<string | null>;

export interface AskArgumentsOptions {
  /**
   * Ask for optional parameters too. Default true. A script passes false: it cannot know which
   * questions will come, so a line meant as the next command would be taken as an answer.
   */
  optional?: boolean;
}

/**
 * @returns the arguments, or null when input ended before every required parameter was given
 */
export async function askArguments(
  inputSchema: unknown,
  ask: Ask,
  explain: (message: string) => void,
  { optional = true }: AskArgumentsOptions = {},
): Promise<Record<string, unknown> | null> {
  const args: Record<string, unknown> = {};
  for (const param of parametersOf(inputSchema)) {
    if (!param.required && !optional) continue;
    for (;;) {
      const answer = await ask(question(param));
      if (answer === null) return null;
      if (answer.trim() === '') {
        if (param.schema.default !== undefined) {
          args[param.name] = param.schema.default;
          break;
        }
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

/** `  a (number, required) — First number: `, `  days (integer, optional, Enter for 3): ` */
export function question(param: Parameter): string {
  const facts = [describeType(param.schema), param.required ? 'required' : 'optional'];
  if (param.schema.default !== undefined) {
    facts.push(`Enter for ${JSON.stringify(param.schema.default)}`);
  } else if (!param.required) {
    facts.push('Enter skips');
  }
  const description = param.schema.description ? ` — ${param.schema.description}` : '';
  return `  ${param.name} (${facts.join(', ')})${description}: `;
}
