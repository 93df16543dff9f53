/**
 * TOTP for tests of the gate: a fresh secret and the code an authenticator shows for it at a
 * given time, so a test can unlock a gated group without waiting for the clock.
 *
 * @module
 */
import { Secret, TOTP } from 'otpauth';

/** A base32 secret (20 random bytes) as `otpauth` would generate it. */
export const newSecret = (): string => new Secret({ size: 20 }).base32;

/** The code an authenticator shows for `secret` at `ms`, offset by `steps` 30-second steps. */
export function codeAt(secret: string, ms: number, steps = 0): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: ms + steps * 30_000 });
}
