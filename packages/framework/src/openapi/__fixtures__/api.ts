/**
 * A small pet-shop HTTP API on loopback for the OpenAPI connector's tests, described by
 * `pets-3.1.yaml` and `split/openapi.yaml`. It records every request it gets (method, URL,
 * headers, body) so a test can see what was sent; `/token` is an OAuth 2.0 client-credentials
 * endpoint that counts the tokens it issues.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const API_KEY = 'k-secret-7f3a91c2';
export const BEARER = 'b-secret-55d0e8a1';
export const QUERY_KEY = 'q-secret-0c4e72b9';
export const CLIENT_ID = 'reports-client';
export const CLIENT_SECRET = 'c-secret-9a8b7c6d';

export interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface Api {
  url: string;
  requests: Recorded[];
  /** Tokens issued by `/token`. */
  tokens: number;
  /** Requests to `/slow` whose connection the client has closed. */
  abandoned: number;
  close(): Promise<void>;
}

type After = { after(fn: () => unknown): void };

const PETS = [
  { id: 1, name: 'Rex', tag: 'dog', owner: null },
  { id: 2, name: 'Tom', tag: 'cat', owner: 'ada' },
];

export async function startApi(t: After): Promise<Api> {
  const api: Api = { url: '', requests: [], tokens: 0, abandoned: 0, close: async () => {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      api.requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
      });
      void route(api, req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  api.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  t.after(() => api.close());
  return api;
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

async function route(api: Api, req: IncomingMessage, res: ServerResponse, body: string) {
  const url = new URL(req.url ?? '/', api.url);
  const path = url.pathname;
  const bearer = req.headers.authorization?.replace(/^Bearer /, '');
  if (path === '/token' && req.method === 'POST') {
    const basic = Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64');
    if (req.headers.authorization !== `Basic ${basic}`) {
      return json(res, 401, { error: 'invalid_client' });
    }
    api.tokens++;
    return json(res, 200, {
      access_token: `tok-${api.tokens}`,
      token_type: 'Bearer',
      expires_in: 3600,
    });
  }
  if (path === '/reports') {
    if (!bearer?.startsWith('tok-')) return json(res, 401, { error: 'no token' });
    return json(res, 200, { report: 'ok', token: bearer });
  }
  if (path === '/me') {
    if (bearer !== BEARER) return json(res, 401, { error: 'bad bearer' });
    return json(res, 200, { user: 'ada' });
  }
  if (path === '/search') {
    if (url.searchParams.get('api_key') !== QUERY_KEY) {
      return json(res, 403, { error: `wrong key ${url.searchParams.get('api_key')}` });
    }
    return json(res, 200, { results: [url.searchParams.get('q')] });
  }
  if (path.startsWith('/echo')) return json(res, 200, { url: req.url, headers: req.headers, body });
  if (path === '/html') {
    res.writeHead(200, { 'content-type': 'text/html' });
    return res.end('<html>hello</html>');
  }
  if (path === '/broken') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end('{"pets": [');
  }
  if (path === '/boom') {
    res.writeHead(500, { 'content-type': 'text/plain' });
    return res.end(`database on fire ${'x'.repeat(10_000)}`);
  }
  if (path === '/slow') {
    req.socket.once('close', () => api.abandoned++);
    return; // never answers
  }
  if (path === '/away') {
    const other = api.url.replace('127.0.0.1', 'localhost');
    res.writeHead(302, { location: `${other}/pets` });
    return res.end();
  }
  if (path === '/moved') {
    res.writeHead(302, { location: '/pets' });
    return res.end();
  }
  if (path === '/forms' || path === '/uploads') {
    const request = new Request(`${api.url}${path}`, {
      method: 'POST',
      headers: req.headers as Record<string, string>,
      body,
    });
    const form = await request.formData();
    const fields: Record<string, unknown[]> = {};
    for (const [key, value] of form) {
      const text = typeof value === 'string' ? value : await value.text();
      fields[key] = [...(fields[key] ?? []), text];
    }
    return json(res, 200, { fields });
  }
  if (req.headers['x-api-key'] !== API_KEY) return json(res, 401, { error: 'missing key' });
  if (path === '/pets' && req.method === 'GET') {
    const limit = Number(url.searchParams.get('limit') ?? 10);
    return json(res, 200, { pets: PETS.slice(0, limit), query: url.search });
  }
  if (path === '/pets' && req.method === 'POST') {
    const pet = JSON.parse(body) as Record<string, unknown>;
    return json(res, 201, { id: 3, ...pet });
  }
  const match = /^\/pets\/(\d+)$/.exec(path);
  if (match) {
    const pet = PETS.find((p) => p.id === Number(match[1]));
    if (req.method === 'DELETE') {
      res.writeHead(204);
      return res.end();
    }
    if (!pet) return json(res, 404, { error: `no pet ${match[1]}` });
    return json(res, 200, pet);
  }
  json(res, 404, { error: 'no route' });
}
