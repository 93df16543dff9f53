/**
 * Unlock handles: what a caller without a lasting identity (a 2026 HTTP request without
 * authentication) gets from `gate_unlock` instead of a stored unlock. The handle is a
 * server-minted, HMAC-signed claim "group G unlocked until T, lock epoch E"; the caller passes
 * it as the `gate_handle` argument of each gated call. Only the caller that presented the code
 * ever sees it; a lock (or the kill switch) bumps the epoch and voids every handle of the group;
 * it expires with the group's timeout. The key is per process, so a restart voids them all —
 * or, in cluster mode, per cluster ({@link shareHandleKey}), so a handle works on every replica.
 *
 * @module
 */
import { nodeCrypto } from '../lazy.ts';

/** The reserved tool argument that carries a handle. */
export const GATE_HANDLE_ARGUMENT = 'gate_handle';

/** Drawn on first use (a server that never mints a handle never loads node:crypto for it). */
let KEY: Buffer | undefined;

/** Cluster mode: sign and check handles with the cluster's key (at start, before any unlock). */
export function shareHandleKey(key: string): void {
  KEY = Buffer.from(key, 'base64url');
}

interface HandleClaim {
  /** Group. */
  g: string;
  /** Lock epoch at minting. */
  e: number;
  /** Expiry, ms since the epoch. */
  x: number;
  /** Nonce: two handles are never equal. */
  n: string;
}

function sign(payload: string): Buffer {
  KEY ??= nodeCrypto().randomBytes(32);
  return nodeCrypto().createHmac('sha256', KEY).update(payload).digest();
}

export function mintHandle(group: string, epoch: number, expiresAt: number): string {
  const claim: HandleClaim = {
    g: group,
    e: epoch,
    x: expiresAt,
    n: nodeCrypto().randomBytes(9).toString('base64url'),
  };
  const payload = Buffer.from(JSON.stringify(claim)).toString('base64url');
  return `${payload}.${sign(payload).toString('base64url')}`;
}

/** Whether `handle` unlocks `group` at `now` under lock epoch `epoch`. Constant-time check. */
export function handleUnlocks(handle: string, group: string, epoch: number, now: number): boolean {
  const dot = handle.indexOf('.');
  if (dot <= 0) return false;
  const payload = handle.slice(0, dot);
  const given = Buffer.from(handle.slice(dot + 1), 'base64url');
  const expected = sign(payload);
  if (given.length !== expected.length || !nodeCrypto().timingSafeEqual(given, expected))
    return false;
  let claim: HandleClaim;
  try {
    claim = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as HandleClaim;
  } catch {
    return false;
  }
  return claim.g === group && claim.e === epoch && typeof claim.x === 'number' && now < claim.x;
}
