/**
 * The process-wide sandbox-runtime (real proxies and socat bridges): sandboxes share one network
 * policy, a different one is refused with a reason, and the last release stops the bridges.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { SandboxManager } from '@anthropic-ai/sandbox-runtime';
import { SandboxConfigError, sandboxPolicy } from './sandboxConfig.ts';
import { acquireSandbox, shellQuote } from './sandboxRuntime.ts';

const policy = (allowedDomains: string[]) =>
  sandboxPolicy({
    workspace: '/tmp',
    runtimeDir: '/tmp',
    settings: { network: { allowedDomains } },
  });

test('one network policy per process; released leases stop the proxy', async (t) => {
  const first = await acquireSandbox(policy([]));
  t.after(() => first.release());
  const second = await acquireSandbox(policy([]));
  await assert.rejects(acquireSandbox(policy(['pypi.org'])), (error: unknown) => {
    assert.ok(error instanceof SandboxConfigError);
    assert.match(error.message, /different network settings/);
    return true;
  });
  await second.release();
  assert.notEqual(SandboxManager.getProxyPort(), undefined, 'one lease left: proxy still up');
  await first.release();
  assert.equal(SandboxManager.getProxyPort(), undefined);
  const other = await acquireSandbox(policy(['pypi.org']));
  await other.release();
});

test('wrapped commands keep their arguments byte for byte', async (t) => {
  const lease = await acquireSandbox(policy([]));
  t.after(() => lease.release());
  const argument = `it's "quoted" $HOME \`x\` \\ ;|&`;
  const [command, ...args] = await lease.wrap(['printf', '%s', argument], {
    env: { MARK: 'a b' },
  });
  assert.equal(execFileSync(command, args, { encoding: 'utf8' }), argument);
  assert.equal(shellQuote("a'b"), `'a'\\''b'`);
});
