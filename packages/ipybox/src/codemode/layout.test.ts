import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Tool } from '@modelcontextprotocol/server';
import { callableFromCode } from './layout.ts';

const tool = (name: string, _meta?: Tool['_meta']): Tool => ({
  name,
  inputSchema: { type: 'object' },
  ...(_meta && { _meta }),
});

test('code may call plugin tools, not execute tools, proxy__* or app-only tools', () => {
  assert.equal(callableFromCode('echo', tool('echo'), 'code_mode'), true);
  assert.equal(callableFromCode('code_mode', tool('search_tools'), 'code_mode'), false);
  assert.equal(callableFromCode('ipybox', tool('execute_ipython_cell'), 'code_mode'), false);
  assert.equal(callableFromCode('proxy', tool('proxy__load'), 'code_mode'), false);
  // The viewer's page tool is for the app alone: neither the model nor its code sees it.
  const appOnly = tool('view_frame_page', { ui: { visibility: ['app'] } });
  assert.equal(callableFromCode('ipybox', appOnly, 'code_mode'), false);
  const both = tool('chart', { ui: { resourceUri: 'ui://x', visibility: ['model', 'app'] } });
  assert.equal(callableFromCode('charts', both, 'code_mode'), true);
});
