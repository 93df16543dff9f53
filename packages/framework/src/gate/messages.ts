/**
 * What the gate says: the answers of its tools and of blocked calls. Neither a secret nor a
 * code ever appears in one.
 *
 * @module
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { StateScope } from '../state/records.ts';
import { GATE_HANDLE_ARGUMENT } from './handles.ts';
import { stepAt, TOTP_PERIOD_SECONDS } from './totp.ts';

export const MAX_FAILURES = 5;

/** How a lockout is reset depends on where the state lives: a restart clears only memory. */
export const LOCKOUT: Record<StateScope, { hint: string; message: (group: string) => string }> = {
  process: {
    hint: 'restart to reset',
    message: (group) =>
      `Group '${group}' is locked out after ${MAX_FAILURES} failed attempts. Restart the server to reset.`,
  },
  cluster: {
    hint: "reset by deleting the cluster's gate keys in Redis",
    message: (group) =>
      `Group '${group}' is locked out after ${MAX_FAILURES} failed attempts, on every replica. An operator resets it by deleting the cluster's gate keys in Redis.`,
  },
};

export function gateErrorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

export function unlockHint(group: string, withHandle: boolean): string {
  const unlock = `Call gate_unlock(group='${group}', code='<6-digit code from your authenticator>') first`;
  return withHandle
    ? `${unlock}, then pass the ${GATE_HANDLE_ARGUMENT} it returns as an extra argument of this call.`
    : `${unlock}.`;
}

export function handleMessage(group: string, timeout: string, handle: string): string {
  return (
    `Group '${group}' unlocked for ${timeout}. This connection has no session, so pass ` +
    `${GATE_HANDLE_ARGUMENT}='${handle}' as an extra argument of every call to a tool in ` +
    `this group. Keep it private: it works for whoever presents it until the group locks.`
  );
}

/** A right code whose time step was already used (here or on another replica). */
export function reusedMessage(now: number): string {
  const wait = (stepAt(now) + 1) * TOTP_PERIOD_SECONDS - Math.floor(now / 1000);
  return `This code was already used. Wait for the next code (about ${wait}s).`;
}

/** The shared state could not be read or written, or a record of it did not verify. */
export function unavailableMessage(group: string, error: unknown): string {
  return (
    `Group '${group}' is unavailable: the gate's shared state cannot be reached ` +
    `(${errorText(error)}). Protected calls are refused until it is back; try again shortly.`
  );
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `session:1a2b3c4d…`: the kind of caller and enough of its id to tell callers apart. */
export function displayCallerKey(key: string): string {
  const colon = key.indexOf(':');
  const kind = colon < 0 ? '' : key.slice(0, colon + 1);
  const id = key.slice(colon + 1);
  return id.length > 8 ? `${kind}${id.slice(0, 8)}…` : key;
}

export function shortKey(key: string): string {
  return key.length > 20 ? `${key.slice(0, 20)}…` : key;
}

/** `2h`, `5m`, `1m 30s`, `45s`. */
export function formatDuration(totalSeconds: number): string {
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = Math.floor(totalSeconds % 60);
  const parts = [h ? `${h}h` : '', m ? `${m}m` : '', s ? `${s}s` : ''].filter(Boolean);
  return parts.length ? parts.join(' ') : '0s';
}
