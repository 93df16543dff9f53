/**
 * A small client for the management API, used by the `mcp-proxy status|list|…` commands and by
 * `serve` to find out whether a proxy already runs on the port.
 *
 * @module
 */

export interface ManagementClientOptions {
  port: number;
  /** Default `127.0.0.1`. */
  host?: string;
  token?: string;
  /** Per request, in ms. Default 30 000 (a load may start an upstream server). */
  timeoutMs?: number;
}

/** Nothing answers on the port. */
export class ManagementUnavailableError extends Error {
  readonly code = 'MGMT_UNAVAILABLE';
  constructor(readonly port: number) {
    super(`cannot connect to management API on port ${port} — is the proxy running?`);
    this.name = 'ManagementUnavailableError';
  }
}

/** The proxy answered 401. */
export class ManagementUnauthorizedError extends Error {
  readonly code = 'MGMT_UNAUTHORIZED';
  constructor() {
    super('unauthorized — provide --mgmt-token (or --mgmt-token-file) or set MCP_MGMT_TOKEN');
    this.name = 'ManagementUnauthorizedError';
  }
}

/** The proxy answered with an error (`{"ok": false, "error": …}`). */
export class ManagementRequestError extends Error {
  readonly code = 'MGMT_REQUEST_FAILED';
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
    this.name = 'ManagementRequestError';
  }
}

export class ManagementClient {
  readonly #base: string;
  readonly #options: ManagementClientOptions;

  constructor(options: ManagementClientOptions) {
    this.#options = options;
    this.#base = `http://${options.host ?? '127.0.0.1'}:${options.port}`;
  }

  get(path: string): Promise<unknown> {
    return this.#request('GET', path);
  }

  post(path: string, body?: unknown): Promise<unknown> {
    return this.#request('POST', path, body);
  }

  async #request(method: string, path: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = {};
    if (this.#options.token) headers.authorization = `Bearer ${this.#options.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${this.#base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.#options.timeoutMs ?? 30_000),
      });
    } catch {
      throw new ManagementUnavailableError(this.#options.port);
    }
    if (response.status === 401) throw new ManagementUnauthorizedError();
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ManagementRequestError(
        response.status,
        `unexpected answer from port ${this.#options.port} (HTTP ${response.status}) — is that an mcp-proxy?`,
        text,
      );
    }
    if (!response.ok) {
      const error = (parsed as { error?: unknown }).error;
      throw new ManagementRequestError(
        response.status,
        typeof error === 'string' ? error : `HTTP ${response.status}`,
        parsed,
      );
    }
    return parsed;
  }
}

/**
 * Whether anything answers HTTP on the management port. Any answer counts — a proxy with a token
 * says 401, and the anchor's probe took that for "not running" and started a second proxy.
 */
export async function probeManagementPort(port: number, host = '127.0.0.1'): Promise<boolean> {
  try {
    await fetch(`http://${host}:${port}/proxy/status`, { signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}
