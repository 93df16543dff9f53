// `server.onSessionClosed` for plugins, through a real server over HTTP and real SDK v2 clients:
// a plugin hears a 2025 session end (DELETE) with the session id its calls carried; a 2026
// request never fires it; the remover stops the listener.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { PluginServer } from '../contract/plugin.ts';
import type { ClosedSession } from '../contract/session.ts';
import { createServer } from '../server.ts';

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 20));
}

test('a plugin hears a 2025 session close, never a 2026 request, and stops hearing when removed', async (t) => {
  const server = createServer({ name: 'closing', transport: 'http', port: 0 });
  const heard: ClosedSession[] = [];
  let stop: () => void = () => undefined;
  const loaded = await server.registry.loadPlugin('listener', {
    module: {
      register(plugin: PluginServer) {
        stop = plugin.onSessionClosed((closed) => heard.push(closed));
        plugin.registerTool(
          'whoami',
          {},
          (ctx) => `${ctx.sessionId ?? '-'} ${ctx.connectionId ?? '-'}`,
        );
      },
    },
  });
  assert.equal(loaded.ok, true, loaded.error);
  const url = new URL((await server.start()) as string);
  t.after(() => server.close());
  const whoami = async (client: Client) => {
    const result = (await client.callTool({ name: 'whoami', arguments: {} })) as {
      content: { text: string }[];
    };
    return result.content[0]?.text.split(' ') ?? [];
  };

  const modern = new Client(
    { name: 'modern', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await modern.connect(new StreamableHTTPClientTransport(url));
  t.after(() => modern.close());
  assert.deepEqual(await whoami(modern), ['-', '-'], 'a 2026 request has no session');

  const transport = new StreamableHTTPClientTransport(url);
  const legacy = new Client(
    { name: 'legacy', version: '1.0.0' },
    { versionNegotiation: { mode: 'legacy' } },
  );
  await legacy.connect(transport);
  t.after(() => legacy.close());
  const [sessionId, connectionId] = await whoami(legacy);
  assert.equal(sessionId, transport.sessionId);

  await transport.terminateSession(); // DELETE: the server closes the session
  await until(() => heard.length > 0);
  assert.deepEqual(heard, [{ connectionId, sessionId }]);

  stop();
  const second = new StreamableHTTPClientTransport(url);
  const again = new Client(
    { name: 'again', version: '1.0.0' },
    { versionNegotiation: { mode: 'legacy' } },
  );
  await again.connect(second);
  t.after(() => again.close());
  await whoami(again);
  await second.terminateSession();
  await whoami(modern); // a request after the close: the server has handled it
  assert.equal(heard.length, 1, 'a removed listener hears nothing more');
});
