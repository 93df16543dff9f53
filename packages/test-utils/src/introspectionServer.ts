/**
 * A real RFC 7662 introspection endpoint on 127.0.0.1 for tests:
 * tokens map to answers; modes make it fail the ways real servers do.
 *
 * @module
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type IntrospectionMode = 'ok' | 'error-500' | 'not-json' | 'slow';

export interface TestAuthorizationServer {
  url: string;
  /** Form bodies received, in order. */
  requests: URLSearchParams[];
  tokens: Map<string, Record<string, unknown>>;
  mode: IntrospectionMode;
  close(): Promise<void>;
}

export async function startIntrospectionServer(): Promise<TestAuthorizationServer> {
  const state: TestAuthorizationServer = {
    url: '',
    requests: [],
    tokens: new Map(),
    mode: 'ok',
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/introspect') {
        res.writeHead(404).end();
        return;
      }
      if (req.headers['content-type'] !== 'application/x-www-form-urlencoded') {
        res.writeHead(400).end();
        return;
      }
      const form = new URLSearchParams(body);
      state.requests.push(form);
      if (state.mode === 'error-500') {
        res.writeHead(500).end('internal error');
        return;
      }
      if (state.mode === 'not-json') {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
        return;
      }
      const answer = state.tokens.get(form.get('token') ?? '') ?? { active: false };
      const send = () =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      if (state.mode === 'slow') setTimeout(send, 2000).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
