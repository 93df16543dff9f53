import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseSettings } from './settings.ts';

describe('parseSettings', () => {
  test('defaults: ./workspace, /usr/bin/python3, auto approval, 4 kernels, 30 min idle', () => {
    const s = parseSettings({}, { cwd: '/srv' });
    assert.equal(s.workspace, '/srv/workspace');
    assert.equal(s.imagesDir, '/srv/workspace/images');
    assert.equal(s.basePython, '/usr/bin/python3');
    assert.equal(s.approval, 'auto');
    assert.equal(s.approvalTimeoutMs, undefined);
    assert.equal(s.maxKernels, 4);
    assert.equal(s.kernelIdleTimeoutMs, 1_800_000);
    assert.equal(s.sandbox, false);
  });

  test('YAML keys are read; seconds become ms; paths resolve against cwd', () => {
    const s = parseSettings(
      {
        workspace: 'ws',
        python: './py/bin/python',
        approval: 'elicit',
        approval_timeout: 30,
        max_kernels: 2,
        kernel_idle_timeout: 60,
        sandbox: true,
        sandbox_config: 'sb.json',
        enabled: true, // framework keys of a plugins: entry are not ipybox's concern
        description: 'x',
      },
      { cwd: '/srv' },
    );
    assert.equal(s.workspace, '/srv/ws');
    assert.equal(s.basePython, '/srv/py/bin/python');
    assert.equal(s.approval, 'elicit');
    assert.equal(s.approvalTimeoutMs, 30_000);
    assert.equal(s.maxKernels, 2);
    assert.equal(s.kernelIdleTimeoutMs, 60_000);
    assert.equal(s.sandbox, true);
    assert.equal(s.sandboxConfig, '/srv/sb.json');
  });

  test('bad values and unknown keys are one error naming every key', () => {
    assert.throws(
      () => parseSettings({ approval: 'maybe', max_kernels: 0, workspce: 'x' }),
      (error: Error) => {
        assert.match(error.message, /plugins\.ipybox\.approval: /);
        assert.match(error.message, /plugins\.ipybox\.max_kernels: must be at least 1/);
        assert.match(error.message, /workspce/);
        return true;
      },
    );
  });

  test('max_output_chars: 5000 by default, at most max_output_chars_limit (200000 by default)', () => {
    const defaults = parseSettings({});
    assert.equal(defaults.maxOutputChars, 5000);
    assert.equal(defaults.maxOutputCharsLimit, 200_000);
    const set = parseSettings({ max_output_chars: 800, max_output_chars_limit: 1000 });
    assert.deepEqual([set.maxOutputChars, set.maxOutputCharsLimit], [800, 1000]);
    assert.throws(
      () => parseSettings({ max_output_chars: 2000, max_output_chars_limit: 1000 }),
      /max_output_chars \(2000\) is above max_output_chars_limit \(1000\); lower it or raise the limit/,
    );
    assert.throws(
      () => parseSettings({ max_output_chars: 0 }),
      /max_output_chars: must be at least 1/,
    );
    assert.throws(
      () => parseSettings({ max_output_chars_limit: 3_000_000 }),
      /max_output_chars_limit: must be at most 2000000/,
    );
  });
});

describe('parseSettings: kernels on a Jupyter server', () => {
  test('kernel_gateway and tool_server_url; the token may come from IPYBOX_KERNEL_GATEWAY_TOKEN', () => {
    const s = parseSettings(
      { kernel_gateway: { url: 'http://kernels:8888/' }, tool_server_url: 'http://10.0.0.5' },
      { cwd: '/srv', env: { IPYBOX_KERNEL_GATEWAY_TOKEN: 'tok' } },
    );
    assert.deepEqual(s.kernelGateway, { url: 'http://kernels:8888', token: 'tok' });
    assert.deepEqual(s.toolServer, { bind: '10.0.0.5', advertisedHost: '10.0.0.5' });
    const written = parseSettings(
      { kernel_gateway: { url: 'https://k', token: 'written' }, tool_server_bind: '0.0.0.0' },
      { env: { IPYBOX_KERNEL_GATEWAY_TOKEN: 'tok' } },
    );
    assert.equal(written.kernelGateway?.token, 'written');
    assert.deepEqual(written.toolServer, { bind: '0.0.0.0', advertisedHost: '127.0.0.1' });
    assert.equal(parseSettings({}).kernelGateway, undefined);
  });

  test('bad values are named with what to write instead', () => {
    assert.throws(() => parseSettings({ kernel_gateway: { url: 'kernels:8888' } }), {
      message:
        /plugins\.ipybox\.kernel_gateway\.url: must be the Jupyter Server or Kernel Gateway's http:\/\/ or https:\/\/ URL/,
    });
    assert.throws(() => parseSettings({ tool_server_url: 'http://10.0.0.5:9000' }), {
      message: /plugins\.ipybox\.tool_server_url: must be http:\/\/HOST.*no port/,
    });
    assert.throws(() => parseSettings({ kernel_gateway: { url: 'http://k', tokn: 'x' } }), {
      message: /plugins\.ipybox\.kernel_gateway: .* tokn/,
    });
    assert.throws(() => parseSettings({ kernel_gateway: { url: 'http://k' }, sandbox: true }), {
      message: /kernel_gateway runs kernels on another server/,
    });
  });
});
