/**
 * The one definition of loopback, for both rules that depend on it: a server bound to a loopback
 * address needs no authentication (`auth/exposure.ts`), and it answers only requests addressed to
 * a loopback name, against DNS rebinding (`guard.ts`). Every listener of the toolkit asks here, so
 * the two rules can never disagree about a spelling.
 *
 * @module
 */

/** 127.0.0.0/8 in dotted decimal, each part 0–255 without leading zeros. */
const IPV4_LOOPBACK = /^127(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
/** `::ffff:127.x.y.z` as the URL standard writes it (`[::ffff:7f00:1]`). */
const MAPPED_IPV4_LOOPBACK = /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/;

/**
 * Whether only this machine can reach `host`: `localhost` (any case, with or without the root's
 * trailing dot), 127.0.0.0/8, `::1` in any IPv6 spelling, and 127.0.0.0/8 mapped into IPv6
 * (`::ffff:127.0.0.1`), bracketed or not. Anything else — `0.0.0.0`, `::`, a LAN address, a host
 * name, an unusual spelling such as `127.1` or `0x7f.0.0.1` — counts as reachable from
 * elsewhere, so what is not recognised fails closed.
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.trim().toLowerCase();
  if (name === 'localhost' || name === 'localhost.') return true;
  if (IPV4_LOOPBACK.test(name)) return true;
  const v6 = canonicalIpv6(name);
  return v6 === '[::1]' || (v6 !== undefined && MAPPED_IPV4_LOOPBACK.test(v6));
}

/** An IPv6 literal (bare or bracketed) in the URL standard's form, `[…]`; else `undefined`. */
function canonicalIpv6(name: string): string | undefined {
  const bare = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
  if (!bare.includes(':') || !/^[0-9a-f:.]+$/.test(bare)) return undefined;
  try {
    // The URL parser (global, nothing to load) folds `0:0:0:0:0:0:0:1`, `::ffff:127.0.0.1` and
    // the other spellings into one form.
    return new URL(`http://[${bare}]/`).hostname;
  } catch {
    return undefined;
  }
}

/**
 * The host name of a `Host` header value (`name`, `name:port`, `[v6]:port`), or `undefined`
 * when it is anything else (user info, a path, a percent-escape): such a value names no host.
 */
export function hostOfHeader(value: string): string | undefined {
  return /^(\[[0-9A-Fa-f:.]+\]|[^\s:@/\\?#[\]%]+)(?::\d{1,5})?$/.exec(value)?.[1];
}
