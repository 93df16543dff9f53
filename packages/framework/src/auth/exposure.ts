/**
 * The rule every HTTP server of the toolkit follows (the MCP endpoint of mcp-factory, mcp-proxy
 * and ipybox, the management API of mcp-proxy): a loopback bind needs no authentication and says
 * nothing; a bind other machines can reach without authentication is refused at start-up, unless
 * the user allowed it on purpose (`--allow-unauthenticated`, `allow_unauthenticated: true`) —
 * then it starts with one warning. What counts as loopback is decided once, in
 * `http/loopback.ts`, which also decides where DNS-rebinding protection applies.
 *
 * @module
 */
import { isLoopbackHost } from '../http/loopback.ts';
import type { Logger } from '../logging/index.ts';

/**
 * How a program's users turn each remedy on, in its own words, so the refusal never advises an
 * option the program does not have.
 */
export interface ExposureRemedies {
  /** How to bind loopback instead, e.g. `--host 127.0.0.1`. */
  loopback: string;
  /** How to add authentication, e.g. `set oauth_server_url and oauth_public_url (OAuth)`. */
  authenticate: string;
  /** How to allow the open bind, e.g. `--allow-unauthenticated`. */
  allow: string;
}

export interface UnauthenticatedBind {
  /** What would be served, for messages: `the http endpoint`, `the management API`. */
  what: string;
  /** The address it binds. */
  host: string;
  /** The user allowed an unauthenticated bind beyond loopback. */
  allowUnauthenticated: boolean | undefined;
  remedies: ExposureRemedies;
}

/** A server would serve, without authentication, an address other machines can reach. */
export class UnauthenticatedBindError extends Error {
  readonly code = 'UNAUTHENTICATED_BIND';
  constructor(
    readonly host: string,
    what: string,
    remedies: ExposureRemedies,
  ) {
    super(
      `refusing to serve ${what} on ${host} without authentication: other machines can reach ` +
        `that address. Bind to loopback (${remedies.loopback}), ${remedies.authenticate}, or ` +
        `serve it open on purpose with ${remedies.allow}.`,
    );
    this.name = 'UnauthenticatedBindError';
  }
}

/**
 * Applies the rule to a server that has no authentication: returns quietly for a loopback bind,
 * warns once for an allowed open bind, and throws otherwise.
 *
 * @throws UnauthenticatedBindError for a bind beyond loopback that was not allowed.
 */
export function checkUnauthenticatedBind(bind: UnauthenticatedBind, logger: Logger): void {
  if (isLoopbackHost(bind.host)) return;
  if (!bind.allowUnauthenticated) {
    throw new UnauthenticatedBindError(bind.host, bind.what, bind.remedies);
  }
  logger.warn(
    `${bind.what} on ${bind.host} has no authentication: anyone who can reach this machine can use it (allowed by ${bind.remedies.allow})`,
  );
}
