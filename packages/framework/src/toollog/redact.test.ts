import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../config/index.ts';
import { CompositeToolLogger } from './composite.ts';
import { JsonlToolLogger } from './jsonl.ts';
import { type RedactionSettings, Redactor } from './redact.ts';
import { TextToolLogger } from './text.ts';
import { TranscriptLogger } from './transcript.ts';
import type { ToolLogger } from './types.ts';

type After = { after: (fn: () => Promise<void>) => void };

async function tempDir(t: After): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'redact-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Every logger kind, each alone and all three again behind a composite; returns their files. */
async function everyLogger(t: After, redaction?: RedactionSettings) {
  const dir = await tempDir(t);
  const trio = (sub: string): ToolLogger[] => [
    new JsonlToolLogger({ dir: join(dir, sub, 'jsonl'), redaction }),
    new TextToolLogger({ file: join(dir, sub, 'text.log'), maxParamChars: 100_000, redaction }),
    new TranscriptLogger({ dir: join(dir, sub, 'transcript'), redaction }),
  ];
  const loggers = [...trio('alone'), new CompositeToolLogger(trio('composite'))];
  const all: ToolLogger = {
    logCall: (...args) => {
      for (const logger of loggers) logger.logCall(...args);
    },
    flush: async () => {},
    close: async () => {
      for (const logger of loggers) await logger.close();
    },
  };
  const files = async () => {
    const out: string[] = [];
    for (const sub of ['alone', 'composite']) {
      out.push(join(dir, sub, 'jsonl', 'tool_calls.jsonl'), join(dir, sub, 'text.log'));
      const transcripts = join(dir, sub, 'transcript');
      for (const name of await readdir(transcripts)) out.push(join(transcripts, name));
    }
    return Promise.all(out.map(async (file) => ({ file, body: await readFile(file, 'utf8') })));
  };
  return { all, files };
}

// Fixed strings shaped like the real thing (none is a live credential).
const GITHUB = 'ghp_R8tQv2LmX9kPz4Wn7Yb3Jc6Hd1Fs5Ga0Ue2I';
const SLACK = 'xoxb-2048-4096-Qm7Rt2Xv9Lp4Kz8Wn';
const AWS = 'AKIAQ7RT2XV9LP4KZ8WN';
const OPENAI = 'sk-proj-Zq8vR2mK9xT4bN7wP1cL6dF3hJ0s';
const ANTHROPIC = 'sk-ant-api03-Tz4Wq9Lm2Rx7Kp3Vn8Bc5Hd1Fs6Gj0Ye';
const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhbm4iLCJpYXQiOjE3MDAwMDAwMDB9.Qm7Rt2Xv9Lp4Kz8WnB3cD6fH1jS5gA0eU2iO4kY7';
const RANDOM = 'Zq8vR2mK9xT4bN7wP1cL6dF3hJ0sG5yA8eU2iO4k';

describe('redaction through every logger (jsonl, text, transcript, composite)', () => {
  test('secret names, credentials in URLs and text, token formats, results and gate codes never reach a file', async (t) => {
    const { all, files } = await everyLogger(t);
    const keyed = {
      pwd: 'hush-pwd',
      pass: 'hush-pass',
      access_key: 'hush-access-key',
      auth: 'hush-auth',
      key: 'hush-key',
      session: 'hush-session',
      db_password: 'hush-db-password',
      'x-api-key': 'hush-x-api-key',
      accessKey: 'hush-accessKey',
      nested: { deeper: [{ Authorization: 'hush-authorization', client_secret: 4242_4242 }] },
    };
    const inText = {
      dsn: 'postgres://app:hush-dbpass@db.internal:5432/prod',
      note: `pushed with ${GITHUB} and ${SLACK}; aws ${AWS}; openai ${OPENAI}; claude ${ANTHROPIC}`,
      header: 'curl -H "Authorization: Bearer hush-bearer" https://api.example.com',
      bearer: 'Bearer hush-bare-bearer',
      jwt: JWT,
      blob: `blob ${RANDOM} end`,
      env: 'export DB_PASSWORD=hush-export && run',
      keep: 'keep-me',
    };
    all.logCall('call_api', { ...keyed, ...inText }, 'done', true, {
      sessionId: 'sess-123',
      principal: 'alice',
    });
    // The result of a mirrored server's `env` tool, as text, and a structured result.
    const envResult = JSON.stringify(
      { HOME: '/home/ann', API_KEY: 'hush-env-api-key', GITHUB_TOKEN: GITHUB },
      null,
      2,
    );
    all.logCall('everything_env', {}, { content: [{ type: 'text', text: envResult }] }, true);
    all.logCall(
      'query',
      { sql: 'select 1' },
      { content: [], structuredContent: { rows: [{ user: 'ann', token: 'hush-structured' }] } },
      true,
    );
    all.logCall(
      'fail',
      {},
      new Error('cannot reach postgres://u:hush-error-pw@db.internal/x'),
      false,
    );
    // The gate's code, directly, behind a plugin prefix, and dispatched through proxy__run.
    all.logCall('gate_unlock', { group: 'ops', code: '461329' }, 'Group unlocked', true);
    all.logCall('gated_gate_unlock', { group: 'ops', code: '461330' }, 'ok', true);
    all.logCall(
      'proxy__run',
      { tool: 'gate_unlock', arguments: { group: 'ops', code: '461331' } },
      'ok',
      true,
    );
    await all.close();

    const secrets = [
      ...Object.values(keyed).filter((v) => typeof v === 'string'),
      'hush-authorization',
      '42424242',
      'hush-dbpass',
      GITHUB.slice(4),
      SLACK.slice(5),
      AWS,
      OPENAI.slice(3),
      ANTHROPIC.slice(3),
      JWT.split('.')[1],
      JWT.split('.')[2],
      'hush-bearer',
      'hush-bare-bearer',
      RANDOM,
      'hush-export',
      'hush-env-api-key',
      'hush-structured',
      'hush-error-pw',
      '461329',
      '461330',
      '461331',
    ];
    const written = await files();
    assert.equal(written.length, 6);
    for (const { file, body } of written) {
      for (const secret of secrets)
        assert.ok(!body.includes(secret), `${secret} leaked into ${file}`);
      assert.ok(body.includes('[REDACTED]'), `${file} marks redactions`);
      assert.ok(body.includes('postgres://app:***@db.internal:5432/prod'), `${file} keeps the URL`);
      assert.ok(body.includes('keep-me'), `${file} keeps ordinary params`);
      assert.ok(body.includes('https://api.example.com'), `${file} keeps the rest of the text`);
      assert.ok(body.includes('"ops"') || body.includes(': ops'), `${file} keeps the gate group`);
      assert.ok(body.includes('sess-123'), `${file} names the caller's session`);
      assert.ok(body.includes('alice'), `${file} names the principal`);
    }
    const jsonl = written.filter(({ file }) => file.endsWith('.jsonl'));
    for (const { body } of jsonl) {
      const [first, env, query] = body
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      // The caller is metadata: `session` here is not the secret argument of the same name.
      assert.equal(first.session, 'sess-123');
      assert.equal(first.principal, 'alice');
      assert.equal(first.params.session, '[REDACTED]');
      assert.match(env.result, /"HOME": "\/home\/ann"/);
      assert.match(query.result, /"user":"ann"/);
    }
  });

  test('extra key and value patterns from the configuration; heuristics can be turned off', async (t) => {
    const { all, files } = await everyLogger(t, {
      redact_keys: ['^ssn$', 'iban'],
      redact_values: [String.raw`EMP-\d{6}`],
      redact_heuristics: false,
    });
    all.logCall(
      'hr_lookup',
      { ssn: '078-05-1120', payee_IBAN: 'DE89370400440532013000', note: 'badge EMP-123456 ok' },
      { content: [{ type: 'text', text: `id ${RANDOM}, token ${GITHUB}` }] },
      true,
    );
    await all.close();
    const written = await files();
    for (const { file, body } of written) {
      for (const secret of ['078-05-1120', 'DE89370400440532013000', 'EMP-123456']) {
        assert.ok(!body.includes(secret), `${secret} leaked into ${file}`);
      }
      assert.ok(body.includes('badge [REDACTED] ok'), file);
      assert.ok(!body.includes(GITHUB.slice(4)), `known token formats stay redacted (${file})`);
    }
    // Without heuristics a random-looking string is written (the result is in jsonl/transcript).
    const withResults = written.filter(({ file }) => !file.endsWith('text.log'));
    for (const { file, body } of withResults) assert.ok(body.includes(RANDOM), file);
  });
});

describe('Redactor', () => {
  const r = Redactor.default;

  test('secret names by their words, in any casing and separator', () => {
    const secret = [
      'password',
      'db_password',
      'DB_PASSWORD',
      'dbpassword',
      'x-api-key',
      'apiKey',
      'APIKey',
      'accessKey',
      'AWS_SECRET_ACCESS_KEY',
      'sessionId',
      'session',
      'pwd',
      'pass',
      'auth',
      'key',
      'client_secret',
      'refreshToken',
      'Set-Cookie',
      'private_key',
      'mfa_code',
    ];
    const ordinary = [
      'author',
      'bypass',
      'monkey',
      'keyword',
      'max_tokens',
      'tokenizer',
      'passage',
    ];
    for (const name of secret) assert.equal(r.isSecretName(name), true, name);
    for (const name of ordinary) assert.equal(r.isSecretName(name), false, name);
  });

  test('free text: what is a secret and what stays readable', () => {
    const cases: Array<[string, string]> = [
      ['mysql://root:s3cr3t@localhost/db', 'mysql://root:***@localhost/db'],
      [
        'git clone https://x-access-token:abc@github.com/o/r',
        'git clone https://x-access-token:***@github.com/o/r',
      ],
      ['postgres://u:p@ss@host/db', 'postgres://u:***@host/db'],
      ['API_KEY=abc123\nHOME=/root', 'API_KEY=[REDACTED]\nHOME=/root'],
      ['{"password": "a b c", "user": "ann"}', '{"password": "[REDACTED]", "user": "ann"}'],
      ['{\\"api_key\\":\\"zzz\\"}', '{\\"api_key\\":\\"[REDACTED]\\"}'],
      // Unquoted, the rest of the line goes: `password: correct horse battery` has spaces too.
      ['--password=hunter2 --verbose\nnext', '--password=[REDACTED]\nnext'],
      ['https://h/x?access_token=abc&page=2', 'https://h/x?access_token=[REDACTED]&page=2'],
      [
        'PASSWORD_FOR_THE_MAIN_DATABASE_SERVER=xyz',
        'PASSWORD_FOR_THE_MAIN_DATABASE_SERVER=[REDACTED]',
      ],
      ['-----BEGIN PRIVATE KEY-----\nMIIEv\n-----END PRIVATE KEY----- ok', '[REDACTED] ok'],
      ['-----BEGIN RSA PRIVATE KEY-----\nMIIEow (cut', '[REDACTED]'],
    ];
    for (const [input, expected] of cases) assert.equal(r.text(input), expected, input);
    const readable = [
      'commit 05431ba03623b6889e215050c090c68d8e218a5e',
      'request 550e8400-e29b-41d4-a716-446655440000',
      '/Users/JohnSmith/Projects/app2/src/components/Button.tsx',
      'getUserAccountInformationById2 ExperimentalFeatureFlag2024',
      'mcp-server-everything-2025-11-25-release x86_64-unknown-linux-gnu',
      'enabled: true, max_tokens: 1000, Error: file not found',
      'the author: Ann; bypass: no',
    ];
    for (const text of readable) assert.equal(r.text(text), text);
    assert.equal(r.text(`x ${RANDOM} y`), 'x [REDACTED] y');
  });

  test('a secret crossing the cut is still recognised; long text is scanned only near the cut', () => {
    const text = `${'a'.repeat(95)} ${GITHUB} ${'b'.repeat(100_000)}`;
    const cut = r.text(text, 100);
    assert.ok(!cut.includes('ghp_R8'), cut);
    assert.match(cut, /^a{95} \[RED… \(\+\d+ chars\)$/);
  });

  test('copy on write: nothing to redact returns the same objects; only changed branches are new', () => {
    const clean = { a: 'hello', b: [1, 2, { c: 'world' }], d: null };
    assert.equal(r.params('tool', clean), clean);
    const mixed = { keep: { x: 1 }, list: [{ y: 2 }], inner: { password: 'p', z: 3 } };
    const out = r.params('tool', mixed) as typeof mixed;
    assert.equal(out.keep, mixed.keep);
    assert.equal(out.list, mixed.list);
    assert.deepEqual(out.inner, { password: '[REDACTED]', z: 3 });
    assert.equal(mixed.inner.password, 'p', 'the input is not changed');
  });

  test('cycles and depth never throw; flags, null and empty values under secret names stay', () => {
    const cyclic: Record<string, unknown> = { token: 't' };
    cyclic.self = cyclic;
    assert.deepEqual(r.value(cyclic), { token: '[REDACTED]', self: '[Circular]' });
    assert.deepEqual(r.params('x', { use_auth: true, password: null, token: '' }), {
      use_auth: true,
      password: null,
      token: '',
    });
  });
});

describe('redaction settings in the configuration', () => {
  test('redact_keys / redact_values / redact_heuristics are read, and a bad pattern names the key', async (t) => {
    const dir = await tempDir(t);
    const file = join(dir, 'mcpbox.yaml');
    await writeFile(
      file,
      'redact_keys: ["^ssn$"]\nredact_values: ["EMP-\\\\d+"]\nredact_heuristics: false\n',
    );
    const config = loadConfig({ file, env: {} });
    assert.deepEqual(
      [config.redact_keys, config.redact_values, config.redact_heuristics],
      [['^ssn$'], ['EMP-\\d+'], false],
    );
    const defaults = loadConfig({ env: {} });
    assert.deepEqual(
      [defaults.redact_keys, defaults.redact_values, defaults.redact_heuristics],
      [[], [], true],
    );

    await writeFile(file, 'redact_keys: ["(unclosed"]\nredact_values: ["x*"]\n');
    assert.throws(
      () => loadConfig({ file, env: {} }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /redact_keys\[0\]: expected a regular expression, a valid one \(.*\); got "\(unclosed"/.test(
          error.message,
        ) &&
        /redact_values\[0\]: expected a regular expression, one that cannot match the empty string/.test(
          error.message,
        ),
    );
  });
});
