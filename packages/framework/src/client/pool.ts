/**
 * `UpstreamPool`: named upstream definitions and their connections, each created on first use.
 * ipybox's tool server keeps one per session: `define()` on `register_mcp_server`, `get()` per
 * tool call, `closeAll()` on `reset` (definitions stay; connections restart lazily). What each
 * upstream turned out to speak (its protocol era) outlives its connections, so a restart after a
 * reset does not probe again. While a connection is open, the credentials its server is
 * configured with are remembered for the tool-call logs' redaction (`secrets.ts`).
 *
 * @module
 */
import { isDeepStrictEqual } from 'node:util';
import { UpstreamConnection, type UpstreamConnectionOptions } from './connection.ts';
import { UpstreamError } from './errors.ts';
import type { UpstreamParams } from './params.ts';
import { rememberUpstreamSecrets } from './secrets.ts';
import { VerdictCache } from './verdicts.ts';

export class UpstreamPool {
  readonly #options: UpstreamConnectionOptions;
  readonly #params = new Map<string, UpstreamParams>();
  readonly #connections = new Map<string, UpstreamConnection>();
  /** Forgets the credentials of each open connection's server. */
  readonly #forgetSecrets = new Map<string, () => void>();

  /** @param options shared by every connection the pool creates. */
  constructor(options: UpstreamConnectionOptions = {}) {
    this.#options = { verdicts: new VerdictCache(), ...options };
  }

  /**
   * Adds or replaces a definition. Replacing it with different params closes the old
   * connection (the next `get()` starts the new one); the same params keep it.
   */
  async define(name: string, params: UpstreamParams): Promise<void> {
    const previous = this.#params.get(name);
    this.#params.set(name, params);
    if (previous !== undefined && !isDeepStrictEqual(previous, params)) {
      await this.#drop(name);
    }
  }

  has(name: string): boolean {
    return this.#params.has(name);
  }

  names(): string[] {
    return [...this.#params.keys()];
  }

  /**
   * The connection for `name`, created (not yet connected) on first use.
   *
   * @throws {UpstreamError} `UNKNOWN_UPSTREAM` when no definition has that name.
   */
  get(name: string): UpstreamConnection {
    const existing = this.#connections.get(name);
    if (existing && !existing.closed) return existing;
    const params = this.#params.get(name);
    if (params === undefined) {
      const known = this.names();
      const list = known.length > 0 ? known.map((n) => `'${n}'`).join(', ') : '(none)';
      throw new UpstreamError(
        'UNKNOWN_UPSTREAM',
        `unknown upstream '${name}' (registered: ${list})`,
      );
    }
    const connection = new UpstreamConnection(name, params, this.#options);
    this.#connections.set(name, connection);
    this.#forgetSecrets.get(name)?.();
    this.#forgetSecrets.set(name, rememberUpstreamSecrets(name, params, this.#options.env));
    return connection;
  }

  /** Closes the connection and forgets the definition. */
  async remove(name: string): Promise<void> {
    this.#params.delete(name);
    await this.#drop(name);
  }

  /** Closes every connection; definitions stay, so the next `get()` starts afresh. */
  async closeAll(): Promise<void> {
    const open = [...this.#connections.values()];
    this.#connections.clear();
    for (const forget of this.#forgetSecrets.values()) forget();
    this.#forgetSecrets.clear();
    await Promise.all(open.map((connection) => connection.close()));
  }

  async #drop(name: string): Promise<void> {
    const connection = this.#connections.get(name);
    this.#connections.delete(name);
    this.#forgetSecrets.get(name)?.();
    this.#forgetSecrets.delete(name);
    await connection?.close();
  }
}
