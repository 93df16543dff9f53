// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write literal ${VAR} placeholders
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { expandUpstreamParams } from './expand.ts';
import { describeUpstream, parseUpstreamParams } from './params.ts';

describe('parseUpstreamParams', () => {
  test('accepts stdio and HTTP params, keeping placeholders', () => {
    const stdio = { command: 'npx', args: ['-y', 'srv'], env: { T: '${TOKEN}' }, cwd: '/tmp' };
    assert.deepEqual(parseUpstreamParams(stdio), stdio);
    const http = { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${T}' } };
    assert.deepEqual(parseUpstreamParams(http), http);
  });

  test('names what is missing or wrong', () => {
    const cases: Array<[unknown, string]> = [
      [{}, "server_params: needs either 'command' (stdio) or 'url' (HTTP)"],
      [{ args: ['x'] }, "server_params: needs either 'command' (stdio) or 'url' (HTTP)"],
      ['npx srv', "server_params: expected an object with 'command' (stdio) or 'url' (HTTP)"],
      [null, "server_params: expected an object with 'command' (stdio) or 'url' (HTTP)"],
      [
        { command: 'a', url: 'http://x' },
        "server_params: give either 'command' (stdio) or 'url' (HTTP), not both",
      ],
      [{ command: '' }, 'server_params.command: must not be empty'],
      [{ command: 'a', args: ['ok', 3] }, 'server_params.args.1: expected a string'],
      [{ command: 'a', args: 'x' }, 'server_params.args: expected an array of strings'],
      [{ command: 'a', env: { A: 1 } }, 'server_params.env.A: expected a string value'],
      [
        { command: 'a', arg: ['x'] },
        "server_params: unknown key 'arg' (allowed: 'command', 'args', 'env', 'cwd')",
      ],
      [
        { url: 'http://x', header: {} },
        "server_params: unknown key 'header' (allowed: 'url', 'headers')",
      ],
      [{ url: 5 }, 'server_params.url: expected a string'],
    ];
    for (const [input, message] of cases) {
      assert.throws(() => parseUpstreamParams(input), { code: 'INVALID_PARAMS', message });
    }
  });

  test('uses the label given for messages', () => {
    assert.throws(() => parseUpstreamParams({}, 'plugins.github'), {
      message: "plugins.github: needs either 'command' (stdio) or 'url' (HTTP)",
    });
  });

  test('describes params for logs without expanding placeholders', () => {
    assert.equal(
      describeUpstream({ command: 'srv', args: ['--key', '${KEY}'] }),
      'srv --key ${KEY}',
    );
    assert.equal(describeUpstream({ url: 'https://x/mcp?k=${K}' }), 'https://x/mcp?k=${K}');
  });
});

describe('expandUpstreamParams', () => {
  test('expands command, args, env, cwd, url and headers; leaves the input untouched', () => {
    const params = {
      command: '${BIN}',
      args: ['--k=${K}', 'plain'],
      env: { A: '${A:-dflt}', B: '${B}' },
      cwd: '${HOME_DIR}',
    };
    const env = { BIN: 'srv', K: 'key', B: 'bee', HOME_DIR: '/home/x' };
    assert.deepEqual(expandUpstreamParams('s', params, env), {
      command: 'srv',
      args: ['--k=key', 'plain'],
      env: { A: 'dflt', B: 'bee' },
      cwd: '/home/x',
    });
    assert.equal(params.env.B, '${B}');
    const http = { url: 'https://${HOST}/mcp', headers: { Authorization: 'Bearer ${T}' } };
    assert.deepEqual(expandUpstreamParams('h', http, { HOST: 'api.example', T: 't0k' }), {
      url: 'https://api.example/mcp',
      headers: { Authorization: 'Bearer t0k' },
    });
  });

  test('an unset variable is named with its field; no value appears', () => {
    assert.throws(
      () =>
        expandUpstreamParams(
          'gh',
          { url: 'https://x/mcp', headers: { Authorization: 'Bearer ${GH_TOKEN}', X: '${SET}' } },
          { SET: 'value-that-must-not-appear' },
        ),
      (error: Error & { code?: string }) => {
        assert.equal(error.code, 'EXPANSION_FAILED');
        assert.match(
          error.message,
          /^upstream 'gh': headers\.Authorization: environment variable GH_TOKEN is not set/,
        );
        assert.doesNotMatch(error.message, /value-that-must-not-appear/);
        return true;
      },
    );
  });

  test('a URL that is not one after expansion is reported in its written form', () => {
    assert.throws(() => expandUpstreamParams('u', { url: '${HOST}/mcp' }, { HOST: 'nohttp' }), {
      code: 'EXPANSION_FAILED',
      message: `upstream 'u': url "\${HOST}/mcp" is not a valid URL after expansion`,
    });
  });
});
