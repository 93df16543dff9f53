import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '../errors.ts';
import { parseLimitSettings } from './settings.ts';

test('the README example reads as written; absent limits are none', () => {
  assert.equal(parseLimitSettings(undefined), undefined);
  assert.deepEqual(
    parseLimitSettings({
      per_principal: { rate: '60/minute', concurrent: 4, daily: 5000 },
      tools: [
        { match: 'warehouse__*', rate: '10/minute', cost: 5 },
        { plugin: ['shell', 'fs'], concurrent: 1 },
      ],
      exempt: ['local:*'],
    }),
    {
      per_principal: { rate: { max: 60, period: 'minute' }, concurrent: 4, daily: 5000 },
      tools: [
        {
          match: ['warehouse__*'],
          rate: { max: 10, period: 'minute' },
          cost: 5,
          label: 'warehouse__*',
        },
        { plugin: ['shell', 'fs'], concurrent: 1, cost: 1, label: 'plugin:shell,fs' },
      ],
      exempt: ['local:*'],
    },
  );
  assert.deepEqual(parseLimitSettings({ per_principal: { rate: '5 / seconds' } })?.per_principal, {
    rate: { max: 5, period: 'second' },
  });
});

test('each mistake is named by its key, all at once', () => {
  const problems = (written: unknown) => {
    try {
      parseLimitSettings(written);
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      return error.issues;
    }
    assert.fail('expected a ConfigError');
  };
  assert.deepEqual(
    problems({
      per_principal: { rate: 'ten/minute', concurrent: 0, burst: 3 },
      tools: [{ rate: '1/hour' }, { match: 'x', cost: -1 }],
    }),
    [
      'limits.per_principal.rate: "ten/minute" is not a rate: write <count>/<second|minute|hour|day>, e.g. 60/minute',
      'limits.per_principal.concurrent: expected a whole number of calls (1 or more)',
      'limits.per_principal: unknown burst: expected rate, concurrent, daily',
      'limits.tools.0: a rule names its tools: match (tool names or globs) or plugin',
      'limits.tools.1.cost: expected a whole number (0 or more)',
    ],
  );
  assert.deepEqual(problems({ per_principal: { daily: 'lots' } }), [
    'limits.per_principal.daily: expected a whole number of calls (1 or more)',
  ]);
  assert.deepEqual(problems(['60/minute']), [
    'limits: expected a mapping with per_principal, tools, exempt',
  ]);
});
