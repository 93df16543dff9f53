import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CodeExecutor } from '../executor.ts';
import { loadSandboxConfig, SandboxConfigError, sandboxPolicy } from './sandboxConfig.ts';

describe('sandbox settings files', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandbox-config-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function settingsFile(name: string, content: string): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, content);
    return path;
  }

  function rejectsWith(path: string, ...fragments: RegExp[]) {
    return assert.rejects(loadSandboxConfig(path), (error: unknown) => {
      assert.ok(error instanceof SandboxConfigError);
      assert.equal(error.path, path);
      assert.ok(error.message.includes(path), error.message);
      for (const fragment of fragments) assert.match(error.message, fragment);
      return true;
    });
  }

  test('a missing file names the path', async () => {
    await rejectsWith(join(dir, 'absent.json'), /file not found/);
  });

  test('a file that is not JSON', async () => {
    await rejectsWith(await settingsFile('broken.json', '{"network": '), /not valid JSON/);
  });

  test('a field of the wrong type names the field', async () => {
    const path = await settingsFile('type.json', '{"network": {"allowedDomains": "example.org"}}');
    await rejectsWith(path, /network\.allowedDomains: Expected array, received string/);
  });

  test('a wrong list entry names its index', async () => {
    const path = await settingsFile('entry.json', '{"filesystem": {"denyRead": ["~/.ssh", 7]}}');
    await rejectsWith(path, /filesystem\.denyRead\.1: Expected string, received number/);
  });

  test('a misspelt field is an error, not silently dropped', async () => {
    const path = await settingsFile('typo.json', '{"filesystem": {"denyReed": ["~/.ssh"]}}');
    await rejectsWith(path, /filesystem\.denyReed: unknown field/);
    const top = await settingsFile('top.json', '{"netwrok": {}}');
    await rejectsWith(top, /netwrok: unknown field/);
  });

  test('a file may state only what it changes', async () => {
    const path = await settingsFile(
      'partial.json',
      '{"network": {"allowedDomains": ["pypi.org"]}}',
    );
    assert.deepEqual(await loadSandboxConfig(path), { network: { allowedDomains: ['pypi.org'] } });
  });

  test('the policy: workspace .env unreadable, writes only to workspace and runtime dir', () => {
    const policy = sandboxPolicy({
      workspace: '/ws',
      runtimeDir: '/run/k',
      settings: { filesystem: { denyRead: ['secrets', '~/.ssh'], allowWrite: ['/data'] } },
    });
    assert.deepEqual(policy.filesystem.denyRead, ['/ws/.env', '/ws/secrets', '~/.ssh']);
    assert.deepEqual(policy.filesystem.allowWrite, ['/ws', '/run/k', '/data']);
    assert.deepEqual(policy.network.allowedDomains, []);
    assert.equal(policy.network.allowAllUnixSockets, true);
  });

  test('CodeExecutor with a bad --sandbox-config fails at start and starts no kernel', async () => {
    const path = await settingsFile('bad.json', '{"network": {"allowedDomains": [1]}}');
    const executor = new CodeExecutor({ sandboxConfig: path, workingDir: dir });
    try {
      await assert.rejects(executor.start(), (error: unknown) => {
        assert.ok(error instanceof SandboxConfigError);
        assert.match(error.message, /network\.allowedDomains\.0/);
        assert.ok(error.message.includes(path));
        return true;
      });
      assert.equal(executor.kernelPid, undefined);
    } finally {
      await executor.stop();
    }
  });
});
