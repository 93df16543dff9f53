/**
 * `Mcp-Param-{Name}` headers of 2026-07-28 `tools/call` requests (spec: basic/transports
 * streamable-http, "Custom Headers from Tool Parameters", SEP-2243).
 *
 * A tool may mark a parameter of its `inputSchema` with `"x-mcp-header": "Name"`; a client then
 * mirrors that argument into an `Mcp-Param-Name` header, so a load balancer can route on it. The
 * server must reject (400, -32020 HeaderMismatch) a call whose header is missing while the body
 * has the value, or whose header — after decoding the `=?base64?…?=` form — differs from the
 * body. The SDK checks this only for `McpServer` products; mcpbox serves a low-level `Server`
 * per request, so the HTTP entry checks it against the catalog's schema before the SDK sees the
 * request. Upstream tools mirrored by mcp-proxy keep their schemas, and so their declarations.
 *
 * @module
 */

/** One declared header: its name part and the chain of `properties` keys to the argument. */
export interface ParamHeader {
  name: string;
  path: string[];
}

const declared = new WeakMap<object, ParamHeader[]>();

/**
 * The `x-mcp-header` declarations reachable from the schema root through `properties` alone
 * (the only places the spec allows them). Cached per schema object.
 */
export function paramHeadersOf(schema: Record<string, unknown>): ParamHeader[] {
  let headers = declared.get(schema);
  if (headers) return headers;
  headers = [];
  const walk = (node: unknown, path: string[]) => {
    const properties = (node as { properties?: unknown } | null)?.properties;
    if (properties === null || typeof properties !== 'object') return;
    for (const [key, child] of Object.entries(properties)) {
      if (child === null || typeof child !== 'object') continue;
      const name = (child as Record<string, unknown>)['x-mcp-header'];
      if (typeof name === 'string' && name.length > 0)
        headers?.push({ name, path: [...path, key] });
      walk(child, [...path, key]);
    }
  };
  walk(schema, []);
  declared.set(schema, headers);
  return headers;
}

const SENTINEL_START = '=?base64?';
const SENTINEL_END = '?=';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A header value as the client meant it: the Base64 sentinel form decoded, else literal. */
function decoded(value: string): string | undefined {
  if (
    value.length < SENTINEL_START.length + SENTINEL_END.length ||
    !value.startsWith(SENTINEL_START) ||
    !value.endsWith(SENTINEL_END)
  ) {
    return value;
  }
  const encoded = value.slice(SENTINEL_START.length, -SENTINEL_END.length);
  if (!BASE64.test(encoded)) return undefined;
  return Buffer.from(encoded, 'base64').toString('utf8');
}

/** Whether a decoded header value stands for the argument (integers compared as numbers). */
function matches(header: string, value: unknown): boolean {
  if (typeof value === 'string') return header === value;
  if (typeof value === 'boolean') return header === String(value);
  if (typeof value === 'number') return header.trim() !== '' && Number(header) === value;
  return false;
}

function argumentAt(args: unknown, path: string[]): unknown {
  let value = args;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * Why the `Mcp-Param-*` headers of a call do not fit its arguments, or undefined when they do.
 * `header(name)` reads a request header (case-insensitively).
 */
export function paramHeaderMismatch(
  headers: ParamHeader[],
  args: unknown,
  header: (name: string) => string | undefined,
): string | undefined {
  for (const { name, path } of headers) {
    const field = `Mcp-Param-${name}`;
    const raw = header(field);
    const value = argumentAt(args, path);
    if (value === undefined || value === null) {
      if (raw !== undefined) return `Header mismatch: ${field} is set but the argument is absent`;
      continue;
    }
    if (raw === undefined) return `Header mismatch: ${field} is missing`;
    const text = decoded(raw);
    if (text === undefined) return `Header mismatch: ${field} is not valid Base64`;
    if (!matches(text, value)) {
      return `Header mismatch: ${field} does not match the argument ${path.join('.')}`;
    }
  }
  return undefined;
}
