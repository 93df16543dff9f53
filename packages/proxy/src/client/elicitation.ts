/**
 * Answers a server's `elicitation/create` (form mode) at the prompt: shows the server's message,
 * lets the user accept, decline or cancel, then asks each field of the requested schema the
 * same way `call NAME` asks for tool parameters.
 */
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/server';
import { type Ask, askArguments } from './askArguments.ts';

export async function answerElicitation(
  params: ElicitRequest['params'],
  ask: Ask,
  say: { notice(text: string): void; error(text: string): void },
): Promise<ElicitResult> {
  if (!('requestedSchema' in params)) return { action: 'decline' }; // URL mode is not offered
  say.notice(`The server asks: ${params.message}`);
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
