/**
 * RFC 6238 TOTP checking with `otpauth`: SHA-1, 6 digits, 30-second steps, one step of clock
 * drift either way. Returns the time step the code belongs to, so the gate can refuse a replay.
 *
 * @module
 */
import type { Secret } from 'otpauth';
import { otpauth } from '../lazy.ts';

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
const WINDOW = 1;

export type TotpCheck =
  | { kind: 'valid'; step: number }
  | { kind: 'invalid' }
  | { kind: 'malformed' }
  | { kind: 'bad-secret' };

/** Checks `code` against a base32 `secret` at time `nowMs`. Never throws, never echoes inputs. */
export function checkTotp(secretBase32: string, code: string, nowMs: number): TotpCheck {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return { kind: 'malformed' };
  let secret: Secret;
  try {
    // Authenticator apps show secrets grouped and lower-case; padding is optional.
    secret = otpauth().Secret.fromBase32(
      secretBase32
        .replace(/[\s-]+/g, '')
        .replace(/=+$/, '')
        .toUpperCase(),
    );
    if (secret.bytes.length === 0) return { kind: 'bad-secret' };
  } catch {
    return { kind: 'bad-secret' };
  }
  const totp = new (otpauth().TOTP)({
    secret,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
  });
  const delta = totp.validate({ token, timestamp: nowMs, window: WINDOW });
  if (delta === null) return { kind: 'invalid' };
  return { kind: 'valid', step: stepAt(nowMs) + delta };
}

/** The TOTP time step (counter) at `nowMs`. */
export function stepAt(nowMs: number): number {
  return Math.floor(nowMs / 1000 / TOTP_PERIOD_SECONDS);
}
