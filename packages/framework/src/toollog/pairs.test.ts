/**
 * What pairs in text and records reveal beyond a secret's name: the value of a `{name, value}`
 * record naming a secret, a password told in a sentence, `pw`, one-time codes and PINs — and what
 * stays readable.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redactor } from './redact.ts';

const r = Redactor.default;

test('records, sentences, pw and one-time codes: what is a secret and what stays readable', () => {
  const cases: Array<[string, string]> = [
    ['{"value": "a1", "name": "password"}', '{"value": "[REDACTED]", "name": "password"}'],
    [
      '{\\"Name\\":\\"API_KEY\\",\\"Value\\":\\"a2\\"}',
      '{\\"Name\\":\\"API_KEY\\",\\"Value\\":\\"[REDACTED]\\"}',
    ],
    [
      '- value: a3\n  name: secret\n- value: b\n  name: user',
      '- value: [REDACTED]\n  name: secret\n- value: b\n  name: user',
    ],
    [
      '[{"name":"user","value":"ann"},{"name":"token","value":"a4"}]',
      '[{"name":"user","value":"ann"},{"name":"token","value":"[REDACTED]"}]',
    ],
    ['Your passphrase was: a5 b6\nok', 'Your passphrase was: [REDACTED]\nok'],
    ['curl -d pw=a7&user=ann', 'curl -d pw=[REDACTED]&user=ann'],
    ['my code is 461329.', 'my code is [REDACTED].'],
    [
      'verify(verification_code=\'461 329\', pin="0042")',
      'verify(verification_code=\'[REDACTED]\', pin="[REDACTED]")',
    ],
  ];
  for (const [input, expected] of cases) assert.equal(r.text(input), expected, input);
  const readable = [
    'Error: password is required; the password is too short',
    'the session is closed, the key is missing, this is fine',
    'status_code: 404, exit_code=1, postcode: 10115, code: 42',
    '[{"name":"LOG_LEVEL","value":"debug"}] value: 3',
  ];
  for (const text of readable) assert.equal(r.text(text), text);
  assert.deepEqual(
    r.params('t', {
      env: [
        { value: 'a8', name: 'DB_PASSWORD' },
        { name: 'HOME', value: '/home/ann' },
      ],
      pw: 'a9',
      code: 461329,
      status_code: 200,
    }),
    {
      env: [
        { value: '[REDACTED]', name: 'DB_PASSWORD' },
        { name: 'HOME', value: '/home/ann' },
      ],
      pw: '[REDACTED]',
      code: '[REDACTED]',
      status_code: 200,
    },
  );
});
