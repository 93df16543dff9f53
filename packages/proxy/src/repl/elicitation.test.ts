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

/** The form ipybox's `--approval elicit` sends (approvalQuestion in packages/ipybox). */
function approval(defaultValue: boolean | undefined) {
  return {
    message: 'Allow this call?',
    requestedSchema: {
      type: 'object' as const,
      properties: {
        approve: {
          type: 'boolean' as const,
          title: 'Approve',
          description: 'Run files.rm',
          default: defaultValue,
        },
      },
      required: ['approve'],
    },
  };
}

function runApproval(answers: (string | null)[], defaultValue: boolean | undefined = true) {
  const asked: string[] = [];
  const said: string[] = [];
  const ask = async (q: string) => {
    asked.push(q);
    return answers.length > 0 ? (answers.shift() ?? null) : null;
  };
  const say = { notice: (t: string) => said.push(t), error: (t: string) => said.push(`! ${t}`) };
  return { asked, said, result: answerElicitation(approval(defaultValue), ask, say) };
}

test('a one-boolean form (an approval) is asked once; Enter takes its default', async () => {
  const run = runApproval(['']);
  assert.deepEqual(await run.result, { action: 'accept', content: { approve: true } });
  assert.deepEqual(run.asked, ['  Approve (Run files.rm)? [Y]es, [n]o, [c]ancel: ']);
  assert.deepEqual(run.said, ['The server asks: Allow this call?']);
});

test('an approval: no sets the field false, cancel cancels, nonsense is asked again', async () => {
  assert.deepEqual(await runApproval(['n']).result, {
    action: 'accept',
    content: { approve: false },
  });
  assert.deepEqual(await runApproval(['c']).result, { action: 'cancel' });
  assert.deepEqual(await runApproval([null]).result, { action: 'cancel' });
  const again = runApproval(['maybe', 'yes']);
  assert.deepEqual(await again.result, { action: 'accept', content: { approve: true } });
  assert.equal(again.asked.length, 2);
  assert.ok(again.said.includes('! Type y, n or c.'));
});

test('an approval whose default is false shows it, and Enter takes it', async () => {
  const run = runApproval([''], false);
  assert.deepEqual(await run.result, { action: 'accept', content: { approve: false } });
  assert.deepEqual(run.asked, ['  Approve (Run files.rm)? [y]es, [N]o, [c]ancel: ']);
});
