import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { codeAt, newSecret } from '@mcpbox/test-utils';
import { ConfigError } from '../errors.ts';
import { parseSecretFile } from '../secrets/backends.ts';
import { createGate } from './gate.ts';
import { recordingLogger, testClock } from './testing.ts';

async function tempDir(t: { after: (fn: () => Promise<void>) => void }) {
  const dir = await mkdtemp(join(tmpdir(), 'gate-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('env backend', () => {
  test('a missing variable is named, and the unlock fails without counting as a wrong code', async () => {
    const clock = testClock();
    const gate = createGate(
      { groups: { shell: { secret_ref: 'MCP_GATE_SECRET_SHELL' } } },
      { env: {}, clock: clock.now, logger: recordingLogger() },
    );
    for (let i = 0; i < 6; i++) {
      assert.deepEqual(await gate.unlock('shell', '123456'), {
        ok: false,
        message:
          "Cannot unlock group 'shell': Environment variable 'MCP_GATE_SECRET_SHELL' is not set.",
      });
    }
    assert.equal(gate.status(), '✗ shell: LOCKED');
  });

  test('a secret that is not base32 is reported without being shown', async () => {
    const logger = recordingLogger();
    const gate = createGate(
      { groups: { g: { secret_ref: 'S' } } },
      { env: { S: 'not base32!!' }, logger },
    );
    assert.deepEqual(await gate.unlock('g', '123456'), {
      ok: false,
      message: "Cannot unlock group 'g': its secret is not valid base32.",
    });
    assert.ok(!logger.lines.join('\n').includes('not base32!!'));
  });
});

describe('file backend', () => {
  test('reads key=value lines, warns when others can read the file, re-reads after a change', async (t) => {
    const dir = await tempDir(t);
    const file = join(dir, 'secrets');
    const [first, second] = [newSecret(), newSecret()];
    await writeFile(file, `# gate secrets\n\nshell = ${first}\nvault="${newSecret()}"\n`, {
      mode: 0o644,
    });
    await chmod(file, 0o644);
    const clock = testClock();
    const logger = recordingLogger();
    const gate = createGate(
      { secret_backend: 'file', secret_file: file, groups: { shell: {} } },
      { clock: clock.now, logger },
    );
    assert.equal((await gate.unlock('shell', codeAt(first, clock.now()))).ok, true);
    const warnings = logger.lines.filter((l) => l.startsWith('warn'));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /readable by group or others \(mode 644\); run chmod 600/);

    // Rotate the secret: the next unlock uses the new one without a restart.
    await writeFile(file, `shell=${second}\n`);
    await chmod(file, 0o600);
    const later = new Date(Date.now() + 5000);
    await utimes(file, later, later);
    clock.advance(30);
    assert.equal((await gate.unlock('shell', codeAt(first, clock.now()))).ok, false);
    assert.equal((await gate.unlock('shell', codeAt(second, clock.now()))).ok, true);
    assert.equal(
      logger.lines.filter((l) => l.startsWith('warn') && l.includes('readable')).length,
      1,
    );
    for (const secret of [first, second]) assert.ok(!logger.lines.join('\n').includes(secret));
  });

  test('a missing file or key is named', async (t) => {
    const dir = await tempDir(t);
    const file = join(dir, 'secrets');
    const gate = createGate(
      { secret_backend: 'file', secret_file: file, groups: { shell: {} } },
      { logger: recordingLogger() },
    );
    assert.equal(
      (await gate.unlock('shell', '123456')).message,
      `Cannot unlock group 'shell': Secret file '${file}' cannot be read (ENOENT).`,
    );
    await writeFile(file, 'other=AAAA\n', { mode: 0o600 });
    assert.equal(
      (await gate.unlock('shell', '123456')).message,
      `Cannot unlock group 'shell': No secret 'shell' in '${file}'.`,
    );
  });

  test('parses comments, blank lines, quotes and = inside values', () => {
    assert.deepEqual(
      [...parseSecretFile("# c\n a = b \n\nq='x=y'\nnoequals\n=novalue\n")],
      [
        ['a', 'b'],
        ['q', 'x=y'],
      ],
    );
  });
});

describe('vaultwarden backend', () => {
  /**
   * A local HTTP server standing in for Vaultwarden (the Bitwarden CLI's `bw serve` API): it
   * checks the bearer token and answers `/api/list/object/items?search=` like the real one.
   */
  async function fakeVaultwarden(
    t: { after: (fn: () => Promise<void>) => void },
    items: unknown[],
  ) {
    const requests: IncomingMessage[] = [];
    let mode: 'ok' | 'not-json' | 'slow' = 'ok';
    const server = createServer((req, res) => {
      requests.push(req);
      if (req.headers.authorization !== 'Bearer vw-token-123') {
        res.writeHead(401).end('{"success":false}');
        return;
      }
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname !== '/api/list/object/items') {
        res.writeHead(404).end();
        return;
      }
      if (mode === 'not-json') {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>');
        return;
      }
      const search = url.searchParams.get('search') ?? '';
      const data = items.filter((i) => String((i as { name: string }).name).includes(search));
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ success: true, data: { object: 'list', data } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { url, requests, setMode: (m: typeof mode) => (mode = m) };
  }

  test('finds the item by exact name (notes, else login.password), caches it for the TTL', async (t) => {
    const [notesSecret, passwordSecret] = [newSecret(), newSecret()];
    const vw = await fakeVaultwarden(t, [
      { name: 'mcp-gate-shell-old', notes: newSecret() },
      { name: 'mcp-gate-shell', notes: notesSecret, login: { password: 'ignored' } },
      { name: 'mcp-gate-vault', notes: null, login: { password: passwordSecret } },
    ]);
    const clock = testClock();
    const logger = recordingLogger();
    const gate = createGate(
      {
        secret_backend: 'vaultwarden',
        vaultwarden_url: `${vw.url}/`,
        vaultwarden_token: 'vw-token-123',
        vaultwarden_cache_ttl: 300,
        groups: {
          shell: { secret_ref: 'mcp-gate-shell' },
          vault: { secret_ref: 'mcp-gate-vault' },
        },
      },
      { clock: clock.now, logger },
    );
    assert.equal((await gate.unlock('shell', codeAt(notesSecret, clock.now()))).ok, true);
    assert.equal((await gate.unlock('vault', codeAt(passwordSecret, clock.now()))).ok, true);
    assert.equal(vw.requests.length, 2);
    assert.equal(vw.requests[0].url, '/api/list/object/items?search=mcp-gate-shell');
    clock.advance(60);
    await gate.unlock('shell', codeAt(notesSecret, clock.now()));
    assert.equal(vw.requests.length, 2, 'served from the cache within the TTL');
    clock.advance(300);
    await gate.unlock('shell', codeAt(notesSecret, clock.now()));
    assert.equal(vw.requests.length, 3, 'fetched again after the TTL');
    const logText = logger.lines.join('\n');
    for (const secret of ['vw-token-123', notesSecret, passwordSecret])
      assert.ok(!logText.includes(secret));
  });

  test('a wrong token, an unknown item, non-JSON and an unreachable server give clear answers', async (t) => {
    const vw = await fakeVaultwarden(t, [{ name: 'shell', notes: newSecret() }]);
    const make = (url: string, token: string) =>
      createGate(
        {
          secret_backend: 'vaultwarden',
          vaultwarden_url: url,
          vaultwarden_token: token,
          vaultwarden_cache_ttl: 0,
          groups: { shell: {}, missing: {} },
        },
        { logger: recordingLogger() },
      );
    const wrongToken = await make(vw.url, 'wrong-token-456').unlock('shell', '123456');
    assert.equal(wrongToken.message, "Cannot unlock group 'shell': Vaultwarden answered HTTP 401.");
    const good = make(vw.url, 'vw-token-123');
    assert.equal(
      (await good.unlock('missing', '123456')).message,
      "Cannot unlock group 'missing': No Vaultwarden item named 'missing' with notes or a password.",
    );
    vw.setMode('not-json');
    assert.equal(
      (await good.unlock('shell', '123456')).message,
      "Cannot unlock group 'shell': Vaultwarden answered something that is not JSON.",
    );
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    assert.equal(
      (await make(deadUrl, 'vw-token-123').unlock('shell', '123456')).message,
      "Cannot unlock group 'shell': Vaultwarden is unreachable.",
    );
  });

  test('refuses plain http to another host (the token would cross the network in clear)', () => {
    assert.throws(
      () =>
        createGate({
          secret_backend: 'vaultwarden',
          vaultwarden_url: 'http://vault.example.com',
          vaultwarden_token: 'secret-token',
          groups: {},
        }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /^invalid configuration: gate\.vaultwarden_url: must use https:\/\//.test(error.message) &&
        !error.message.includes('secret-token'),
    );
  });
});
