/**
 * `${secret:NAME}` references over a real secret file: the caller's names in NAME, one pass (a
 * secret's own `${…}` is sent as it is), clear refusals; and the config loader leaving them for
 * the call.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ANONYMOUS_PRINCIPAL, principalFromAuth } from '../auth/principal.ts';
import { loadConfig } from '../config/load.ts';
import { createLogger } from '../logging/index.ts';
import { fileSecrets } from './backends.ts';
import { resolveReferences, secretNameFor } from './references.ts';

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcpbox-secrets-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const alice = principalFromAuth({ token: 't', clientId: 'c', extra: { sub: 'alice' } })!;

test('{principal} and {subject} name the caller, one-to-one', () => {
  assert.equal(secretNameFor('github/{principal}', alice), 'github/sub:alice');
  assert.equal(secretNameFor('github/{subject}', alice), 'github/alice');
  const odd = principalFromAuth({ token: 't', extra: { sub: 'a/b=c d' } })!;
  assert.equal(secretNameFor('gh/{principal}', odd), 'gh/sub:a%2Fb%3Dc%20d');
  assert.throws(() => secretNameFor('gh/{principal}', ANONYMOUS_PRINCIPAL), /anonymous: sign in/);
  const client = principalFromAuth({ token: 't', clientId: 'ci' })!;
  assert.throws(() => secretNameFor('gh/{subject}', client), /client:ci has none/);
});

test('references resolve from the file, variables from the environment, in one pass', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'secrets');
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a secret whose text holds a placeholder
  writeFileSync(file, 'github/sub:alice=tok-${HOME}-x\nshared=s3cr3t-shared\n', { mode: 0o600 });
  const source = {
    env: { PREFIX: 'Bearer' },
    backend: fileSecrets(file, createLogger('test')),
    backendName: `the file backend (${file})`,
    principal: alice,
  };
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholders under test
  const header = '${PREFIX} ${secret:github/{principal}} ${secret:shared}';
  assert.equal(
    await resolveReferences(header, 'here', source),
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a secret's own text, not expanded
    'Bearer tok-${HOME}-x s3cr3t-shared',
  );
  const bob = principalFromAuth({ token: 't', extra: { sub: 'bob' } })!;
  await assert.rejects(resolveReferences(header, 'here', { ...source, principal: bob }), {
    message: `here: no secret "github/sub:bob" in the file backend (${file}): add it there to use these tools (No secret 'github/sub:bob' in '${file}'.)`,
  });
});

test('the config loader keeps secret references in an upstream entry, refuses them elsewhere', (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'c.yaml');
  writeFileSync(
    path,
    [
      'plugins:',
      '  gh:',
      '    url: https://example.com/mcp',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: kept as written
      '    headers: { Authorization: "Bearer ${secret:gh/{principal}}" }',
    ].join('\n'),
  );
  const config = loadConfig({ file: path, env: {} });
  // biome-ignore lint/suspicious/noTemplateCurlyInString: kept as written
  assert.equal(config.plugins.gh.headers?.Authorization, 'Bearer ${secret:gh/{principal}}');
  // biome-ignore lint/suspicious/noTemplateCurlyInString: refused outside an upstream entry
  writeFileSync(path, 'instructions: "${secret:x}"\n');
  assert.throws(() => loadConfig({ file: path, env: {} }), /is a secret reference, read only/);
});
