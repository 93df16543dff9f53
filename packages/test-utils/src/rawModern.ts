/**
 * A bare 2026-07-28 JSON-RPC request over Streamable HTTP, with the headers and `_meta` envelope
 * the spec requires: for tests of wire shapes the SDK client does not speak (the Tasks
 * extension's `resultType: "task"` and `tasks/*` methods).
 */

export const TASKS_CAPABILITIES = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

/** The name header a method mirrors (SEP-2243, SEP-2663). */
function nameOf(method: string, params: Record<string, unknown>): string | undefined {
  if (method === 'tools/call' || method === 'prompts/get') return String(params.name);
  if (method.startsWith('tasks/')) return String(params.taskId);
  return undefined;
}

let nextId = 1;

export interface RawResponse {
  /** The id the answer names (the request's, unless the server got it wrong). */
  id?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

export async function rawModern(
  url: string | URL,
  method: string,
  params: Record<string, unknown>,
  options: {
    capabilities?: Record<string, unknown>;
    headers?: Record<string, string>;
    /** The request's id; default the next of a counter. */
    id?: string | number;
  } = {},
): Promise<RawResponse> {
  const name = nameOf(method, params);
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name !== undefined && { 'mcp-name': name }),
      ...options.headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: options.id ?? nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? {},
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        },
      },
    }),
  });
  const text = await response.text();
  const data = text.startsWith('{')
    ? text
    : text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .find((line) => line.includes('"id"'));
  return JSON.parse(data ?? '{}') as RawResponse;
}

/** Polls `tasks/get` until `done(view)` holds; returns that view. */
export async function pollTask(
  url: string | URL,
  taskId: string,
  done: (view: Record<string, unknown>) => boolean,
  options: { headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    const got = await rawModern(
      url,
      'tasks/get',
      { taskId },
      { capabilities: TASKS_CAPABILITIES, headers: options.headers },
    );
    if (!got.result) throw new Error(`tasks/get failed: ${JSON.stringify(got)}`);
    if (done(got.result)) return got.result;
    if (Date.now() > deadline) {
      throw new Error(`task ${taskId} never got there; last: ${JSON.stringify(got.result)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
