/**
 * Answers a server's `elicitation/create` (form mode) at the prompt: shows the server's message,
 * lets the user accept, decline or cancel, then asks each field of the requested schema the
 * same way `call NAME` asks for tool parameters.
 *
 * A form whose only field is a boolean is a yes/no question (ipybox's tool-call approval is
 * `{approve: boolean, default true}`): it is asked once, the answer filling the field, rather
 * than "accept?" followed by the same question again.
 */
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/server';
import { type Ask, askArguments } from './askArguments.ts';
import { choicesOf, coerce, type Parameter, parametersOf, primaryType } from './schema.ts';

type Say = { notice(text: string): void; error(text: string): void };

export async function answerElicitation(
  params: ElicitRequest['params'],
  ask: Ask,
  say: Say,
): Promise<ElicitResult> {
  if (!('requestedSchema' in params)) return { action: 'decline' }; // URL mode is not offered
  say.notice(`The server asks: ${params.message}`);
  const fields = parametersOf(params.requestedSchema);
  if (fields.length === 1 && isYesNo(fields[0]!)) return askYesNo(fields[0]!, ask, say);
  for (;;) {
    const choice = await ask('  Answer? [Y]es, [n]o (decline), [c]ancel: ');
    const word = choice?.trim().toLowerCase();
    if (word === undefined || word === 'c' || word === 'cancel') return { action: 'cancel' };
    if (word === 'n' || word === 'no') return { action: 'decline' };
    if (word === '' || word === 'y' || word === 'yes') break;
    say.error('Type y, n or c.');
  }
  const content = await askArguments(params.requestedSchema, ask, (m) => say.error(m));
  if (!content) return { action: 'cancel' };
  return { action: 'accept', content: content as ElicitResult['content'] };
}

function isYesNo(field: Parameter): boolean {
  return primaryType(field.schema) === 'boolean' && choicesOf(field.schema) === undefined;
}

/**
 * One question for a one-boolean form. Yes and no both accept the form with the field set, so
 * the server reads the answer from the field, as it would from any other form client; Enter
 * takes the field's default (yes without one); cancel or end of input cancels.
 */
async function askYesNo(field: Parameter, ask: Ask, say: Say): Promise<ElicitResult> {
  const fallback = field.schema.default !== false;
  const label = field.schema.title ?? field.name;
  const description = field.schema.description ? ` (${field.schema.description})` : '';
  const options = fallback ? '[Y]es, [n]o, [c]ancel' : '[y]es, [N]o, [c]ancel';
  for (;;) {
    const choice = await ask(`  ${label}${description}? ${options}: `);
    const word = choice?.trim().toLowerCase();
    if (word === undefined || word === 'c' || word === 'cancel') return { action: 'cancel' };
    if (word === '') return { action: 'accept', content: { [field.name]: fallback } };
    const typed = coerce(word, field.schema); // y/yes/true/1/on, n/no/false/0/off
    if (typed.ok) return { action: 'accept', content: { [field.name]: typed.value as boolean } };
    say.error('Type y, n or c.');
  }
}
