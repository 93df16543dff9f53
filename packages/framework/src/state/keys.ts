/**
 * The keys a server signs and seals with, one per purpose: the `requestState` sealing key
 * (2026-07-28 `input_required` rounds), the gate's unlock handles, the signatures of shared
 * records, and the MACs of approval grants. Alone, each is drawn at random on first use, so a
 * restart voids what it signed. In a cluster every replica derives the same keys from the
 * configured `cluster.secret` (HKDF-SHA256) — never from Redis: whoever can write Redis must not
 * be able to choose or read them.
 *
 * @module
 */
import { nodeCrypto } from '../lazy.ts';

export const KEY_PURPOSES = [
  'request-state',
  'gate-handles',
  'records',
  'approval-grants',
] as const;
export type KeyPurpose = (typeof KEY_PURPOSES)[number];

export interface KeyRing {
  /** 32 bytes for `purpose`; the same bytes on every call. */
  key(purpose: KeyPurpose): Buffer;
}

/** Keys of this process alone: random, drawn on first use. */
export function randomKeyRing(): KeyRing {
  const keys = new Map<KeyPurpose, Buffer>();
  return {
    key(purpose) {
      let key = keys.get(purpose);
      if (!key) {
        key = nodeCrypto().randomBytes(32);
        keys.set(purpose, key);
      }
      return key;
    },
  };
}

/** The shortest `cluster.secret` accepted: 32 characters (`openssl rand -base64 32` gives 44). */
export const MIN_SECRET_LENGTH = 32;

/**
 * Keys every replica given `secret` derives alike.
 *
 * @throws Error when `secret` is shorter than {@link MIN_SECRET_LENGTH} (never echoing it).
 */
export function secretKeyRing(secret: string): KeyRing {
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new Error(
      `the cluster secret has ${secret.length} characters; at least ${MIN_SECRET_LENGTH} are needed (make one with: openssl rand -base64 32)`,
    );
  }
  const keys = new Map<KeyPurpose, Buffer>();
  return {
    key(purpose) {
      let key = keys.get(purpose);
      if (!key) {
        const derived = nodeCrypto().hkdfSync('sha256', secret, 'mcpbox cluster', purpose, 32);
        key = Buffer.from(derived);
        keys.set(purpose, key);
      }
      return key;
    },
  };
}
