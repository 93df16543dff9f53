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

test('asks each parameter in order, typed; empty skips optional ones', async () => {
  const { asked, ask } = scripted(['Paris', '', 'no']);
  const explained: string[] = [];
  const args = await askArguments(schema, ask, (m) => explained.push(m));
  assert.deepEqual(args, { city: 'Paris', metric: false });
  assert.deepEqual(asked, [
    '  city (string, required) — Where: ',
    '  days (integer, optional, Enter skips, default 3): ',
    '  metric (boolean, optional, Enter skips): ',
  ]);
  assert.deepEqual(explained, []);
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
