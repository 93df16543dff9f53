/**
 * Bearer tokens of the tool server: one for kernel code (`POST /run`), another for approval
 * clients, so code in the kernel cannot approve its own calls.
 *
 * @module
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh random token (256 bits, URL-safe). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Whether an `Authorization` header carries `Bearer <expected>`. Compared in constant time
 * (both sides hashed first, so lengths match and nothing leaks through timing).
 */
export function bearerTokenMatches(header: string | undefined, expected: string): boolean {
  const match = /^Bearer (.+)$/.exec(header ?? '');
  const given = createHash('sha256')
    .update(match?.[1] ?? '')
    .digest();
  return timingSafeEqual(given, digestOf(expected)) && match !== null;
}

/** The expected token's digest, computed once per token rather than once per request. */
const digests = new Map<string, Buffer>();

function digestOf(token: string): Buffer {
  let digest = digests.get(token);
  if (digest === undefined) {
    digest = createHash('sha256').update(token).digest();
    if (digests.size >= 64) digests.clear(); // a handful of live servers; never grows unbounded
    digests.set(token, digest);
  }
  return digest;
}
