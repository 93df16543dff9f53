import assert from 'node:assert/strict';
import { test } from 'node:test';
import { askArguments, question } from './askArguments.ts';

/** Answers the questions from a script, recording what was asked. */
function scripted(answers: (string | null)[]) {
  const asked: string[] = [];
  return {
    asked,
    ask: async (q: string) => {
      asked.push(q);
      return answers.length > 0 ? (answers.shift() ?? null) : null;
    },
  };
}

const schema = {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'Where' },
    days: { type: 'integer', default: 3 },
    metric: { type: 'boolean' },
  },
  required: ['city'],
};

test('asks each parameter in order, typed; Enter takes the default or skips', async () => {
  const { asked, ask } = scripted(['Paris', '', '']);
  const explained: string[] = [];
  const args = await askArguments(schema, ask, (m) => explained.push(m));
  assert.deepEqual(args, { city: 'Paris', days: 3 });
  assert.deepEqual(asked, [
    '  city (string, required) — Where: ',
    '  days (integer, optional, Enter for 3): ',
    '  metric (boolean, optional, Enter skips): ',
  ]);
  assert.deepEqual(explained, []);
});

test('Enter at a required parameter with a default takes the default', async () => {
  const approval = {
    type: 'object',
    properties: { approve: { type: 'boolean', default: true } },
    required: ['approve'],
  };
  const { asked, ask } = scripted(['']);
  const explained: string[] = [];
  assert.deepEqual(await askArguments(approval, ask, (m) => explained.push(m)), {
    approve: true,
  });
  assert.deepEqual(asked, ['  approve (boolean, required, Enter for true): ']);
  assert.deepEqual(explained, [], 'not "approve is required"');
});

test('optional: false asks only the required parameters', async () => {
  const { asked, ask } = scripted(['Rome', 'next command']);
  const args = await askArguments(schema, ask, () => {}, { optional: false });
  assert.deepEqual(args, { city: 'Rome' });
  assert.equal(asked.length, 1, 'the next line is left for whoever reads next');
});

test('a required parameter left empty, or a value of the wrong type, is asked again', async () => {
  const { asked, ask } = scripted(['', 'Oslo', 'soon', '5', 'true']);
  const explained: string[] = [];
  const args = await askArguments(schema, ask, (m) => explained.push(m));
  assert.deepEqual(args, { city: 'Oslo', days: 5, metric: true });
  assert.equal(asked.length, 5);
  assert.deepEqual(explained, ['city is required', 'days: expected a number, got "soon"']);
});

test('input ending before a required answer gives null', async () => {
  const { ask } = scripted([null]);
  assert.equal(await askArguments(schema, ask, () => {}), null);
});

test('the question names the allowed values of an enum', () => {
  const q = question({ name: 'unit', required: true, schema: { enum: ['C', 'F'] } });
  assert.equal(q, '  unit (one of C|F, required): ');
});
