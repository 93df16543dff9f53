import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answerElicitation } from './elicitation.ts';

const params = {
  message: 'Who are you?',
  requestedSchema: {
    type: 'object' as const,
    properties: {
      name: { type: 'string' as const },
      hero: {
        type: 'string' as const,
        oneOf: [
          { const: 'hero-1', title: 'Superman' },
          { const: 'hero-2', title: 'Wonder Woman' },
        ],
      },
    },
    required: ['name'],
  },
};

function run(answers: (string | null)[]) {
  const said: string[] = [];
  const ask = async () => (answers.length > 0 ? (answers.shift() ?? null) : null);
  const say = { notice: (t: string) => said.push(t), error: (t: string) => said.push(`! ${t}`) };
  return { said, result: answerElicitation(params, ask, say) };
}

test('accepting asks each field; a titled choice may be typed by its title', async () => {
  const { said, result } = run(['', 'Ann', 'wonder woman']);
  assert.deepEqual(await result, { action: 'accept', content: { name: 'Ann', hero: 'hero-2' } });
  assert.deepEqual(said, ['The server asks: Who are you?']);
});

test('n declines, c cancels, end of input cancels, anything else is asked again', async () => {
  assert.deepEqual(await run(['n']).result, { action: 'decline' });
  assert.deepEqual(await run(['cancel']).result, { action: 'cancel' });
  assert.deepEqual(await run([null]).result, { action: 'cancel' });
  const again = run(['maybe', 'y', 'Bo', '']);
  assert.deepEqual(await again.result, { action: 'accept', content: { name: 'Bo' } });
  assert.ok(again.said.includes('! Type y, n or c.'));
});

test('input ending in the middle of the fields cancels', async () => {
  assert.deepEqual(await run(['y', null]).result, { action: 'cancel' });
});
