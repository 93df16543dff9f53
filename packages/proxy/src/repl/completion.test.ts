import assert from 'node:assert/strict';
import { test } from 'node:test';
import { complete } from './completion.ts';

const words = {
  commands: ['call', 'help', 'prompt', 'prompts', 'quit', 'read', 'tools'],
  tools: ['echo', 'get-sum', 'get-env'],
  prompts: ['simple-prompt', 'args-prompt'],
  resources: ['demo://a', 'demo://b', 'file:///c'],
};

test('the first word completes to commands and tool names; a unique one gets its space', () => {
  assert.deepEqual(complete('ec', words), [['echo '], 'ec']);
  assert.deepEqual(complete('pro', words), [['prompt', 'prompts'], 'pro']);
  assert.deepEqual(complete('get', words), [['get-env', 'get-sum'], 'get']);
  assert.deepEqual(complete('zzz', words), [[], 'zzz']);
});

test('after call / prompt / read: tool names, prompt names, resource URIs', () => {
  assert.deepEqual(complete('call get-s', words), [['get-sum '], 'get-s']);
  assert.deepEqual(complete('prompt a', words), [['args-prompt '], 'a']);
  assert.deepEqual(complete('read demo:', words), [['demo://a', 'demo://b'], 'demo:']);
  assert.deepEqual(complete('call ', words), [['echo', 'get-env', 'get-sum'], '']);
});

test('nothing is offered for arguments', () => {
  assert.deepEqual(complete('echo hel', words), [[], 'hel']);
  assert.deepEqual(complete('call echo {"m', words)[0], []);
});
