/**
 * Bearer-token check for the management API. Both sides are hashed before the constant-time
 * comparison, so neither the token's length nor its content leaks through timing.
 *
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Returns a constant-time checker of a presented secret against `token` (hashed on both sides);
 * an empty or missing presentation costs the same and never matches.
 */
export function secretCheck(token: string): (given: string | undefined) => boolean {
  const expected = digest(token);
  return (given) => timingSafeEqual(digest(given ?? ''), expected) && given !== undefined;
}

/** Returns a checker for `Authorization` headers; without a token every request passes. */
export function bearerCheck(token: string | undefined): (header: string | undefined) => boolean {
  if (token === undefined || token === '') return () => true;
  const expected = digest(token);
  return (header) => {
    const match = /^Bearer (.+)$/.exec(header ?? '');
    // Hash something even without a token, so a missing header costs the same.
    const given = digest(match ? match[1] : '');
    return timingSafeEqual(given, expected) && match !== null;
  };
}
