// What is pinned of a definition, its digest, and the definitions that get a reason instead;
// and `pins:` / `pin:` as the config file reads them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readConfig } from '../config/load.ts';
import { definitionOf, fingerprint, MAX_DEFINITION_BYTES } from './definition.ts';

const HOME = '/home/pins';

test('the digest covers what a model reads, not key order or _meta', () => {
  const tool = {
    name: 'greet',
    description: 'Says hello',
    inputSchema: { type: 'object' as const, properties: { name: { type: 'string' } } },
    _meta: { 'x-vendor': 1 },
  };
  const a = fingerprint(definitionOf('tool', tool));
  const b = fingerprint(
    definitionOf('tool', {
      inputSchema: { properties: { name: { type: 'string' } }, type: 'object' as const },
      description: 'Says hello',
      name: 'greet',
    }),
  );
  assert.ok('digest' in a && 'digest' in b);
  assert.equal(a.digest, b.digest);
  assert.match(a.digest, /^[0-9a-f]{64}$/);
  const changed = fingerprint(definitionOf('tool', { ...tool, description: 'Says hi' }));
  assert.ok('digest' in changed && changed.digest !== a.digest);
});

test('a cycle or an oversized definition gets a reason, never a digest', () => {
  const schema: Record<string, unknown> = { type: 'object' };
  schema.properties = { self: schema };
  const cyclic = fingerprint({ name: 'loop', inputSchema: schema });
  assert.ok('problem' in cyclic);
  assert.match(cyclic.problem, /refers to itself \(a cycle\)/);
  const big = fingerprint({ name: 'big', description: 'x'.repeat(MAX_DEFINITION_BYTES) });
  assert.ok('problem' in big);
  assert.match(big.problem, /over 256 KiB of JSON/);
  assert.deepEqual(big.definition, { name: 'big', problem: big.problem }, 'the text is not kept');
});

test('pins: present means strict with a file under home; a plugin pin: alone works; bad modes are named', () => {
  const on = readConfig({ env: { HOME }, defaults: { pins: {} } });
  assert.ok(on.ok);
  assert.deepEqual(on.config.pins, { mode: 'strict', file: `${HOME}/.mcp_pins.json` });
  const absent = readConfig({ env: { HOME } });
  assert.ok(absent.ok);
  assert.equal(absent.config.pins, undefined);
  const perPlugin = readConfig({ env: { HOME }, defaults: { plugins: { up: { pin: 'warn' } } } });
  assert.ok(perPlugin.ok);
  assert.equal(perPlugin.config.pins?.mode, 'off');
  const bad = readConfig({
    env: { HOME },
    defaults: { pins: { mode: 'loose' as never }, plugins: { up: { pin: 'sometimes' as never } } },
  });
  assert.ok(!bad.ok);
  assert.match(bad.errors.join('\n'), /pins\.mode: .*one of strict, warn, off/);
  assert.match(bad.errors.join('\n'), /plugins\.up\.pin: .*one of strict, warn, off/);
});
