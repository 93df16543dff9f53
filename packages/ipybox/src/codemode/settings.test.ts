/**
 * Code mode's settings: ipybox's keys checked under the plugin's own name, and the approval
 * policy per plugin or tool (the most specific rule wins; a prefixed tool name matches too).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { approvalPolicyOf, parseCodeModeSettings } from './settings.ts';

const call = (server_name: string, tool_name: string) => ({
  server_name,
  tool_name,
  tool_args: {},
});

test('approval_rules: tool rule over plugin rule over the default', () => {
  const policy = approvalPolicyOf(
    parseCodeModeSettings({
      approval: 'auto',
      approval_rules: { memory: 'elicit', 'memory.delete_entities': 'deny', echo: 'auto' },
    }),
  );
  assert.equal(policy(call('memory', 'read_graph')), 'ask');
  assert.equal(policy(call('memory', 'delete_entities')), 'deny');
  assert.equal(policy(call('memory', 'memory_delete_entities')), 'deny', 'prefixed name');
  assert.equal(policy(call('echo', 'echo')), 'auto');
  assert.equal(policy(call('greet', 'greet')), 'auto', 'no rule: the default');
  const strict = approvalPolicyOf(
    parseCodeModeSettings({ approval: 'deny', approval_rules: { echo: 'auto' } }),
  );
  assert.equal(strict(call('greet', 'greet')), 'deny');
  assert.equal(strict(call('echo', 'echo')), 'auto');
});

test('bad settings name the key under plugins.<name>', () => {
  assert.throws(
    () => parseCodeModeSettings({ approval_rules: { memory: 'sometimes' } }),
    /plugins\.code_mode\.approval_rules\.memory: expected auto \| elicit \| deny, got "sometimes"/,
  );
  assert.throws(
    () => parseCodeModeSettings({ approval_rules: ['memory'] }),
    /plugins\.code_mode\.approval_rules: expected a mapping/,
  );
  assert.throws(
    () => parseCodeModeSettings({ approval_rules: { 'a.b.c': 'deny' } }),
    /"a\.b\.c" is not "plugin" or "plugin\.tool"/,
  );
  assert.throws(
    () => parseCodeModeSettings({ max_kernels: 0 }, 'cm'),
    /invalid cm settings: plugins\.cm\.max_kernels/,
  );
});
