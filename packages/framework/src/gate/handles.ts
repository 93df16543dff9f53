/**
 * Unlock handles: what a caller without a lasting identity (a 2026 HTTP request without
 * authentication) gets from `gate_unlock` instead of a stored unlock. The handle is a
 * server-minted, HMAC-signed claim "group G unlocked until T, in record generation R and lock
 * epoch E"; the caller passes it as the `gate_handle` argument of each gated call. Only the
 * caller that presented the code ever sees it; a lock (or the kill switch) bumps the epoch and
 * voids every handle of the group; it expires with the group's timeout. The key is the
 * process's (`state/keys.ts`): drawn per process, so a restart voids them all — or, in cluster
 * mode, derived from `cluster.secret`, so a handle works on every replica and nobody who can
 * only write Redis can mint one.
 *
 * @module
 */
import { nodeCrypto } from '../lazy.ts';
import { macMatches } from '../macs.ts';
import { processState } from '../state/process.ts';

/** The reserved tool argument that carries a handle. */
export const GATE_HANDLE_ARGUMENT = 'gate_handle';

interface HandleClaim {
  /** Group. */
  g: string;
  /** The group record's generation and lock epoch at minting. */
  r: string;
  e: number;
  /** Expiry, ms since the epoch. */
  x: number;
  /** Nonce: two handles are never equal. */
  n: string;
}

function sign(payload: string): Buffer {
  const key = processState().keys.key('gate-handles');
  return nodeCrypto().createHmac('sha256', key).update(payload).digest();
}

/** Where a handle is valid: the group record's generation and lock epoch. */
export interface HandleEpoch {
  generation: string;
  lockEpoch: number;
}

export function mintHandle(group: string, at: HandleEpoch, expiresAt: number): string {
  const claim: HandleClaim = {
    g: group,
    r: at.generation,
    e: at.lockEpoch,
    x: expiresAt,
    n: nodeCrypto().randomBytes(9).toString('base64url'),
  };
  const payload = Buffer.from(JSON.stringify(claim)).toString('base64url');
  return `${payload}.${sign(payload).toString('base64url')}`;
}

/** Whether `handle` unlocks `group` at `now` in `at`. Constant-time check. */
export function handleUnlocks(
  handle: string,
  group: string,
  at: HandleEpoch,
  now: number,
): boolean {
  const dot = handle.indexOf('.');
  if (dot <= 0) return false;
  const payload = handle.slice(0, dot);
  if (!macMatches(handle.slice(dot + 1), sign(payload))) return false;
  let claim: HandleClaim;
  try {
    claim = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as HandleClaim;
  } catch {
    return false;
  }
  return (
    claim.g === group &&
    claim.r === at.generation &&
    claim.e === at.lockEpoch &&
    typeof claim.x === 'number' &&
    now < claim.x
  );
}
