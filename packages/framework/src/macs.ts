/**
 * MACs as tokens spell them. A MAC is compared as its base64url text, not as decoded bytes:
 * the decoder skips characters outside the alphabet and the last character carries spare bits,
 * so comparing bytes would accept other spellings of the same token.
 */
import { nodeCrypto } from './lazy.ts';

/** Whether `given` spells the MAC `expected` exactly (constant time). */
export function macMatches(given: string, expected: Buffer): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected.toString('base64url'));
  return a.length === b.length && nodeCrypto().timingSafeEqual(a, b);
}
